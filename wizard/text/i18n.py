"""UI and explanation strings in English and Chinese.

Strings live in content/<lang>/strings/<area>.toml; a key `x` in `nvml.toml` is `nvml.x`.
Each area is one file so that parts of the program add text without touching each other's
files. A parity test fails when a key exists in one language only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from functools import cache

from wizard.knowledge.content import ContentError, content_dir, read_toml
from wizard.text.output import CJK_RANGES

LANGUAGES = ("en", "zh")


def language_from_env(env: Mapping[str, str] | None = None) -> str:
    """zh* locales get Chinese, everything else English (LANG=C included)."""
    env = os.environ if env is None else env
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = env.get(var, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


@cache
def _area(lang: str, area: str) -> dict[str, str]:
    """One strings file: the UI asks for a few areas at start-up, not for all of them."""
    table: dict[str, str] = {}
    path = content_dir() / lang / "strings" / f"{area}.toml"
    if not path.exists():
        return table
    try:
        data = read_toml(path)
    except ContentError:
        # `t` falls back to English, then to the key; the CLI names the damaged file at the end.
        return table
    _flatten(area, data, table)
    return table


def preload(lang: str, *areas: str) -> None:
    """Read these areas now, in a background thread, so that the first `t` of them on the
    wizard's event loop does not stop it to parse a file."""
    for area in areas:
        _area(lang, area)
        _area("en", area)   # what `t` falls back to


def strings(lang: str) -> dict[str, str]:
    """Every string of a language (the parity test reads them all)."""
    table: dict[str, str] = {}
    for path in sorted((content_dir() / lang / "strings").glob("*.toml")):
        table.update(_area(lang, path.stem))
    return table


def _flatten(prefix: str, data: dict, out: dict[str, str]) -> None:
    for key, value in data.items():
        full = f"{prefix}.{key}"
        if isinstance(value, dict):
            _flatten(full, value, out)
        else:
            out[full] = str(value)


def t(key: str, lang: str = "en", **values: object) -> str:
    """The text for `key`; falls back to English, then to the key itself, never raises."""
    area = key.partition(".")[0]
    text = _area(lang, area).get(key)
    if text is None:
        text = _area("en", area).get(key, key)
    if values:
        try:
            text = text.format(**values)
        except (KeyError, IndexError, ValueError):
            return text
        if lang == "zh":
            # Templates space out a {name} for Latin names ("用 Kaggle 这类"); when the value
            # is Chinese ("魔搭社区 Notebook"), Chinese never puts a space between characters.
            text = _cjk_gap().sub("", text)
        else:
            # "{count} GPU(s)" in a template reads "1 GPU" / "2 GPUs" once the number is in.
            text = _PLURAL.sub(lambda m: f"{m[1]} {m[2]}" + ("" if m[1] == "1" else "s"), text)
    return text


_PLURAL = re.compile(r"\b(\d[\d,]*) (\w+)\(s\)")


@cache
def _cjk_gap() -> re.Pattern[str]:
    # Compiled on first use (a Chinese string): the wide classes cost milliseconds at start-up.
    return re.compile(f"(?<=[{CJK_RANGES}]) +(?=[{CJK_RANGES}])")


def has(key: str, lang: str = "en") -> bool:
    return key in _area(lang, key.partition(".")[0])
