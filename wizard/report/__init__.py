"""The shareable report (format version 1, described in README.md's "The report format"):
build, redact, save, load, check, and a class's reports together.

A report travels from a student to a TA, so by default it carries nothing that identifies a
person or a machine; it is written atomically and never replaces an existing file silently,
and reading one treats the file as hostile (size cap, encoding, TOML errors with the line).

    fields.py     the format's fixed names (schema, verdicts)
    errors.py     the errors a user can act on, with their messages
    building.py   a report from what the user saw
    redaction.py  nothing that identifies a person or a machine
    saving.py     a free name, an atomic write, never a silent overwrite
    reading.py    reading a hostile file; load = read + validate
    validate.py   every problem with a report, each with its key path
    show.py       one report as terminal text (`report show`, the headless run's advice)
    batch.py      many reports read at once, on every core (`report summarize`)
    roster.py     one row per report for a class, and the groups by problem
    roster_table.py, roster_csv.py, roster_html.py
                  the roster as a terminal table, as CSV or as one web page

Import from the module that holds a name: a command that only reads reports (`report
summarize` over a class) then loads none of the code that builds, redacts and saves them.
"""
