"""The places where the wizard reaches into Textual's private parts, all of them here.

Textual (pinned in pyproject.toml) offers no public way to do these three things. Each one
degrades to doing nothing when a Textual upgrade moves what it touches, and
tests/test_textual_workarounds.py fails then, so the upgrade is looked at here and nowhere else:

* rebind: change a screen's keys as its footer shows them (shown or not, described how). The
  footer leaves out the keys that do not fit an 80-column window, and Ctrl+N says "Finish" once
  the report is saved; the keys keep working. Textual's public route, check_action, can only
  hide a key by disabling it.
* footer_bindings_ready: whether the Footer can read the screen's keys yet (screens.widgets.
  KeysFooter rebuilds only when they change).
* clear_render_cache: Textual 8.2 keeps the last 1,024 widgets' render caches alive through an
  lru_cache on a method (reported upstream as Textualize/textual#6665): the left steps' memory.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

from textual.binding import Binding

_styles_cache: ModuleType | None
try:
    from textual import _styles_cache
except ImportError:   # moved: a Textual that has likely fixed the leak
    _styles_cache = None


def _key_table(node: Any) -> dict[str, list[Binding]] | None:
    table = getattr(getattr(node, "_bindings", None), "key_to_bindings", None)
    return table if isinstance(table, dict) else None


def rebind(node: Any, change: Callable[[Binding], Binding]) -> bool:
    """Each of `node`'s own bindings replaced by change(binding); False when this Textual keeps
    them elsewhere (nothing changed)."""
    table = _key_table(node)
    if table is None:
        return False
    for key, bindings in list(table.items()):
        table[key] = [change(binding) for binding in bindings]
    node.refresh_bindings()
    return True


def footer_bindings_ready(footer: Any) -> bool:
    """The Footer has been told the screen's keys (a Footer without the flag: assume it has)."""
    return bool(getattr(footer, "_bindings_ready", True))


def clear_render_cache() -> bool:
    """Let go of the render caches that Textual's lru_cache keeps; False when there is none."""
    inner_outer = getattr(getattr(_styles_cache, "StylesCache", None), "get_inner_outer", None)
    cache_clear = getattr(inner_outer, "cache_clear", None)
    if cache_clear is None:   # a Textual that has fixed it has none
        return False
    cache_clear()
    return True
