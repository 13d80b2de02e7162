"""Read a recorded machine (`--machine FILE`): a saved report or a fixture with `[machine]`.

A saved report also holds the student's answers and what they were told; the wizard replays
those (`Recording`) so a TA sees what the student saw.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wizard.answers import AnswersError, parse_answers
from wizard.machine.identify import recorded
from wizard.probe.facts import Machine, MachineFormatError, machine_from_dict
from wizard.report.errors import ReportReadError
from wizard.report.reading import created_text, read_toml

if TYPE_CHECKING:
    from wizard.answers import Answers


class MachineFileError(Exception):
    """One line for the user: the file and what is wrong with it."""


@dataclass(frozen=True)
class Recording:
    """What a `--machine` file holds beyond the machine: the basis of a replay."""

    path: Path
    machine: Machine
    answers: Any = None               # wizard.answers.Answers: the file's usable answers
    answers_problems: tuple[str, ...] = ()   # answers that were left out, and why
    answers_left_out: frozenset[str] = frozenset()  # their keys: the wizard asks those again
    language: str | None = None       # the report's language
    created: str | None = None        # when the report was saved, "2026-11-30 12:00 UTC"
    verdict: str | None = None        # what the student was told
    headline: str | None = None

    @property
    def is_report(self) -> bool:
        return self.answers is not None or bool(self.answers_problems)


def load_machine(path: str | Path, lang: str = "en") -> Machine:
    return _machine(Path(path), _read(Path(path), lang))


def load_recording(path: str | Path, knowledge: Any = None, lang: str = "en") -> Recording:
    """The machine and, for a saved report, its answers, language, date and verdict.

    Answers that do not validate (a hand-edited report, a goal that no longer exists) are left
    out with the reasons, so the machine can still be replayed; a bad machine is an error.
    """
    path = Path(path)
    data = _read(path, lang)
    machine = _machine(path, data)
    answers: Answers | None = None
    problems: tuple[str, ...] = ()
    bad: set[str] = set()
    if isinstance(data.get("answers"), dict):
        table = dict(data["answers"])
        try:
            answers = parse_answers(table, str(path), knowledge)
        except AnswersError as exc:
            # Keep the answers that are fine: a goal that no longer exists should not cost the
            # TA the student's budget and form factor. A bad currency takes the amount along.
            problems = tuple(exc.problems)
            bad = {m.group(1) for p in problems if (m := re.match(r"answers\.(\w+)", p))}
            if "budget_currency" in bad:
                bad.add("budget_amount")
            try:
                answers = parse_answers({k: v for k, v in table.items() if k not in bad},
                                        str(path), knowledge)
            except AnswersError:
                answers = None
    elif "answers" in data:
        problems = ("answers: expected a table",)
    recommendation = data.get("recommendation")
    rec = recommendation if isinstance(recommendation, dict) else {}
    language = data.get("language") if data.get("language") in ("en", "zh") else None
    return Recording(path, machine, answers, problems, frozenset(bad), language,
                     created_text(data.get("created")), _text(rec.get("verdict")),
                     _text(rec.get("headline")))


def _read(path: Path, lang: str) -> dict[str, Any]:
    try:
        data = read_toml(path)  # the report's size cap: one limit, one message
    except ReportReadError as exc:
        raise MachineFileError(exc.message(lang)) from None
    if "machine" not in data:
        raise MachineFileError(f"{path}: has no [machine] table (expected a gpu-wizard report or recorded machine)")
    return data


def _machine(path: Path, data: dict[str, Any]) -> Machine:
    """The file's `[machine]` table as facts (wizard.machine.identify.recorded): the sentences it
    was saved with are worded again when shown, in the reader's language."""
    try:
        return recorded(machine_from_dict(data["machine"]))
    except MachineFormatError as exc:
        shown = "; ".join(exc.problems[:5])
        more = f" (and {len(exc.problems) - 5} more)" if len(exc.problems) > 5 else ""
        raise MachineFileError(f"{path}: {shown}{more}") from None


def _text(value: Any) -> str | None:
    return value[:500] if isinstance(value, str) and value.strip() else None
