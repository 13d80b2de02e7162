"""Text as the user reads it, in one place: status marks that survive LANG=C and non-UTF-8
consoles, numbers and sizes as people say them, a title inside a sentence, and the rules for
breaking lines in Chinese and English (used by the commands' output and, through
screens.markdown_lite and screens.window, by every screen).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import sys
import unicodedata
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

MARKS = {"ok": "✓", "info": "•", "warning": "⚠", "error": "✗", "pending": "…"}
ASCII_MARKS = {"ok": "[ok]", "info": "[i]", "warning": "[!]", "error": "[x]", "pending": "[..]"}


def can_encode(text: str, stream=None) -> bool:
    encoding = getattr(stream or sys.stdout, "encoding", None) or "ascii"
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


# What LANG=C terminals cannot show, in our own texts, and a plain stand-in.
_ASCII = str.maketrans({"—": "-", "–": "-", "·": "-", "…": "...", "→": "->", "←": "<-",
                        "↑": "Up", "↓": "Down", "×": "x", "“": '"', "”": '"', "‘": "'",
                        "’": "'", "•": "*", "≥": ">=", "≤": "<=", "≈": "~", "█": "#",
                        "\u00a0": " "})


# ------------------------------------------------------------------------- numbers ---

def gb_text(value: float) -> str:
    """A size in GB as people say it: one decimal below 10 (3.9, 0.5), none above (12, 141) —
    a driver's 11.99 is a 12 GB card."""
    return f"{round(value):d}" if value >= 10 else f"{round(value, 1):g}"


def count_text(value: float) -> str:
    """A count or a measured figure: as it is below 100 (8, 2.5), grouped above (1,234)."""
    return f"{value:g}" if value < 100 else f"{value:,.0f}"


# ----------------------------------------------------------------------- sentences ---

def mid_sentence(title: str) -> str:
    """A finding's title placed after a colon inside a sentence: "This PyTorch has…" becomes
    "this PyTorch has…"; names ("PyTorch", "NVIDIA", "GeForce …") keep their capitals."""
    first, _, rest = title.partition(" ")
    if first[:1].isupper() and first[1:].islower() and first.isalpha() and first not in _NAMES:
        return first.lower() + (" " + rest if rest else "")
    return title


# Capitalised words that are names, not sentence starts.
_NAMES = frozenset({"Docker", "Windows", "Linux", "Ubuntu", "Fedora", "Apple", "Intel", "Kaggle",
                    "Colab", "Python", "Mac", "WSL"})


# ------------------------------------------------------------------- breaking lines ---

NO_BREAK = "\u00a0"   # in the strings: the words on either side stay on one line

# Chinese (and Japanese and Korean) characters and punctuation: two cells wide, and a line may
# break between any two of them.
CJK_RANGES = "\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f"


@cache
def _cjk() -> re.Pattern[str]:
    # Compiled on first use, like _units: the CJK ranges take milliseconds to compile.
    return re.compile(f"[{CJK_RANGES}]")


def is_cjk(char: str) -> bool:
    """`char` (one character, or the first of a string) is Chinese, Japanese or Korean."""
    return _cjk().match(char) is not None


# Punctuation that never starts a line (it stays with what it closes), and brackets that never
# end one (they go to the line they open).
NO_LINE_START = "，。、；：！？）」』》〉】”’%,.;:!?)]"
NO_LINE_END = "（「『《〈【“‘("
# Line-break units: one Chinese character (with any closing punctuation after it, and any
# opening bracket before it), or a Latin word with its trailing spaces.
@cache
def _units() -> re.Pattern[str]:
    # Compiled on first use: the CJK classes cost milliseconds that `check --json` never needs.
    return re.compile(
        rf"[{re.escape(NO_LINE_END)}]*(?![{re.escape(NO_LINE_END)}])"
        rf"[{CJK_RANGES}][{re.escape(NO_LINE_START)}]*\s*"
        rf"|[{re.escape(NO_LINE_END)}]*[^\s{CJK_RANGES}]+[{re.escape(NO_LINE_START)}]*\s*"
        rf"|\s+"
    )


