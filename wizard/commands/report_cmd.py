"""`gpu-wizard report show FILE | validate FILE... | summarize FILE... [--csv | --html OUT]`:
saved reports.

A TA's tools: open what a student saw, check files before trusting them, and see a whole
class at a glance: who is ready, and what to send the others. Exit codes are part of the
public CLI (README.md, "Exit status").
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from wizard.report.errors import ReportError
from wizard.report.fields import SCHEMA
from wizard.report.reading import load_report, read_report
from wizard.text.i18n import language_from_env, t
from wizard.text.output import safe

HELP = "open, check or summarize saved reports (a class roster)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="report_action", metavar="ACTION", required=True)
    show = actions.add_parser("show", help="a saved report, readable in the terminal",
                              description="Show a saved report, readable in the terminal.")
    show.add_argument("file", metavar="FILE")
    validate = actions.add_parser(
        "validate", help="check reports against the schema",
        description="Check reports against the schema: a line per file, every problem named. "
                    "Exit 0 all valid, 1 any invalid, 2 any unreadable.")
    validate.add_argument("files", metavar="FILE", nargs="+")
    summarize = actions.add_parser(
        "summarize", help="one row per report: who is ready, GPU, torch, verdict; then by problem",
        description="One row per report (a class roster): who is ready, GPU, torch status, verdict; "
                    "then the students grouped by problem, with the fix to send each group.")
    summarize.add_argument("files", metavar="FILE", nargs="+")
    output = summarize.add_mutually_exclusive_group()
    output.add_argument("--csv", action="store_true", help="print comma-separated values")
    output.add_argument("--html", metavar="OUT",
                        help="write the class roster as one self-contained web page to OUT ('-': print it)")
    for sub in (show, validate, summarize):
        sub.add_argument("--lang", choices=("en", "zh"),
                         help="language of the labels (default: the report's, or the locale's)")


def run(args: argparse.Namespace) -> int:
    action = {"show": _show, "validate": _validate, "summarize": _summarize}[args.report_action]
    return action(args)


# ------------------------------------------------------------------------------ actions ---

def _show(args: argparse.Namespace) -> int:
    # `report show` alone: the presentation, the torch sentences and the advice's money, +190 ms
    # on every other report command (measured 2026-12-04).
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
    # Not at the top: `summarize` forks its readers before the checker loads (wizard.report.batch),
    # which at the top would delay them +12-35 ms (measured 2026-12-04).
    from wizard.report.validate import validate_report

    lang = getattr(args, "lang", None) or _locale_lang()
    knowledge = _knowledge(answers_only=True)
    counts = {"valid": 0, "invalid": 0, "unreadable": 0}
    for path in args.files:
        try:
            data = read_report(path)
        except ReportError as exc:
            sys.stdout.flush()   # each file's line in the order of the files, stderr's too
            _err(exc.message(lang))
            counts["unreadable"] += 1
            continue
        problems = validate_report(data, knowledge)
        if not problems:
            _out(t("report.validate.valid", lang, path=path, schema=SCHEMA) + "\n")
            counts["valid"] += 1
            continue
        lines = [t("report.validate.invalid", lang, path=path, count=len(problems))]
        lines += [f"  - {p}" for p in problems[:MAX_PROBLEMS_SHOWN]]
        if len(problems) > MAX_PROBLEMS_SHOWN:  # a hostile file can have thousands
            lines.append("  " + t("report.validate.more", lang, count=len(problems) - MAX_PROBLEMS_SHOWN))
        _out("\n".join(lines) + "\n")
        counts["invalid"] += 1
    if len(args.files) > 1:
        _out(t("report.validate.summary", lang, count=len(args.files), **counts) + "\n")
    return 2 if counts["unreadable"] else 1 if counts["invalid"] else 0


MAX_PROBLEMS_SHOWN = 40


def _summarize(args: argparse.Namespace) -> int:
    # The batch reader (pickle, the forking): +4-5 ms on `--help` and the other report commands
    # at the top (measured 2026-12-04).
    from wizard.report.batch import load_all

    lang = getattr(args, "lang", None) or _locale_lang()
    rules: list[Any] = []

    def answer_rules() -> Any:
        rules.append(_knowledge(answers_only=True))
        return rules[0]

    # The answers' rules (a roster shows no prices and no advice) are read once the workers
    # that read files have started: they need none of it.
    every = list(load_all(args.files, lang=lang, knowledge_from=answer_rules))
    # The roster and its renderers below load after the readers are forked, as the checker does
    # (wizard.report.batch): at the top they would delay them +13-50 ms (measured 2026-12-04).
    from wizard.report.roster import by_problem, place

    rows: list[dict[str, str]] = []
    students = []
    seen: dict[str, Any] = {}   # the reports so far: a file sent twice is one student
    failed = False
    for loaded in every:
        if loaded.skipped:
            # The student stays on the roster (and in the CSV a TA opens), marked; why goes
            # to stderr.
            failed = True
            _err(t("report.summarize.skipped", lang, path=loaded.name, reason=loaded.skipped))
            rows.append(loaded.row)
        else:
            rows.append(place(loaded.row, loaded.identity, seen, loaded.created))
        students.append(loaded.student)
    if args.csv:
        from wizard.report.roster_csv import render_csv, wants_bom  # after the fork: see above

        _out(render_csv(rows, bom=wants_bom(sys.stdout)))
    elif args.html:
        from wizard.report.roster_html import render_html  # after the fork: see above

        goals = {g.id: g.label(lang) for g in getattr(rules[0] if rules else None, "goals", ())}
        page = render_html(rows, students, lang, goals=goals,
                           skipped=[loaded.skipped for loaded in every])
        if args.html == "-":
            # UTF-8 whatever the terminal's encoding: the page says it is (its meta charset).
            # Report text arrives without control characters (wizard.report.reading), and the
            # page escapes it: nothing in it can drive a terminal.
            sys.stdout.flush()
            raw = getattr(sys.stdout, "buffer", None)
            if raw is not None:
                raw.write(page.encode("utf-8"))
                raw.flush()
            else:
                sys.stdout.write(page)
        elif not _write_page(args.html, page, lang):
            return 2
        else:
            from wizard.report.roster_table import total_line  # after the fork: see above

            _out(t("roster.html.written", lang, path=args.html) + "\n" + total_line(rows, lang) + "\n")
    else:
        from wizard.report.roster_table import render_groups, render_table  # after the fork: see above

        _out(render_table(rows, lang) + render_groups(by_problem(zip(rows, students), lang), lang))
    return 2 if failed else 0


def _write_page(path: str, page: str, lang: str) -> bool:
    """The page written whole or not at all (a temporary file beside it, then renamed)."""
    folder, name = os.path.split(os.path.abspath(path))
    # Created with the user's usual permissions (a page to share), unlike mkstemp's 0600.
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "x", encoding="utf-8", newline="\n") as fh:
            fh.write(page)
        os.replace(tmp, path)
        return True
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        _err(t("roster.html.cannot-write", lang, path=path, reason=exc.strerror or exc))
        return False


# ------------------------------------------------------------------------------ helpers ---

def _knowledge(answers_only: bool = False) -> Any:
    """The content data, or None when it is broken: reading reports must still work then.
    `answers_only`: just the goals and currencies that checking [answers] needs."""
    try:
        if answers_only:
            # The answers' rules, read once summarize's readers have started (the call after
            # the fork): +4-8 ms before them at the top (measured 2026-12-04).
            from wizard.knowledge.goals import load_answer_rules

            return load_answer_rules()
        # The whole catalog, for `report show` alone: +125 ms or more (measured 2026-12-04).
        from wizard.knowledge.load import load_knowledge

        return load_knowledge()
    except Exception:  # a damaged install must not stop a TA from reading a report
        return None


def _locale_lang() -> str:
    return language_from_env()


def _out(text: str) -> None:
    # Our own byte-order mark for Excel survives; one from inside a report never does.
    mark = "\ufeff" if text.startswith("\ufeff") else ""
    sys.stdout.write(mark + safe(text[len(mark):]))


def _err(text: str) -> None:
    sys.stderr.write(safe(text, sys.stderr) + "\n")
