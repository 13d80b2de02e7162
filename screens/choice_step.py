"""A step whose answer is one of a few options; detection may pre-select one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import ComposeResult
from textual.widgets import Static

from screens.panels import Check
from screens.step import StepScreen
from screens.strings import ui
from screens.widgets import Choices
from wizard.text.i18n import t

if TYPE_CHECKING:
    from wizard.state import WizardState


class ChoiceStep(StepScreen):
    FIELD: ClassVar[str] = ""          # the Answers field this step sets
    VALUES: ClassVar[tuple[str, ...]] = ()
    AUTO_FOCUS = "#answer"

    def __init__(self, lang: str, state: WizardState) -> None:
        super().__init__(lang, state)
        # Whether the user has picked an answer on this visit or an earlier one; detection
        # only fills in answers nobody has given yet.
        self.user_picked = self.FIELD in self.state.session.touched

    def options(self) -> list[tuple[str, str]]:
        return [(v, t(f"guide.options.{self.FIELD}.{v}", self.lang)) for v in self.VALUES]

    def current_answer(self) -> str:
        answer = getattr(self.state.session.answers, self.FIELD)
        if not self.user_picked:
            return self.detected() or answer
        return answer

    def detected(self) -> str | None:
        """The answer detection suggests, when it can tell."""
        return None

    def detection_note(self) -> Check | None:
        return None

    def question(self) -> str:
        return t(f"guide.questions.{self.FIELD}", self.lang)

    def compose_question(self) -> ComposeResult:
        yield Static(self.text(self.question()), id="question")
        yield Choices(self.options(), self.current_answer(), id="answer",
                      ascii_marks=self.state.ascii_marks)
        yield Static(self.text(self._note_text()), id="note")

    def _note_text(self) -> str:
        hint = ui("choose_hint", self.lang)
        replay = self.state.replay
        if self.user_picked and replay is not None and replay.answers is not None:
            # "We chose … for you" would be false: the student gave this answer.
            return f"{ui('replay.answered', self.lang)}\n{hint}"
        note = self.detection_note()
        return f"{note.text}\n{hint}" if note else hint

    def live_changed(self) -> None:
        super().live_changed()
        self.query_one("#note", Static).update(self.text(self._note_text()))
        choices = self.query_one("#answer", Choices)
        if not self.user_picked:
            detected = self.detected()
            if detected and detected != choices.current:
                choices.set_current(detected)

    def on_choices_picked(self, event: Choices.Picked) -> None:
        event.stop()
        self.user_picked = True
        self.action_next()

    def collect(self) -> dict[str, Any] | None:
        value = self.query_one("#answer", Choices).current
        return {self.FIELD: value} if value is not None else {}

    def confirmed(self, direction: int) -> tuple[str, ...]:
        # Next accepts the shown answer, detected or not; Back only keeps a real pick.
        return (self.FIELD,) if direction > 0 or self.user_picked else ()
