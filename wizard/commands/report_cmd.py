"""`gpu-wizard report show FILE | validate FILE | summarize FILE... [--csv]`: saved reports.

A TA's tools: open what a student saw, check a file before trusting it, and see a whole
class at a glance. Exit codes are part of the public CLI (README.md, "Exit status").
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

HELP = "open, check or summarize saved reports (a class roster)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="report_action", metavar="ACTION", required=True)
    show = actions.add_parser("show", help="a saved report, readable in the terminal",
                              description="Show a saved report, readable in the terminal.")
    show.add_argument("file", metavar="FILE")
    validate = actions.add_parser("validate", help="check a report against the schema",
                                  description="Check a report against the schema; names every problem.")
    validate.add_argument("file", metavar="FILE")
    summarize = actions.add_parser(
        "summarize", help="one row per report: who is ready, GPU, torch, verdict",
        description="One row per report (a class roster): who is ready, GPU, torch status, verdict.")
    summarize.add_argument("files", metavar="FILE", nargs="+")
    summarize.add_argument("--csv", action="store_true", help="print comma-separated values")
    for sub in (show, validate, summarize):
        sub.add_argument("--lang", choices=("en", "zh"),
                         help="language of the labels (default: the report's, or the locale's)")


def run(args: argparse.Namespace) -> int:
    action = {"show": _show, "validate": _validate, "summarize": _summarize}[args.report_action]
    return action(args)


# ------------------------------------------------------------------------------ actions ---

def _show(args: argparse.Namespace) -> int:
    from wizard.report import ReportError, load_report
    from wizard.report.show import render_report

    knowledge = _knowledge()
    try:
        report = load_report(args.file, knowledge)
    except ReportError as exc:
        lang = getattr(args, "lang", None) or _locale_lang()
        _err(exc.message(lang))
        for problem in getattr(exc, "problems", [])[:20]:
            _err(f"  - {problem}")
        return 2
    lang = getattr(args, "lang", None) or report["language"]
    _out(render_report(report, lang, knowledge))
    return 0


def _validate(args: argparse.Namespace) -> int:
    from wizard.i18n import t
    from wizard.report import SCHEMA, ReportError, read_report, validate_report

    lang = getattr(args, "lang", None) or _locale_lang()
    try:
        data = read_report(args.file)
    except ReportError as exc:
        _err(exc.message(lang))
        return 2
    problems = validate_report(data, _knowledge(answers_only=True))
    if not problems:
        _out(t("report.validate.valid", lang, path=args.file, schema=SCHEMA) + "\n")
        return 0
    lines = [t("report.validate.invalid", lang, path=args.file, count=len(problems))]
    lines += [f"  - {p}" for p in problems[:MAX_PROBLEMS_SHOWN]]
    if len(problems) > MAX_PROBLEMS_SHOWN:  # a hostile file can have thousands
        lines.append("  " + t("report.validate.more", lang, count=len(problems) - MAX_PROBLEMS_SHOWN))
    _out("\n".join(lines) + "\n")
    return 1


MAX_PROBLEMS_SHOWN = 40


def _summarize(args: argparse.Namespace) -> int:
    from wizard.report.batch import load_all

    lang = getattr(args, "lang", None) or _locale_lang()
    # The answers' rules (a roster shows no prices and no advice) are read once the workers
    # that read files have started: they need none of it.
    every = list(load_all(args.files, lang=lang, knowledge_from=lambda: _knowledge(answers_only=True)))
    from wizard.i18n import t
    from wizard.report.roster import place
    from wizard.report.roster_csv import render_csv, wants_bom
    from wizard.report.roster_table import render_table

    rows: list[dict[str, str]] = []
    seen: dict[str, str] = {}   # the reports so far: a file sent twice is one student
    failed = False
    for loaded in every:
        if loaded.skipped:
            # The student stays on the roster (and in the CSV a TA opens), marked; why goes
            # to stderr.
            failed = True
            _err(t("report.summarize.skipped", lang, path=loaded.name, reason=loaded.skipped))
            rows.append(loaded.row)
        else:
            rows.append(place(loaded.row, loaded.identity, seen))
    if args.csv:
        _out(render_csv(rows, bom=wants_bom(sys.stdout)))
    else:
        _out(render_table(rows, lang))
    return 2 if failed else 0



# ------------------------------------------------------------------------------ helpers ---

def _knowledge(answers_only: bool = False) -> Any:
    """The content data, or None when it is broken: reading reports must still work then.
    `answers_only`: just the goals and currencies that checking [answers] needs."""
    try:
        if answers_only:
            from wizard.knowledge.goals import load_answer_rules

            return load_answer_rules()
        from wizard.knowledge import load_knowledge

        return load_knowledge()
    except Exception:  # a damaged install must not stop a TA from reading a report
        return None


def _locale_lang() -> str:
    from wizard.i18n import language_from_env

    return language_from_env()


def _out(text: str) -> None:
    from wizard.textout import safe

    # Our own byte-order mark for Excel survives; one from inside a report never does.
    mark = "\ufeff" if text.startswith("\ufeff") else ""
    sys.stdout.write(mark + safe(text[len(mark):]))


def _err(text: str) -> None:
    from wizard.textout import safe

    sys.stderr.write(safe(text, sys.stderr) + "\n")
