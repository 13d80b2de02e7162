"""Where content/ lives, and reading it: one reader for every data and strings file.

A damaged installation (a half-copied wheel, a hand-edited file) must end in one sentence that
names the file, never in a traceback; `ContentError` carries that sentence. `check_installation`
looks at every file once so the wizard can find damage before the user reaches the step that
needs the file.

Every command imports this module, and every command but `--help` reads TOML and checks the
manifest: the TOML parser loads with it.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import Any

try:
    import tomllib  # novermin (3.9 and 3.10 get tomli below)
except ModuleNotFoundError:  # Python 3.9 and 3.10: the same parser, from PyPI
    import tomli as tomllib  # type: ignore[no-redef]

from wizard.knowledge.damaged import ContentError
from wizard.knowledge.manifest import MANIFEST_NAME, digest, parse_manifest


@cache
def content_dir() -> Path:
    package = Path(__file__).resolve().parent.parent   # wizard/
    for candidate in (package / "content", package.parent / "content"):
        if (candidate / "en").is_dir():
            return candidate
    raise FileNotFoundError(
        "gpu-wizard's content/ folder is missing from this installation; reinstall gpu-wizard"
    )




def shown_name(path: Path) -> str:
    """content/en/strings/ui.toml rather than a long absolute path (or just the name)."""
    try:
        return os.path.join("content", path.resolve().relative_to(content_dir()))
    except (ValueError, FileNotFoundError, OSError):
        return path.name


def read_toml(path: Path, name: str | None = None) -> dict[str, Any]:
    """A content TOML file, or ContentError naming it (`name`, default: shown_name)."""
    name = name or shown_name(path)
    return _parse_toml(_read_bytes(path, name), name)


def _read_bytes(path: Path, name: str) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise ContentError(name, f"file not found in {path.parent}") from None
    except OSError as exc:
        raise ContentError(name, f"cannot be read ({exc.strerror or exc})") from None


def _parse_toml(raw: bytes, name: str) -> dict[str, Any]:
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
    """Every content file that is missing or cannot be read, parsed (TOML) or decoded (pages).

    Files whose bytes match content/CHECKSUMS (written at build time) are the files the
    tests passed with: only the others are parsed. Without a usable manifest, every file is.
    """
    try:
        root = content_dir()
    except FileNotFoundError as exc:
        return [ContentError("content/", str(exc))]
    try:
        expected = parse_manifest((root / MANIFEST_NAME).read_bytes().decode("utf-8")) or {}
    except (OSError, UnicodeDecodeError):
        expected = {}
    problems = []
    for rel, hexdigest in expected.items():
        path = root / rel
        name = os.path.join("content", *rel.split("/"))  # shown_name's answer, without resolving
        try:
            raw = _read_bytes(path, name)
            if digest(raw) != hexdigest:
                _check_bytes(path, raw, name)
        except ContentError as exc:
            problems.append(exc)
    # Files the manifest does not list (added since it was written): read as a whole.
    for path in _unlisted(root, expected):
        name = shown_name(path)
        try:
            _check_bytes(path, _read_bytes(path, name), name)
        except ContentError as exc:
            problems.append(exc)
    return problems


def _unlisted(root: Path, listed: dict[str, str]) -> list[Path]:
    """The pages and data files under `root` that `listed` does not name, in path order.
    os.walk, not Path.rglob: this runs on every start, and rglob took longer than the hashing."""
    found = []
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        rel = os.path.relpath(folder, root).replace(os.sep, "/")
        for name in sorted(names):
            if name.endswith((".toml", ".md")) and (name if rel == "." else f"{rel}/{name}") not in listed:
                found.append(root / rel / name)
    return found


def _check_bytes(path: Path, raw: bytes, name: str) -> None:
    """ContentError when a file's bytes are not what its kind needs (TOML, UTF-8 page)."""
    if path.suffix == ".toml":
        _parse_toml(raw, name)
    elif path.suffix == ".md":
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ContentError(name, f"is not UTF-8 (byte {exc.start})") from None
