"""`gpu-wizard --answers FILE --report OUT [--machine FILE] [--lang]`: the wizard without a UI.

Everything a bad input can break is checked before the slow part (probing) and before
anything is written, so a mistake costs one clear line and exit status 2, never a half
report. A saved report works as the answers file: a TA re-runs a student's answers with
`--answers student.toml --machine student.toml`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from wizard.answers import AnswersError, budget_reading, parse_answers, unknown_answer_keys
from wizard.evaluate import evaluate
from wizard.machine import live
from wizard.machine.recorded import MachineFileError, load_machine
from wizard.report.errors import ReportError
from wizard.report.reading import read_toml
from wizard.report.saving import check_report_target, default_report_path, save_report
from wizard.text.i18n import language_from_env, t
from wizard.text.output import safe


def run_headless(args: argparse.Namespace) -> int:
    # The interactive wizard imports this module too (wizard.commands.wizard_main), before its
    # first screen: the catalog there would cost +100-150 ms (measured 2026-12-04).
    from wizard.knowledge.load import load_knowledge

    lang = getattr(args, "lang", None) or language_from_env()
    knowledge = load_knowledge()  # damaged data: wizard.cli says so, naming the file

    answers_path = Path(args.answers)
    try:
        data = read_toml(answers_path)
    except ReportError as exc:
        _err(exc.message(lang))
        return 2
    if not isinstance(data.get("answers"), dict):
        _err(t("report.headless.no-answers", lang, path=answers_path))
        return 2
    try:
        answers = parse_answers(data["answers"], str(answers_path), knowledge)
    except AnswersError as exc:
        _err(t("report.headless.bad-answers", lang, path=answers_path))
        for problem in exc.problems:
            _err(f"  {problem}")
        return 2
    for key in unknown_answer_keys(data["answers"]):
        _err(t("report.headless.ignored-key", lang, path=answers_path, name=key))
    reading = budget_reading(data["answers"], knowledge)
    if reading is not None and reading.low is not None:  # a range: say which end counts
        from wizard.advise.money import format_money  # the advice: as the catalog, see above

        _err(f"{answers_path}: answers.budget: " + t(
            "ui.budget.range", lang, money=format_money(reading.amount, reading.currency, knowledge),
            low=format_money(reading.low, reading.currency, knowledge)))

    # Refuse a taken name now, not after a minute of probing; save_report checks again.
    try:
        out = check_report_target(Path(args.report)) if getattr(args, "report", None) \
            else default_report_path()
    except ReportError as exc:
        _err(exc.message(lang))
        return 2

    machine = _machine(args, lang, out)
    if machine is None:
        return 2
    if not getattr(args, "machine", None) and isinstance(data.get("machine"), dict):
        _err(t("report.headless.machine-hint", lang, path=answers_path))

    # The report and its text (the torch sentences, the advice's money): +110-150 ms before the
    # interactive wizard's first screen at the top (see above; measured 2026-12-04).
    from wizard.report.building import build_report
    from wizard.report.show import render_recommendation

    outcome = evaluate(machine, answers, knowledge, lang)
    report = build_report(answers, machine, outcome.findings, outcome.recommendation, lang,
                          redact=not getattr(args, "no_redact", False))
    try:
        saved = save_report(report, out)
    except ReportError as exc:
        _err(exc.message(lang))
        return 2
    torch = machine.torch
    if torch is not None and torch.interpreter:
        from wizard.pytorch.wording import interpreter_line, not_run_lines  # see above

        _out("\n".join([interpreter_line(torch, lang), *not_run_lines(torch, lang)]) + "\n\n")
    # The terminal gets the commands as they are (the exact interpreter); the file, redacted.
    here = build_report(answers, machine, outcome.findings, outcome.recommendation, lang, redact=False)
    _out(render_recommendation(here, lang, knowledge))
    _out("\n" + t("report.headless.saved", lang, path=saved) + "\n")
    return 0


def _machine(args: argparse.Namespace, lang: str, out: Path) -> Any:
    """The recorded machine from --machine, or this computer's; None after an error message."""
    recorded = getattr(args, "machine", None)
    if recorded:
        try:
            return load_machine(recorded, lang)
        except MachineFileError as exc:
            _err(f"gpu-wizard: {exc}")
            return None
    # The torch probe: +20-27 ms before the interactive wizard's first screen (see run_headless;
    # measured 2026-12-04).
    from wizard.pytorch.probe.job import DEFAULT_TIMEOUT

    if sys.stderr.isatty():  # a person is waiting: say why nothing happens for a while
        _err(t("report.headless.checking", lang, seconds=f"{DEFAULT_TIMEOUT:g}"))
    return live.probe_this_machine(lang, python=getattr(args, "python", None), report_path=out.parent,
                              gpu_test=not getattr(args, "no_gpu_test", False), others_early=True,
                              no_discover=getattr(args, "no_discover", False))


def _out(text: str) -> None:
    sys.stdout.write(safe(text))


def _err(text: str) -> None:
    sys.stderr.write(safe(text, sys.stderr) + "\n")
