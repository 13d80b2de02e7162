"""The shareable report (format version 1, described in README.md's "The report format"):
build, redact, save, load, check.

A report travels from a student to a TA, so by default it carries nothing that identifies a
person or a machine; it is written atomically and never replaces an existing file silently,
and reading one treats the file as hostile (size cap, encoding, TOML errors with the line).

    schema.py     the format's fixed names (schema, verdicts)
    errors.py     the errors a user can act on, with their messages
    building.py   a report from what the user saw
    redaction.py  nothing that identifies a person or a machine
    saving.py     a free name, an atomic write, never a silent overwrite
    reading.py    reading a hostile file; load = read + validate
    validate.py   every problem with a report, each with its key path
    roster.py     one row per report for a class (`report summarize`)
    show.py       one report as terminal text (`report show`, the headless run's advice)
    roster_table.py, roster_csv.py, roster_html.py
                  the roster as a terminal table, as CSV or as one web page

`from wizard.report import X` works for every name below. Each is imported from its module on
first use, so a command that only reads reports (`report summarize` over a class) does not pay
for the modules that build, redact and save them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wizard.lazy import lazy_exports

_HOME = {
    "SCHEMA": "schema", "SCHEMA_PREFIX": "schema", "VERDICTS": "schema",
    "ReportError": "errors", "ReportExistsError": "errors", "ReportSaveError": "errors",
    "ReportReadError": "errors", "ReportInvalidError": "errors",
    "build_report": "building",
    "local_identifiers": "redaction", "redact_report": "redaction", "interpreter_name": "redaction",
    "SAVED": "saving", "default_report_path": "saving", "current_folder": "saving",
    "check_report_target": "saving", "next_free_path": "saving", "dumps_report": "saving",
    "save_report": "saving",
    "MAX_REPORT_BYTES": "reading", "read_toml": "reading", "created_text": "reading",
    "read_report": "reading", "load_report": "reading",
    "validate_report": "validate",
    "SUMMARY_COLUMNS": "roster", "TABLE_COLUMNS": "roster", "summarize": "roster",
    "counted": "roster", "unusable_row": "roster",
}
__all__ = sorted(_HOME)


__getattr__, __dir__ = lazy_exports(__name__, _HOME)

if TYPE_CHECKING:  # what type checkers and editors see; at run time __getattr__ does this
    from wizard.report.building import build_report
    from wizard.report.errors import (
        ReportError,
        ReportExistsError,
        ReportInvalidError,
        ReportReadError,
        ReportSaveError,
    )
    from wizard.report.reading import MAX_REPORT_BYTES, created_text, load_report, read_report, read_toml
    from wizard.report.redaction import interpreter_name, local_identifiers, redact_report
    from wizard.report.roster import SUMMARY_COLUMNS, TABLE_COLUMNS, counted, summarize, unusable_row
    from wizard.report.saving import (
        SAVED,
        check_report_target,
        current_folder,
        default_report_path,
        dumps_report,
        next_free_path,
        save_report,
    )
    from wizard.report.schema import SCHEMA, SCHEMA_PREFIX, VERDICTS
    from wizard.report.validate import validate_report