def break_units(plain: str) -> list[str]:
    """`plain` cut where a line may break (see _units)."""
    return _units().findall(plain)


def break_offsets(plain: str, width: int, measure: Callable[[str], int] | None = None) -> list[int]:
    """Where to break `plain` so that no line is wider than `width` cells (`measure` counts
    them; the screens pass Rich's own, which Textual lays out with)."""
    measure = measure or cell_width
    breaks: list[int] = []
    used = 0
    pos = 0
    for unit in _units().findall(plain):
        length = measure(unit.rstrip())
        if used and used + length > width:
            breaks.append(pos)
            used = 0
        while length > width:             # a word longer than a line: fold it
            cut, cells = pos, 0
            for ch in unit:
                if cells + measure(ch) > width:
                    break
                cells += measure(ch)
                cut += 1
            breaks.append(cut)
            unit = unit[cut - pos:]
            pos = cut
            length = measure(unit.rstrip())
        used += measure(unit)
        pos += len(unit)
    return [b for b in breaks if 0 < b < len(plain)]


def asciify(text: str) -> str:
    return text.translate(_ASCII)


def ascii_terminal(env: Mapping[str, str] | None = None) -> bool:
    """True when the locale says the terminal may not show ✓ ⚠ ✗ and box lines (LANG=C).

    Python coerces a C locale to UTF-8 for itself (PEP 538), which says nothing about the
    terminal, so the user's own LC_ALL / LANG decide, not sys.stdout.encoding.
    """
    env = os.environ if env is None else env
    if sys.platform == "win32":
        return False
    for var in ("LC_ALL", "LANG"):
        value = env.get(var, "")
        if value:
            return "utf" not in value.lower().replace("-", "")
    return "utf" not in env.get("LC_CTYPE", "").lower().replace("-", "")


def _to_terminal(stream) -> bool:
    try:
        return (stream or sys.stdout).isatty()
    except (AttributeError, ValueError, OSError):
        return False


def mark(severity: str, stream=None) -> str:
    symbol = MARKS.get(severity, "?")
    if not can_encode(symbol, stream) or (_to_terminal(stream) and ascii_terminal()):
        return ASCII_MARKS.get(severity, "?")
    return symbol


# C0/C1 control characters except newline and tab: a hostile report must not drive the
# reader's terminal (escape sequences can retitle, clear, rewrite or fill the clipboard of what a
# TA sees). Bidi marks, overrides and isolates reorder what is shown ("evil" that reads "live"),
# and zero-width characters hide text: shown as U+FFFD, visibly. The zero-width non-joiner and
# joiner (U+200C, U+200D) stay: Persian and Indic words and emoji sequences are spelled with
# them, so a folder name keeps its look, and a command shown with one still runs when copied.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b\u200e\u200f\u202a-\u202e"
                      "\u2060-\u2064\u2066-\u2069\ufeff]")


def strip_controls(text: str) -> str:
    # Windows line ends are line ends, not a stray carriage return to flag.
    return _CONTROL.sub("\ufffd", text.replace("\r\n", "\n"))


def shown(text: str) -> str:
    """The one form of outside text that is drawn or printed: valid UTF-8 (a byte of a name that
    is not UTF-8 as U+FFFD, as a terminal could not show it anyway) with strip_controls applied.
    For display only: a value that is used (USED_AS_IS) keeps its own form."""
    return _clean_one(text)


def near_path(path: str, here: str | None = None) -> str:
    """A path inside the current folder (`here`) as the user would type it there ("./.venv"):
    shorter to read, and it names no folder of theirs in a report shared later. A path that is
    not absolute (a name a report kept) is left as it is."""
    if not os.path.isabs(path):
        return path
    try:
        relative = os.path.relpath(path, here if here is not None else os.getcwd())
    except (OSError, ValueError):  # no current folder; another drive on Windows
        return path
    return path if relative.startswith(os.pardir) or os.path.isabs(relative) else os.path.join(os.curdir, relative)


