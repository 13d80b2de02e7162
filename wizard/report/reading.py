"""Reading a report, treating the file as hostile: size cap, encoding, key depth, TOML errors
with the line."""

from __future__ import annotations

import datetime as dt
import operator
import re

try:
    import tomllib  # novermin (3.9 and 3.10 get tomli below)
except ModuleNotFoundError:  # Python 3.9 and 3.10: the same parser, from PyPI
    import tomli as tomllib  # type: ignore[no-redef]
from itertools import compress
from pathlib import Path
from typing import Any

from wizard.bounded_read import FileRefused, read_bytes
from wizard.report.errors import ReportInvalidError, ReportReadError
from wizard.text.output import clean_strings, strip_controls

MAX_REPORT_BYTES = 1_000_000


def read_toml(path: Path | str, max_bytes: int = MAX_REPORT_BYTES) -> dict[str, Any]:
    """A TOML file read defensively: regular file, size cap, UTF-8, syntax error with its line."""
    path = Path(path)
    try:
        # One bounded read: what is checked (a regular file, its size) is what is read, and a
        # FIFO or /dev/zero is refused at once instead of blocking or never ending.
        raw = read_bytes(path, max_bytes)
    except FileRefused as exc:
        raise _refused(path, exc) from None
    except ValueError:  # a NUL in the name: no file can have it
        raise ReportReadError(path, "report.error.not-found") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ReportReadError(path, "report.error.not-utf8", line=line) from None
    text = text.removeprefix("\ufeff")  # Windows Notepad's byte-order mark
    deep = _too_deep(text)
    if deep is not None:
        raise ReportReadError(path, "report.error.key-too-long", line=deep)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ReportReadError(path, "report.error.toml", error=str(exc)) from None
    except RecursionError:
        raise ReportReadError(path, "report.error.toml", error="nested too deeply") from None
    except ValueError:  # a whole number of thousands of digits: Python refuses to convert it
        raise ReportReadError(path, "report.error.toml", error="a number is far too long") from None
    # Only a control character in the file or an escape that can make one (`\u001b`, `\b`)
    # puts one in the data; a file with neither (nearly every report) is returned as parsed.
    # Text decoded as UTF-8 holds no lone surrogates, the other thing clean_strings mends.
    if strip_controls(text) != text or _RISKY_ESCAPE.search(text.replace("\\\\", "")):
        data = clean_strings(data)
    return data


# Any escape but \n, \t and \", once every \\ is gone: a Windows path's "C:\\Users" is no alarm;
# a false one (a backslash in a 'literal string') only costs the full clean.
_RISKY_ESCAPE = re.compile(r'\\[^nt"]')


def created_text(value: Any) -> str | None:
    """When a report was saved, for a reader: in UTC where the time can be moved there, else
    with its own offset named (never a `+08:00` time labelled UTC). None for anything else.

    Written digit by digit: strftime gives year 1 as "1", and moving 0001-01-01 00:00+08:00 to
    UTC falls before year 1 (OverflowError)."""
    if not isinstance(value, dt.datetime):
        return None
    zone = ""
    if value.tzinfo is not None:
        try:
            value, zone = value.astimezone(dt.timezone.utc), " UTC"
        except (OverflowError, ValueError):
            offset = value.utcoffset() or dt.timedelta(0)
            minutes = int(offset.total_seconds()) // 60
            sign = "-" if minutes < 0 else "+"
            zone = f" UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
    return (f"{value.year:04d}-{value.month:02d}-{value.day:02d} "
            f"{value.hour:02d}:{value.minute:02d}{zone}")


# The TOML parser's time grows with the square of a dotted key's length (80 kB of "a.a.a…" takes
# 32 s): such keys are refused before parsing. Ours are at most 4 deep and 40 characters long.
_MAX_KEY_DOTS = 16
_MAX_KEY_CHARS = 200


