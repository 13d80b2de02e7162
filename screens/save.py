"""The last step: save the report under an editable name; never overwrite, never fail silently."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.widgets import Button, Input, Static

from screens.dialogs import ExistsDialog
from screens.panels import Check
from screens.step import BASE_KEYS, StepScreen
from screens.strings import ui
from screens.widgets import VisibleText
from wizard.report.errors import ReportError, ReportExistsError
from wizard.text.i18n import t

if TYPE_CHECKING:
    from wizard.state import WizardState


class SaveScreen(StepScreen):
    STEP = "save"
    PAGES = ()
    NEXT_LABEL = "guide.buttons.save"
    PANEL_TITLE = "save.panel"
    KEYS = tuple(("ctrl+n", "next", "keys.save", True) if key[0] == "ctrl+n" else key
                 for key in BASE_KEYS)
    AUTO_FOCUS = "#path"

    def __init__(self, lang: str, state: WizardState) -> None:
        super().__init__(lang, state)
        self.fallback: Path | None = None   # where to save instead when the folder is read-only

    def checks(self) -> list[Check]:
        saved = self.state.saved_path
        if saved is not None:
            return [Check("ok", ui("save.saved", self.lang, path=saved))]
        return [Check("info", ui("save.not_yet", self.lang))]

    def compose_question(self) -> ComposeResult:
        redact = "save.redacted" if self.state.redact else "save.not_redacted"
        gap = "" if self.lang == "zh" else " "  # Chinese sentences run on without a space
        intro = "save.intro_replay" if self.state.replay is not None else "save.intro"
        yield Static(self.text(ui(intro, self.lang) + gap + ui(redact, self.lang)), id="intro")
        yield Static(self.text(ui("save.label", self.lang)), id="question")
        yield Input(self.state.session.save_text or str(self.state.default_report_path()),
                    id="path", compact=True, highlighter=VisibleText())
        yield Static(self.text(ui("save.hint", self.lang)), id="note")
        yield Button(ui("save.home", self.lang, path="~"), id="home", compact=True, classes="hidden")

    def on_mount(self) -> None:
        super().on_mount()
        if self.state.saved_path is not None:
            self._show_saved(self.state.saved_path)

    # ------------------------------------------------------------------ saving ---

    def action_next(self) -> None:
        if self.state.saved_path is not None:
            self.app.exit(0)
            return
        self.save(self.query_one("#path", Input).value)

    @on(Input.Submitted, "#path")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_next()

    def save(self, text: str) -> None:
        if not text.strip():
            self.note("note", ui("save.empty", self.lang), "error")
            return
        try:
            path = self.state.save_report(text)
        except ReportExistsError as exc:
            suggestion = exc.suggestion
            self.app.push_screen(ExistsDialog(self.lang, exc.path, suggestion),
                                 lambda choice: self._after_exists(choice, suggestion))
            return
        except ReportError as exc:
            self._failed(exc)
            return
        self._show_saved(path)

    def _after_exists(self, choice: str | None, suggestion: Path) -> None:
        field = self.query_one("#path", Input)
        if choice == "next-free":
            field.value = str(suggestion)
            self.save(str(suggestion))
        else:
            field.focus()
            self.note("note", ui("save.pick_other", self.lang), "error")

    def _failed(self, exc: ReportError) -> None:
        self.note("note", exc.message(self.lang), "error")
        self.fallback = self.state.home_fallback(exc.path)
        button = self.query_one("#home", Button)
        if self.fallback is not None:
            button.label = self.line(ui("save.home", self.lang, path=self.fallback))
            button.remove_class("hidden")
        else:
            button.add_class("hidden")

    def _show_saved(self, path: Path) -> None:
        self.query_one("#home", Button).add_class("hidden")
        self.query_one("#path", Input).value = str(path)
        self.note("note", ui("save.saved_next", self.lang, path=path), "ok")
        self.query_one("#next", Button).label = t("guide.buttons.finish", self.lang)
        self.relabel("next", "keys.finish")   # the footer's Ctrl+N too
        self.live_changed()
        self.query_one("#next", Button).focus()

    @on(Button.Pressed, "#home")
    def _home_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if self.fallback is not None:
            self.query_one("#path", Input).value = str(self.fallback)
            self.save(str(self.fallback))

    def keep(self) -> dict[str, Any]:
        return {"save_text": self.query_one("#path", Input).value}

    def collect(self) -> dict[str, Any] | None:
        return self.keep()
