"""Where content/ lives: inside the installed package, or at the top of a source checkout."""

from __future__ import annotations

from functools import cache
from pathlib import Path


@cache
def content_dir() -> Path:
    here = Path(__file__).resolve().parent
    for candidate in (here / "content", here.parent / "content"):
        if (candidate / "en").is_dir():
            return candidate
    raise FileNotFoundError(
        "gpu-wizard's content/ folder is missing from this installation; reinstall gpu-wizard"
    )