# A quoted key as "[^"\\]*(?:\\.[^"\\]*)*": the same strings as "(?:[^"\\]|\\.)*", matched
# a run at a time rather than a character at a time (a long string in an array is a line too).
_KEY_PART = r"""(?:[A-Za-z0-9_-]+|"[^"\\]*(?:\\.[^"\\]*)*"|'[^']*')"""
_KEY = re.compile(rf"\s*(\[\[?)?\s*({_KEY_PART}(?:\s*\.\s*{_KEY_PART})*)\s*(=|\]\]?)")


def _too_deep(text: str) -> int | None:
    """The first line whose key is deeper or longer than any report needs, or None.

    Only lines that start with a key (`a.b = …`, `[a.b]`) count: a string in a multi-line
    array is a value, whatever it holds."""
    lines = text.splitlines()
    # A key is part of its line, so only a line longer than the longest key or with more dots
    # than the deepest can hold one over the limits: a few lines in a report, picked out by
    # C-level iterators rather than a Python loop over every line of 200 reports.
    longer = map(_MAX_KEY_CHARS.__lt__, map(len, lines))
    deeper = map(_MAX_KEY_DOTS.__lt__, map(operator.methodcaller("count", "."), lines))
    for index in compress(range(len(lines)), map(operator.or_, longer, deeper)):
        if _plainly_short(lines[index]):
            continue
        match = _KEY.match(lines[index])
        if match is None or (match.group(1) is None) != (match.group(3) == "="):
            continue
        key = match.group(2)
        if key.count(".") > _MAX_KEY_DOTS or len(key) > _MAX_KEY_CHARS:
            return index + 1
    return None


def _plainly_short(line: str) -> bool:
    """True when a glance shows that `line` holds no key over the limits, the two common long
    lines: `detail = "…"` (a bare key, all before the first "=") and `  "…",` in an array (a
    quoted string not followed by ".", "=" or "]", so no key). Otherwise the pattern decides."""
    head, equals, _ = line.partition("=")
    if equals and not any(c in head for c in "\"'[]"):
        return len(head) <= _MAX_KEY_CHARS and head.count(".") <= _MAX_KEY_DOTS
    body = line.lstrip()
    if body[:1] == '"' and "\\" not in line:
        close = body.find('"', 1)
        return close > 0 and body[close + 1:].lstrip()[:1] not in (".", "=", "]")
    return False


# What each kind of refused file is called; the rest are named by the system's own words.
_REFUSED = {"missing": "report.error.not-found", "directory": "report.error.is-dir",
            "fifo": "report.error.fifo", "device": "report.error.device",
            "socket": "report.error.not-regular", "not-regular": "report.error.not-regular",
            "denied": "report.error.denied"}


def _refused(path: Path, exc: FileRefused) -> ReportReadError:
    if exc.kind == "too-big":
        return ReportReadError(path, "report.error.too-big", size=_size(exc.size or 0),
                               limit=_size(exc.limit or 0))
    key = _REFUSED.get(exc.kind)
    if key is None:
        return ReportReadError(path, raw=exc.error or str(exc))
    return ReportReadError(path, key)


def _size(n: int) -> str:
    return f"{n / 1_000_000:.1f} MB" if n >= 100_000 else f"{n / 1000:.0f} kB"


def read_report(path: Path | str) -> dict[str, Any]:
    """The raw TOML of a report; ReportReadError when it cannot be read at all."""
    return read_toml(path, MAX_REPORT_BYTES)


def load_report(path: Path | str, knowledge: Any = None) -> dict[str, Any]:
    """A report that passed validate_report; ReportReadError / ReportInvalidError otherwise."""
    # Not at the top: summarize's readers (wizard.report.batch) are forked with this module
    # loaded and only read; the checker would delay them +12-35 ms (measured 2026-12-04).
    from wizard.report.validate import validate_report

    data = read_report(path)
    problems = validate_report(data, knowledge)
    if problems:
        raise ReportInvalidError(path, problems)
    return data
