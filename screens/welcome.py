"""Step 0: what the wizard does, while the first checks run in the background.

It also says which Python's PyTorch is being checked (found where the user keeps it, see
wizard.probe.discover) and lets the user check another one: a student with two environments
must be able to point the wizard at the one their course uses.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Button, Static

from screens.dialogs import PythonDialog
from screens.panels import Check, welcome_checks
from screens.step import BASE_KEYS, StepScreen
from screens.strings import ui


class WelcomeScreen(StepScreen):
    STEP = "welcome"
    PAGES = ("welcome",)
    NEXT_LABEL = "ui.start"
    AUTO_FOCUS = "#next"
    # Nothing to go back to: Esc quits, as Q and Ctrl+Q do (the footer shows Ctrl+Q).
    KEYS = ((("escape", "app.quit", "keys.quit", False),) + BASE_KEYS[1:2]
            + (("p", "change_python", "keys.python", True),) + BASE_KEYS[2:])

    def compose_question(self) -> ComposeResult:
        yield Static(self.text(ui("welcome.start_hint", self.lang)), id="note")
        if self.state.can_pick_python:
            with Horizontal(id="python-row"):
                yield Static(self.text(self.python_text()), id="python-line")
                yield Button(self.line(ui("python.change", self.lang)), id="python-change", compact=True)

    def python_text(self) -> str:
        """ "PyTorch is checked in /path/python (the project's virtualenv)", or "looking"."""
        info = self.state.live.torch_info()
        if info is None or not info.interpreter:
            return ui("python.looking", self.lang)
        # Here, not at the top: the torch probe's thread has loaded it by now
        # (wizard.machine.live.load_torch_advice); at the top, +30 ms of CPU before the first
        # screen (target: 1.5× a minimal Textual app's time; 2026-12-04).
        from wizard.pytorch.wording import interpreter_line

        text = interpreter_line(info, self.lang)
        if info.other_pythons:
            text += " " + ui("python.others", self.lang, count=len(info.other_pythons))
        if info.not_run:
            text += " " + ui("run-python.not-run", self.lang, count=len(info.not_run))
        return text

    def checks(self) -> list[Check]:
        return welcome_checks(self.state.live, self.lang)

    def live_changed(self) -> None:
        super().live_changed()
        if self.state.can_pick_python:
            self.query_one("#python-line", Static).update(self.text(self.python_text()))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "change_python":
            return self.state.can_pick_python  # a replay's Python is the student's, not here
        return super().check_action(action, parameters)

    @on(Button.Pressed, "#python-change")
    def _change_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_change_python()

    def action_change_python(self) -> None:
        info = self.state.live.torch_info()
        choices = []
        if info is not None and info.interpreter:
            choices.append((info.interpreter, info.version if info.status == "ok" else None))
        choices += [(o.interpreter, o.torch_version) for o in (info.other_pythons if info else ())]

        def picked(path: str | None) -> None:
            if path:
                self.post_message(self.PickPython(path))

        self.app.push_screen(PythonDialog(self.lang, choices), picked)
