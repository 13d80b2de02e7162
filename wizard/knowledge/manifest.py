"""content/SHA256SUMS: the sha256 of every content file, as built and tested.

Reading every data file at start-up to find a damaged installation costs more than the
`check` command's own work (tomllib is pure Python). A file whose bytes hash to what the
build recorded is the file the tests passed with, so only files that differ need parsing.

The format is `sha256sum`'s (`<hex>  <path>` per line, paths relative to content/), so
`cd content && sha256sum -c SHA256SUMS` checks it by hand too. The build (hatch_build.py)
rewrites it when content/ changed; `python -m wizard.knowledge.manifest` does the same in a
checkout, and tests/test_content_manifest.py fails when the committed copy is stale.

Standard library only, and no `wizard` imports: the build hook loads this file by path,
before the package is installed.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

MANIFEST_NAME = "SHA256SUMS"


def content_files(root: Path) -> list[Path]:
    """Every file the manifest covers: all of content/ but the manifest itself."""
    return sorted(p for p in root.rglob("*")
                  if p.is_file() and p.name != MANIFEST_NAME and "__pycache__" not in p.parts)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def manifest_text(root: Path) -> str:
    lines = [f"{digest(path.read_bytes())}  {path.relative_to(root).as_posix()}\n"
             for path in content_files(root)]
    return "".join(lines)


def parse_manifest(text: str) -> dict[str, str] | None:
    """relative path → sha256 hex; None when the text is not a manifest (then nothing is trusted)."""
    entries: dict[str, str] = {}
    for line in text.splitlines():
        hexdigest, sep, rel = line.partition("  ")
        if not sep or len(hexdigest) != 64 or not rel or rel.startswith("/") or ".." in rel.split("/"):
            return None
        entries[rel] = hexdigest.lower()
    return entries or None


def write_manifest(root: Path) -> bool:
    """Rewrite root/SHA256SUMS when it does not match root's files; True when it was rewritten."""
    text = manifest_text(root)
    path = root / MANIFEST_NAME
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    # Bytes, not text mode: the same file on Windows, where text mode would write CRLF.
    path.write_bytes(text.encode("utf-8"))
    return True


def main() -> int:
    root = Path(__file__).resolve().parents[2] / "content"
    changed = write_manifest(root)
    print(f"{root / MANIFEST_NAME}: {'rewritten' if changed else 'already up to date'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
