"""A package that exports names from its modules but imports each module on first use.

`from wizard.report import summarize` then loads the roster code alone, not the code that
builds, redacts and saves reports; `from wizard.knowledge import KnowledgeError` loads no
catalog declarations. Commands that start often (`check`, `report summarize`) pay only for what
they use.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, Callable


def lazy_exports(package: str, homes: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level `__getattr__` and `__dir__` for `package`, where `homes` maps each
    exported name to the module (within the package) that defines it."""

    def __getattr__(name: str) -> Any:
        module = homes.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)  # found directly from now on
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(homes))

    return __getattr__, __dir__
