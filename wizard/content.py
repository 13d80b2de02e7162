"""Where content/ lives, and reading it: one reader for every data and strings file.

A damaged installation (a half-copied wheel, a hand-edited file) must end in one sentence that
names the file, never in a traceback; `ContentError` carries that sentence. `check_installation`
reads every file once so the wizard can find damage before the user reaches the step that
needs the file.
"""

from __future__ import annotations

try:
    import tomllib  # novermin (3.9 and 3.10 get tomli below)
except ModuleNotFoundError:  # Python 3.9 and 3.10: the same parser, from PyPI
    import tomli as tomllib  # type: ignore[no-redef]
from functools import cache
from pathlib import Path
from typing import Any


@cache
def content_dir() -> Path:
    here = Path(__file__).resolve().parent
    for candidate in (here / "content", here.parent / "content"):
        if (candidate / "en").is_dir():
            return candidate
    raise FileNotFoundError(
        "gpu-wizard's content/ folder is missing from this installation; reinstall gpu-wizard"
    )


# Every content file found damaged in this process (shown name → reason): whoever caught the
# error and carried on, the CLI still tells the user once, at the end.
DAMAGED: dict[str, str] = {}


class ContentError(ValueError):
    """A content file that cannot be used: `file` (as shown to the user) and `reason`."""

    def __init__(self, file: str, reason: str) -> None:
        self.file = file
        self.reason = reason
        DAMAGED.setdefault(file, reason)
        super().__init__(f"{file}: {reason}")


def shown_name(path: Path) -> str:
    """content/en/strings/ui.toml rather than a long absolute path (or just the name)."""
    try:
        return str(Path("content") / path.resolve().relative_to(content_dir()))
    except (ValueError, FileNotFoundError, OSError):
        return path.name


def read_toml(path: Path, name: str | None = None) -> dict[str, Any]:
    """A content TOML file, or ContentError naming it (`name`, default: shown_name)."""
    name = name or shown_name(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ContentError(name, f"file not found in {path.parent}") from None
    except OSError as exc:
        raise ContentError(name, f"cannot be read ({exc.strerror or exc})") from None
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ContentError(name, f"is not UTF-8 (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ContentError(name, f"is not valid TOML: {exc}") from None


def read_page(path: Path) -> str | None:
    """A guide page's text; None when there is no such page; ContentError when it is damaged."""
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ContentError(shown_name(path), f"cannot be read ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise ContentError(shown_name(path), f"is not UTF-8 (byte {exc.start})") from None


def check_installation() -> list[ContentError]:
    """Every content file that cannot be read or parsed (TOML) or decoded (guide pages)."""
    try:
        root = content_dir()
    except FileNotFoundError as exc:
        return [ContentError("content/", str(exc))]
    problems = []
    for path in sorted(root.rglob("*.toml")):
        try:
            read_toml(path)
        except ContentError as exc:
            problems.append(exc)
    for path in sorted(root.rglob("*.md")):
        try:
            read_page(path)
        except ContentError as exc:
            problems.append(exc)
    return problems
