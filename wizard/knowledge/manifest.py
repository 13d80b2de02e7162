"""content/CHECKSUMS: the CRC-32 and size of every content file, as built and tested.

Reading every data file at start-up to find a damaged installation costs more than the
`check` command's own work (tomllib is pure Python). A file whose bytes match what the
build recorded is the file the tests passed with, so only files that differ need parsing.

CRC-32 (zlib, which Python has loaded anyway), not SHA-256: this finds damage (a half-copied
wheel, a hand edit), which a CRC is made for; it guards against no attacker, who could as well
edit the code. hashlib would load OpenSSL into the wizard, 0.6 MB of its peak memory (issue 25).

One line per file, `<crc32 hex> <size>  <path>`, paths relative to content/. The build
(hatch_build.py) rewrites it when content/ changed; `python -m wizard.knowledge.manifest` does
the same in a checkout, and tests/test_content_manifest.py fails when the committed copy is stale.

Standard library only, and no `wizard` imports: the build hook loads this file by path,
before the package is installed.
"""

from __future__ import annotations

import sys
import zlib
from pathlib import Path

MANIFEST_NAME = "CHECKSUMS"


def content_files(root: Path) -> list[Path]:
    """Every file the manifest covers: all of content/ but the manifest itself."""
    return sorted(p for p in root.rglob("*")
                  if p.is_file() and p.name != MANIFEST_NAME and "__pycache__" not in p.parts)


def digest(data: bytes) -> str:
    """What the manifest says of a file's bytes: "<crc32 hex> <size>"."""
    return f"{zlib.crc32(data):08x} {len(data)}"


def manifest_text(root: Path) -> str:
    lines = [f"{digest(path.read_bytes())}  {path.relative_to(root).as_posix()}\n"
             for path in content_files(root)]
    return "".join(lines)


_HEX = frozenset("0123456789abcdef")


def parse_manifest(text: str) -> dict[str, str] | None:
    """relative path → digest; None when the text is not a manifest (then nothing is trusted)."""
    entries: dict[str, str] = {}
    for line in text.splitlines():
        summary, sep, rel = line.partition("  ")
        crc, space, size = summary.partition(" ")
        if (not sep or not space or len(crc) != 8 or not _HEX.issuperset(crc.lower())
                or not size.isascii() or not size.isdigit() or len(size) > 15
                or not rel or rel.startswith("/") or ".." in rel.split("/")):
            return None
        entries[rel] = f"{crc.lower()} {int(size)}"
    return entries or None


def write_manifest(root: Path) -> bool:
    """Rewrite root/CHECKSUMS when it does not match root's files; True when it was rewritten."""
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