def has_hidden(text: str) -> bool:
    """`text` holds what strip_controls would replace, or a lone surrogate (a byte of an OS name
    that was not UTF-8): drawn as it is, a terminal would not show it as it is."""
    return _CONTROL.search(text) is not None or any("\ud800" <= ch <= "\udfff" for ch in text)


def clean_strings(obj: Any) -> Any:
    """Every string in `obj` (keys too; through records and containers) made valid UTF-8
    with strip_controls applied: done where text from outside arrives (a file, a probe, a child
    process), so nothing after it can pass an escape sequence on."""
    return _each_string(obj, _clean_one)


# Values that are used as they are, not only shown: an interpreter's path is run and handed to
# pip, and a path with a byte that is not UTF-8 or a control character (a POSIX file name may
# hold both) must still name that interpreter. (record, field) pairs; whoever draws one cleans
# the copy it draws (shown: through safe in the commands, screens.widgets.shown_text in the
# wizard), and commands quote it (wizard.pytorch.choose.shell_quote). The report and `check --json`
# clean all of it: saved and printed data is text.
USED_AS_IS = frozenset({
    ("TorchInfo", "interpreter"), ("TorchInfo", "asked"),
    ("OtherPython", "interpreter"), ("NotRunPython", "interpreter"),
})


def clean_arrived(obj: Any) -> Any:
    """clean_strings for a probe's result as it arrives: everything but the USED_AS_IS values."""
    return _each_string(obj, _clean_one, USED_AS_IS)


def valid_unicode(obj: Any) -> Any:
    """`obj` with every string made encodable as UTF-8, through records and containers.

    Python hands OS bytes that are not UTF-8 (a host name under LANG=C, a garbled sysfs file)
    to us as lone surrogates; written to a report or a terminal they raise. The original bytes
    are recovered and decoded leniently (U+FFFD for what is not text).
    """
    return _each_string(obj, _valid_one)


def json_text(obj: Any) -> str:
    """`obj` as JSON to print, values kept: a control, bidi or zero-width character (which
    json.dumps passes on raw, but for C0) written as its \\uXXXX escape, so a program reading it
    gets the exact value and a terminal gets none of them. A byte that is not UTF-8 becomes
    U+FFFD: JSON text is Unicode."""
    text = json.dumps(valid_unicode(obj), ensure_ascii=False, indent=2)
    # Outside its strings JSON holds only ASCII punctuation, digits, spaces and newlines.
    return _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _clean_one(text: str) -> str:
    text = _valid_one(text)
    return strip_controls(text) if _CONTROL.search(text) else text


def _valid_one(text: str) -> str:
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        raw = text.encode("utf-8", "surrogateescape") if _only_escapes(text) else \
            text.encode("utf-8", "replace")
        return raw.decode("utf-8", "replace")


