"""Dialogs over a step: per-step help (F1), "that file exists" when saving, and which Python's
PyTorch to check."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from screens.reader import words_screen
from screens.strings import ui
from screens.widgets import Guide, VisibleText, shown_text
from wizard.text.i18n import t


def ascii_borders(dialog: ModalScreen) -> None:
    """A LANG=C terminal draws the dialog's frames in ASCII, as the steps' (wizard.tcss)."""
    if getattr(dialog.app, "ascii_marks", False):
        dialog.add_class("-ascii")


def help_markdown(lang: str, step: str) -> str:
    """The help for one step, then the keys that work everywhere."""
    return f"{ui(f'help.{step}', lang)}\n\n{ui('help.keys', lang)}"


class HelpScreen(ModalScreen[None]):
    """Help for the step and the keys; W (or the Words button) opens the words explained."""

    # The keys that open help close it too (F1, ?), as do Esc and q.
    BINDINGS = [Binding("escape,f1,question_mark,q", "dismiss(None)", show=False),
                Binding("w", "words", show=False)]
    AUTO_FOCUS = "#help-body"

    def __init__(self, lang: str, step: str, *, ascii_marks: bool = False) -> None:
        super().__init__()
        self.lang = lang
        self.step = step
        self.ascii_marks = ascii_marks

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            with VerticalScroll(id="help-body", can_focus=True):
                yield Guide(help_markdown(self.lang, self.step))
            with Horizontal(classes="dialog-buttons"):
                yield Button(ui("help.words_button", self.lang), id="words", compact=True)
                yield Button(t("guide.buttons.close", self.lang), id="close", compact=True)

    def on_mount(self) -> None:
        self.query_one("#dialog").border_title = ui("help.title", self.lang)
        ascii_borders(self)

    def action_words(self) -> None:
        """The words explained, over this help; Esc comes back here."""
        self.app.push_screen(words_screen(self.lang, self.ascii_marks))

    @on(Button.Pressed, "#words")
    def _words_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_words()

    @on(Button.Pressed, "#close")
    def _close_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)


class ExistsDialog(ModalScreen[Optional[str]]):
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
            yield Static(Content(shown_text(ui("save.exists", self.lang, path=self.path.name))), id="exists-text")
            with Horizontal(classes="dialog-buttons"):
                yield Button(Content(shown_text(ui("save.use_next", self.lang, name=self.suggestion.name))),
                             id="next-free", variant="primary", compact=True)
                yield Button(ui("save.other_name", self.lang), id="other", compact=True)

    def on_mount(self) -> None:
        self.query_one("#dialog").border_title = ui("save.exists_title", self.lang)
        ascii_borders(self)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id)


class PythonDialog(ModalScreen[Optional[str]]):
    """Check another Python: one of those found with PyTorch, or a path typed in.

    Paths come from the user's disk: shown as plain text, never as markup.
    """

    BINDINGS = [Binding("escape", "dismiss(None)", show=False)]
    AUTO_FOCUS = "#python-choices"

    def __init__(self, lang: str, choices: list[tuple[str, str | None]]) -> None:
        super().__init__()
        self.lang = lang
        self.choices = choices

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Content(ui("python.dialog_text", self.lang)))
            options = [Option(Content(shown_text(path + (f"  (torch {version})" if version else ""))), id=str(i))
                       for i, (path, version) in enumerate(self.choices)]
            yield OptionList(*options, id="python-choices")
            yield Input(placeholder=ui("python.path_placeholder", self.lang), id="python-path",
                        highlighter=VisibleText())
            with Horizontal(classes="dialog-buttons"):
                yield Button(ui("python.check", self.lang), id="check", variant="primary", compact=True)
                yield Button(t("guide.buttons.cancel", self.lang), id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#dialog").border_title = ui("python.dialog_title", self.lang)
        ascii_borders(self)
        if not self.choices:
            self.query_one("#python-choices").display = False
            self.query_one("#python-path").focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.choices[int(event.option.id or 0)][0])

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    @on(Button.Pressed, "#check")
    def _check_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        typed = self.query_one("#python-path", Input).value.strip()
        if typed:
            self.dismiss(typed)
            return
        choices = self.query_one("#python-choices", OptionList)
        index = choices.highlighted
        self.dismiss(self.choices[index][0] if index is not None and self.choices else None)
