"""Plain-terminal output: status marks that survive LANG=C and non-UTF-8 consoles."""

from __future__ import annotations

import sys

MARKS = {"ok": "✓", "info": "•", "warning": "⚠", "error": "✗", "pending": "…"}
ASCII_MARKS = {"ok": "[ok]", "info": "[i]", "warning": "[!]", "error": "[x]", "pending": "[..]"}


def can_encode(text: str, stream=None) -> bool:
    encoding = getattr(stream or sys.stdout, "encoding", None) or "ascii"
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def mark(severity: str, stream=None) -> str:
    symbol = MARKS.get(severity, "?")
    return symbol if can_encode(symbol, stream) else ASCII_MARKS.get(severity, "?")


def safe(text: str, stream=None) -> str:
    """Text the stream can print: characters it cannot encode become '?' instead of crashing."""
    encoding = getattr(stream or sys.stdout, "encoding", None) or "ascii"
    try:
        return text.encode(encoding, errors="replace").decode(encoding, errors="replace")
    except LookupError:
        return text.encode("ascii", errors="replace").decode("ascii")


def cell_width(text: str) -> int:
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def wrap(text: str, width: int, indent: int = 0, hang: int = 0) -> list[str]:
    """Wrap to terminal cells: Chinese characters take two cells and may break anywhere."""
    import re

    tokens = re.findall(r"[\u2e80-\u9fff\uff00-\uffef\u3000-\u303f]|\S+?(?=[\u2e80-\u9fff\uff00-\uffef\u3000-\u303f])|\S+|\s+", text)
    lines: list[str] = []
    current = " " * indent
    limit = width
    for token in tokens:
        if token.isspace():
            if current.strip():
                current += " "
            continue
        if cell_width(current) + cell_width(token) > limit and current.strip():
            lines.append(current.rstrip())
            current = " " * (indent + hang)
        current += token
    if current.strip():
        lines.append(current.rstrip())
    return lines or [""]