def _each_string(obj: Any, mend: Callable[[str], str], keep: frozenset[tuple[str, str]] = frozenset()) -> Any:
    """`obj` with `mend` applied to every string in it: dict keys too, through dataclasses,
    named tuples, dicts, lists and tuples, each rebuilt as its own type; a record's fields
    named in `keep` ((record, field) pairs) are left as they are."""
    if isinstance(obj, str):
        return mend(obj)
    if hasattr(type(obj), "__dataclass_fields__"):   # a dataclass instance
        name = type(obj).__name__
        return dataclasses.replace(obj, **{f.name: _each_string(getattr(obj, f.name), mend, keep)
                                           for f in dataclasses.fields(obj) if (name, f.name) not in keep})
    if isinstance(obj, dict):
        return {_each_string(k, mend, keep): _each_string(v, mend, keep) for k, v in obj.items()}
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a named tuple
        return type(obj)(*(_each_string(v, mend, keep) for v in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_each_string(v, mend, keep) for v in obj)
    return obj


def _only_escapes(text: str) -> bool:
    # surrogateescape can only restore U+DC80..U+DCFF; any other lone surrogate is replaced.
    return all(not 0xD800 <= ord(ch) <= 0xDFFF or 0xDC80 <= ord(ch) <= 0xDCFF for ch in text)


def safe(text: str, stream=None) -> str:
    """Text the stream can print: no control characters; what it cannot encode becomes '?'."""
    text = shown(text)
    if _to_terminal(stream) and ascii_terminal():
        text = asciify(text)  # a file or pipe keeps the text as it is
    encoding = getattr(stream or sys.stdout, "encoding", None) or "ascii"
    try:
        return text.encode(encoding, errors="replace").decode(encoding, errors="replace")
    except LookupError:
        return text.encode("ascii", errors="replace").decode("ascii")


_NO_LINE_START = set(NO_LINE_START)
_NO_LINE_END = set(NO_LINE_END)
_GLUE = "\u2060"  # word joiner: never in our texts, so it can stand in for a kept space
_COMMAND = re.compile(
    r"(?:sudo |uv )?(?:pip3?|python3? -m pip|uv pip|apt(?:-get)?|dnf|ubuntu-drivers|wsl|nvidia-smi)"
    r" [^\s，。；]+(?: (?:--?[\w-]+(?:=\S+)?|[^\s，。；]*[=/:.][^\s，。；]*|torch\w*|install|all))*"
)


def cell_width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def wrap(text: str, width: int, indent: int = 0, hang: int = 0) -> list[str]:
    """Wrap to terminal cells: Chinese characters take two cells and may break anywhere."""
    # A command split over two lines gets pasted half: keep each one whole (on a line of its own
    # when it does not fit), even past the width.
    text = _COMMAND.sub(lambda m: m.group(0).replace(" ", _GLUE), text)
    tokens = re.findall(rf"[{CJK_RANGES}]|\S+?(?=[{CJK_RANGES}])|\S+|\s+", text)
    lines: list[str] = []
    current = " " * indent
    limit = width
    for token in tokens:
        if token.isspace():
            if current.strip():
                current += " "
            continue
        closing = token in _NO_LINE_START  # Chinese typography: no line starts with "。" or "）"
        if cell_width(current) + cell_width(token) > limit and current.strip() and not closing:
            kept, carry = current.rstrip(), ""
            if kept[-1] in _NO_LINE_END and len(kept.strip()) > 1:
                kept, carry = kept[:-1], kept[-1]
            lines.append(kept.rstrip())
            current = " " * (indent + hang) + carry
        current += token
    if current.strip():
        lines.append(current.rstrip())
    return [line.replace(_GLUE, " ") for line in lines] or [""]


def wrap_glued(text: str, width: int, measure: Callable[[str], int] | None = None) -> list[str]:
    """Lines no wider than `width` cells (Chinese between characters, Latin between words),
    never breaking at a no-break space; those become plain spaces."""
    lines: list[str] = []
    for part in text.split("\n"):
        rest = part
        while True:
            breaks = break_offsets(rest, width, measure)
            if not breaks:
                lines.append(rest.rstrip())
                break
            cut = _before_glued(rest, breaks[0]) or breaks[0]  # glued past a whole line: cut
            lines.append(rest[:cut].rstrip())
            rest = rest[cut:].lstrip()
    return [line.replace(NO_BREAK, " ") for line in lines]


def _before_glued(text: str, cut: int) -> int:
    """Move a line break at `cut` back before the words a no-break space joins to what follows."""
    while cut > 0 and text[cut - 1] == NO_BREAK:
        start = cut - 1                       # the no-break space; the word before it goes too
        if start > 0 and is_cjk(text[start - 1]):
            start -= 1                        # a Chinese word: one character
        else:
            while start > 0 and not text[start - 1].isspace() and not is_cjk(text[start - 1]):
                start -= 1
        cut = start
    return cut
