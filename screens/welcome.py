"""Step 0: what the wizard does, while the first checks run in the background."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from screens.panels import Check, welcome_checks
from screens.step import StepScreen, ui


class WelcomeScreen(StepScreen):
    STEP = "welcome"
    PAGES = ("welcome",)
    NEXT_LABEL = "ui.start"
    AUTO_FOCUS = "#next"

    def compose_question(self) -> ComposeResult:
        yield Static(self.text(ui("welcome.start_hint", self.lang)), id="note")

    def checks(self) -> list[Check]:
        return welcome_checks(self.wizard.live, self.lang)
