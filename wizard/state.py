"""What one run of the wizard knows and has decided: plain data the screens receive.

The App (screens/app.py) owns one `WizardState` and hands it to every step screen through
the screen's constructor; screens read it and ask for changes with messages, and the App's
handlers are the only code that changes it. No Textual here (tests/test_import_rules.py).
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from wizard.answers import Answers
from wizard.evaluate import Outcome, TorchChooser, evaluate
from wizard.machine.live import Live, Probes
from wizard.report.errors import ReportSaveError
from wizard.report.saving import current_folder, default_report_path, next_free_path, save_report

if TYPE_CHECKING:
    from wizard.knowledge.records import Knowledge
    from wizard.machine.recorded import Recording


@dataclass(frozen=True)
class Session:
    """What the user has told the wizard; replaced, never mutated."""

    answers: Answers = field(default_factory=Answers)
    touched: frozenset[str] = frozenset()   # answers the user gave (detection fills the rest)
    budget_text: str = ""                   # the budget as typed, so Back shows it again
    currency_choice: str | None = None
    save_text: str = ""                     # the report path as edited


_ANSWER_FIELDS = {f.name for f in fields(Answers)}
_SESSION_FIELDS = {"budget_text", "currency_choice", "save_text"}
# The answers each step sets, as Session.touched names them.
_QUESTION_ANSWERS = frozenset({"need_gpu", "has_nvidia", "form_factor", "budget", "goal"})


def replay_session(replay: Recording | None) -> Session:
    """The session a replay starts with: the report's answers, given (not detected)."""
    answers = getattr(replay, "answers", None)
    if answers is None:
        return Session()
    amount = answers.budget_amount
    budget_text = "" if amount is None else f"{amount:g}" if isinstance(amount, float) else str(amount)
    left_out = {"budget" if key.startswith("budget_") else key
                for key in getattr(replay, "answers_left_out", ())}
    return Session(answers=answers, touched=_QUESTION_ANSWERS - left_out, budget_text=budget_text,
                   currency_choice=answers.budget_currency)


