"""From a machine (probed or recorded) and the answers to what the wizard says: one pipeline.

`gpu-wizard check`, the headless run, the Textual wizard and the benchmarks all call
`evaluate`, so a fact reaches every front end by the same path:

    probe (wizard/probe) → Machine → diagnose → findings ─┐
                                 └→ torch build choice ───┼→ advise → Recommendation
                     answers (wizard/answers) ────────────┘

`check` has no answers: it gets the findings alone, no torch choice and no advice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, NamedTuple, Optional

from wizard.diagnosis.diagnose import diagnose
from wizard.diagnosis.findings import Finding
from wizard.knowledge.content import ContentError
from wizard.probe.facts import Machine

if TYPE_CHECKING:
    from wizard.advise import Recommendation
    from wizard.answers import Answers
    from wizard.knowledge.records import Knowledge
    from wizard.presentation import Presentation
    from wizard.pytorch.choose import TorchChoice

# Picks the torch build for a machine; tests inject their own.
TorchChooser = Callable[["Machine", str], Optional["TorchChoice"]]


class Outcome(NamedTuple):
    machine: Machine
    findings: tuple[Finding, ...]
    recommendation: Recommendation | None   # None without answers (`check`)

    def shown(self, lang: str) -> Presentation:
        """What every screen says about this outcome (wizard.presentation)."""
        # What a screen says: +3 ms on `check --json`, which shows none (measured 2026-12-04).
        from wizard.presentation import present

        return present(self.machine, self.findings, self.recommendation, lang)


def choose_torch(machine: Machine, lang: str) -> TorchChoice | None:
    """The torch build and command for `machine`; None when the matrix cannot describe it
    (then the advice has no command rather than a wrong one)."""
    # Only with answers: the build choice and the torch matrix cost +15 ms, which `check` (no
    # answers) would pay for nothing (measured 2026-12-04).
    from wizard.pytorch.choose import choose_for_machine

    try:
        return choose_for_machine(machine, lang)
    except ContentError:
        raise   # a damaged installation is said in one sentence by the command, never hidden
    except ValueError:
        return None


def evaluate(machine: Machine, answers: Answers | None, knowledge: Knowledge | None, lang: str,
             chooser: TorchChooser | None = None) -> Outcome:
    """Findings and (with answers) the recommendation for `machine`, whose install command is
    the torch build `chooser` picks."""
    findings = tuple(diagnose(machine, lang))
    if answers is None:
        # `check`: the findings carry their own fixes; with a damaged torch matrix they still
        # come (diagnose says what it could not check), so nothing here may need the matrix.
        return Outcome(machine, findings, None)
    # The advice and the GPU catalog it reads: +70 ms, only with answers (`check` has none;
    # measured 2026-12-04).
    from wizard.advise import advise
    from wizard.knowledge.load import load_knowledge

    choice = (chooser or choose_torch)(machine, lang)
    recommendation = advise(answers, machine, knowledge or load_knowledge(), lang, findings, choice)
    return Outcome(machine, findings, recommendation)

