"""Dialogs over a step: per-step help (F1) and "that file exists" when saving."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from wizard.i18n import t

from screens.step import ui
from screens.widgets import Guide


def help_markdown(lang: str, step: str) -> str:
    """The help for one step, then the keys that work everywhere."""
    return f"{ui(f'help.{step}', lang)}\n\n{ui('help.keys', lang)}"


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,f1,q", "dismiss(None)", show=False)]
    AUTO_FOCUS = "#help-body"

    def __init__(self, lang: str, step: str) -> None:
        super().__init__()
        self.lang = lang
        self.step = step

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            with VerticalScroll(id="help-body", can_focus=True):
                yield Guide(help_markdown(self.lang, self.step))
            with Horizontal(classes="dialog-buttons"):
                yield Button(t("guide.buttons.close", self.lang), id="close", compact=True)

    def on_mount(self) -> None:
        self.query_one("#dialog").border_title = ui("help.title", self.lang)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)


class ExistsDialog(ModalScreen[str | None]):
    """A report of that name exists: save under the next free name, or pick another."""

    BINDINGS = [Binding("escape", "dismiss(None)", show=False)]
    AUTO_FOCUS = "#next-free"

    def __init__(self, lang: str, path: Path, suggestion: Path) -> None:
        super().__init__()
        self.lang = lang
        self.path = path
        self.suggestion = suggestion

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Content(ui("save.exists", self.lang, path=self.path.name)), id="exists-text")
            with Horizontal(classes="dialog-buttons"):
                yield Button(Content(ui("save.use_next", self.lang, name=self.suggestion.name)),
                             id="next-free", variant="primary", compact=True)
                yield Button(ui("save.other_name", self.lang), id="other", compact=True)

    def on_mount(self) -> None:
        self.query_one("#dialog").border_title = ui("save.exists_title", self.lang)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id)
