"""The class roster as CSV (`gpu-wizard report summarize --csv`): every column, safe to open in
a spreadsheet."""

from __future__ import annotations

import codecs
import csv
import io
from typing import Any

from wizard.report.roster import SUMMARY_COLUMNS


def render_csv(rows: list[dict[str, str]], bom: bool = False) -> str:
    """One header row (SUMMARY_COLUMNS, untranslated), then one row per report.

    `bom` starts the text with U+FEFF: Excel reads a CSV without it in the machine's legacy
    code page, so a student's name in Chinese would arrive garbled.
    """
    buffer = io.StringIO()
    if bom:
        buffer.write("\ufeff")
    writer = csv.DictWriter(buffer, fieldnames=SUMMARY_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows({key: _csv_text(value) for key, value in row.items()} for row in rows)
    return buffer.getvalue()


def wants_bom(stream: Any) -> bool:
    """A byte-order mark for CSV going to a file or pipe in UTF-8, the way Excel recognises UTF-8.

    Not on a terminal (it would show as a stray character), and not in another encoding: a
    Chinese Windows redirect writes GBK, which is what Excel there assumes without a mark, and
    U+FEFF has no GBK form at all.
    """
    try:
        if stream.isatty():
            return False
        return codecs.lookup(getattr(stream, "encoding", None) or "ascii").name == "utf-8"
    except (AttributeError, LookupError, OSError, ValueError):
        return False


def _csv_text(value: Any) -> Any:
    """A spreadsheet must show a student's text, not run it as a formula (CSV injection)."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value
