"""Plain-terminal output: status marks that survive LANG=C and non-UTF-8 consoles."""

from __future__ import annotations

import re
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


# C0/C1 control characters except newline and tab: a hostile report must not drive the
# reader's terminal (escape sequences can retitle, clear or rewrite what a TA sees).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_controls(text: str) -> str:
    return _CONTROL.sub("\ufffd", text)


def safe(text: str, stream=None) -> str:
    """Text the stream can print: no control characters; what it cannot encode becomes '?'."""
    text = strip_controls(text)
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
