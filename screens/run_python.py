"""Asked before a folder's own Python environment runs: "Check the PyTorch in ./.venv? This
runs that folder's Python." (wizard.probe.trust, README "What gpu-wizard runs").

A cloned project can bring a `.venv` whose Python runs anything, so the safe answer is the one
a stray Enter gives: the focus starts on "Don't run it", and Esc means the same. The answer
can be remembered for the folder (the App writes it to the user's settings).
"""

from __future__ import annotations

from typing import NamedTuple

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Static

from screens.dialogs import ascii_borders
from screens.markdown_lite import Wrapped
from screens.strings import ui
from screens.widgets import shown_text


class PlainCheckbox(Checkbox):
    """A checkbox that shows its state without colour: "[X]" ticked, "[ ]" not. Textual draws
    "X" in both states, told apart only by colour, which NO_COLOR and some SSH terminals lose;
    and its half-block sides are not in a LANG=C terminal's character set."""

    BUTTON_LEFT = "["
    BUTTON_RIGHT = "]"

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.BUTTON_INNER = "X" if self.value else " "

    def watch_value(self) -> None:
        self.BUTTON_INNER = "X" if self.value else " "
        super().watch_value()


class RunAnswer(NamedTuple):
    run: bool
    remember: bool


class RunPythonDialog(ModalScreen[RunAnswer]):
    """Whether the environment at `env` may run; dismissed with a RunAnswer."""

    BINDINGS = [Binding("escape", "skip", show=False)]
    AUTO_FOCUS = "#skip"

    def __init__(self, lang: str, env: str) -> None:
        super().__init__()
        self.lang = lang
        self.env = env

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            with VerticalScroll(id="run-python-body"):
                yield Static(self._wrapped(ui("run-python.text", self.lang)))
                # The folder's name comes from the disk: shown literally, escapes made visible.
                yield Static(self._wrapped(self.env), id="run-python-env")
                yield Static(self._wrapped(ui("run-python.question", self.lang)))
            yield PlainCheckbox(ui("run-python.remember", self.lang), id="remember", compact=True)
            with Horizontal(classes="dialog-buttons"):
                yield Button(ui("run-python.run", self.lang), id="run", compact=True)
                yield Button(ui("run-python.skip", self.lang), id="skip", variant="primary", compact=True)

    @staticmethod
    def _wrapped(text: str) -> Wrapped:
        """Never markup; Chinese wraps between characters (Textual wraps only at spaces)."""
        return Wrapped(Text(shown_text(text)))

    def on_mount(self) -> None:
        self.query_one("#dialog").border_title = ui("run-python.title", self.lang)
        ascii_borders(self)

    def _answer(self, run: bool) -> None:
        self.dismiss(RunAnswer(run, self.query_one("#remember", Checkbox).value))

    def action_skip(self) -> None:
        self._answer(False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self._answer(event.button.id == "run")