class WizardState:
    """The session, the probes' findings so far, and the saved report of one wizard run."""

    def __init__(
        self,
        lang: str,
        live: Live,
        probes: Probes | None = None,
        *,
        report_path: Path | None = None,
        redact: bool = True,
        now: Callable[[], dt.datetime] | None = None,
        cwd: Path | None = None,
        home: Path | None = None,
        torch_chooser: TorchChooser | None = None,
        ascii_marks: bool = False,
        replay: Recording | None = None,
    ) -> None:
        self.lang = lang
        self.live = live
        self.probes = probes
        self.report_path = report_path
        self.redact = redact
        self.now = now or dt.datetime.now
        self.cwd = cwd
        self.home = home
        self.torch_chooser = torch_chooser
        self.ascii_marks = ascii_marks
        # A recorded machine: every step says so, and a saved report's answers start out as
        # the student gave them.
        self.replay = replay
        self.session = replay_session(replay)
        self.saved_path: Path | None = None
        self.install_record: dict[str, Any] | None = None   # "Install it for me": for the report
        self.install_interrupted: str | None = None          # the command, when quitting stopped it
        self.live_version = 0   # bumped on every probe result; part of the outcome's cache key
        self._outcome: tuple[tuple, Outcome] | None = None

    # ------------------------------------------------------------------ knowledge ---

    @cached_property
    def knowledge(self) -> Knowledge:
        # The catalog reader: +125-160 ms before the wizard's first screen, whose App imports
        # this module (measured 2026-12-04).
        from wizard.knowledge.load import load_knowledge

        return load_knowledge()

    def currencies(self) -> tuple[str, ...]:
        return tuple(self.knowledge.currency_codes)

    # ------------------------------------------------------------------ changes ---

    def apply(self, changes: Mapping[str, Any], confirmed: tuple[str, ...] = ()) -> None:
        """Fold a step's answers into the session (the only place it changes)."""
        answer_changes = {k: v for k, v in changes.items() if k in _ANSWER_FIELDS}
        session_changes = {k: v for k, v in changes.items() if k in _SESSION_FIELDS}
        self.session = replace(
            self.session,
            answers=replace(self.session.answers, **answer_changes),
            touched=self.session.touched | frozenset(confirmed),
            **session_changes,
        )

    def set_live(self, live: Live) -> None:
        self.live = live
        self.live_version += 1

    @property
    def can_pick_python(self) -> bool:
        """Live probing with a torch probe that can be pointed at another interpreter."""
        return self.replay is None and self.probes is not None and self.probes.torch_for is not None

    # ------------------------------------------------------------------ advice ---

    def outcome(self) -> Outcome | None:
        """Machine, findings and recommendation for the current answers; None while probing."""
        machine = self.live.machine()
        if machine is None:
            return None
        key = (self.session.answers, self.lang, self.live_version)
        if self._outcome is not None and self._outcome[0] == key:
            return self._outcome[1]
        outcome = evaluate(machine, self.session.answers, self.knowledge, self.lang, self.torch_chooser)
        self._outcome = (key, outcome)
        return outcome

    def install_plan(self) -> Any:
        """The plan for "Install it for me", or None (a replay, checks still running, nothing fits)."""
        outcome = self.outcome()
        # Asked for, it installs whenever a build fits: the result page says whether it is
        # the fix, an optional upgrade or not needed.
        if not self.can_pick_python or outcome is None or outcome.recommendation is None:
            return None
        # The installer (the torch matrix, the torch probe): +80-100 ms before the wizard's first
        # screen (measured 2026-12-04).
        from wizard.pytorch.installer import PlanError, find_uv, plan_for_machine

        try:
            return plan_for_machine(outcome.machine, self.lang, uv=find_uv())
        except PlanError:
            return None

    # ------------------------------------------------------------------ saving ---

    def default_report_path(self) -> Path:
        if self.report_path is not None:
            return self.report_path
        return default_report_path(self.now(), self.cwd, self.home)

    def resolve_path(self, text: str) -> Path:
        path = Path(os.path.expanduser(text.strip()))
        if not path.is_absolute():
            here = self.cwd or current_folder()
            if here is None:  # deleted under us: a relative name has nowhere to go
                raise ReportSaveError(path, "report.error.cwd-gone")
            path = here / path
        try:
            if path.is_dir():
                # A folder: save the default name inside it.
                path = next_free_path(path / self.default_report_path().name)
        except OSError:  # a name the OS refuses: saving says why
            pass
        return path

    def home_fallback(self, failed: Path) -> Path | None:
        """Where to offer saving instead when `failed`'s folder cannot be written."""
        home = self.home or Path.home()
        if failed.parent == home or not os.access(home, os.W_OK):
            return None
        return next_free_path(home / failed.name)

    def build_report(self) -> dict[str, Any]:
        # Only when saving: +20 ms before the wizard's first screen (measured 2026-12-04).
        from wizard.report.building import build_report

        outcome = self.outcome()
        if outcome is None:
            raise RuntimeError("the report needs every check to have finished")
        tables: dict[str, Any] = {}
        if self.replay is not None:
            # Whoever reads it later must not take it for a fresh check of some computer.
            tables["replay"] = {"of_report": self.replay.is_report,
                                "recorded": self.replay.created or "unknown"}
        if self.install_record is not None:
            # Redacted with the rest: only the whole report knows the interpreter's path.
            tables["install"] = dict(self.install_record)
        return build_report(self.session.answers, outcome.machine, outcome.findings,
                            outcome.recommendation, self.lang, redact=self.redact, tables=tables)

    def save_report(self, text: str) -> Path:
        """Save to `text` (a path as typed); ReportError when that is not possible."""
        path = self.resolve_path(text)
        saved = save_report(self.build_report(), path)
        self.saved_path = saved
        self.session = replace(self.session, save_text=str(saved))
        return saved
