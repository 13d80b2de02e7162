"""The layout every step shares: guide text, live checks, the question, Back/Next.

A step never changes the session itself: it posts `Navigate` with the answers it collected,
and the App (which owns the session) moves on. Bindings carry translated descriptions, so a
screen is built for one language; switching language rebuilds the screen.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING, Any, Callable, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.errors import NoWidget
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Button, Footer, Static

from screens import textual_workarounds
from screens.dialogs import HelpScreen
from screens.markdown_lite import Wrapped
from screens.panels import Check
from screens.reader import GuidePane, ReaderScreen, open_word
from screens.strings import guide_page, ui
from screens.widgets import CheckPanel, Guide, KeysFooter, clip, shown_text
from wizard.text.i18n import t
from wizard.text.output import asciify

if TYPE_CHECKING:
    from wizard.state import WizardState

# The steps in the fixed order of the flow; the five questions are numbered 1-5.
STEPS = ("welcome", "need_gpu", "has_nvidia", "form_factor", "budget", "goal", "result", "save")
QUESTIONS = STEPS[1:6]


# Bindings as (keys, action, description key, show). The description is translated when the
# screen class is localized; see `localized`.
BASE_KEYS: tuple[tuple[str, str, str, bool], ...] = (
    ("escape", "back", "keys.back", True),
    ("ctrl+n", "next", "keys.next", True),
    ("f1", "help", "keys.help", True),
    ("g", "guide", "keys.guide", True),   # the step's guide, whole, on a screen of its own
    ("f2", "switch_language", "keys.language", True),
    ("ctrl+q", "app.quit", "keys.quit", True),
    # As in other terminal programs: ? is help and Q quits (in a text field they are typed).
    ("question_mark", "help", "keys.help", False),
    ("q", "app.quit", "keys.quit", False),
)


# When the window is too narrow for every key, the footer keeps them in this order of need
# (the others still work, and F1 lists all of them): Back, Next and Help; Quit; the step's own
# keys (copy, install, pick a Python); the whole guide; the language.
def footer_rank(action: str) -> int:
    if action in ("back", "next", "help"):
        return 0
    return {"app.quit": 1, "guide": 3, "switch_language": 4}.get(action, 2)


@cache
def localized(cls: type[StepScreen], lang: str, ascii_only: bool = False) -> type[StepScreen]:
    """`cls` with its footer bindings described in `lang` (in ASCII for a LANG=C terminal).

    Textual reads binding descriptions from the class, so each language gets a subclass with
    the same name (CSS and tests see the same type), built once and cached.
    """
    def describe(desc: str) -> str:
        if ascii_only:
            # The language key names the other language in its own script ("中文"), which a
            # LANG=C terminal cannot show.
            return asciify(ui(f"{desc}_ascii" if desc == "keys.language" else desc, lang))
        return ui(desc, lang)

    bindings = [Binding(keys, action, describe(desc), show=show) for keys, action, desc, show in cls.KEYS]
    return type(cls.__name__, (cls,), {"BINDINGS": bindings, "__module__": cls.__module__,
                                       "__qualname__": cls.__qualname__})


class StepScreen(Screen):
    STEP: ClassVar[str] = ""
    PAGES: ClassVar[tuple[str, ...]] = ()
    KEYS: ClassVar[tuple[tuple[str, str, str, bool], ...]] = BASE_KEYS
    NEXT_LABEL: ClassVar[str] = "guide.buttons.next"
    PANEL_TITLE: ClassVar[str] = "panel.title"

    class Navigate(Message):
        """Go `direction` steps (+1 next, -1 back), keeping `changes` to the answers."""

        def __init__(self, direction: int, changes: dict[str, Any] | None = None,
                     confirmed: tuple[str, ...] = ()) -> None:
            super().__init__()
            self.direction = direction
            self.changes = dict(changes or {})
            self.confirmed = confirmed  # answers the user has now given (no more pre-filling)

    class SwitchLanguage(Message):
        """Show this step in the other language, keeping `keep` (what is typed or chosen)."""

        def __init__(self, keep: dict[str, Any]) -> None:
            super().__init__()
            self.keep = keep

    class PickPython(Message):
        """Check the PyTorch of the interpreter at `path` instead (the welcome step)."""

        def __init__(self, path: str) -> None:
            super().__init__()
            self.path = path

    class Installed(Message):
        """The install dialog closed with `result` (None: nothing was installed)."""

        def __init__(self, result: dict[str, Any] | None) -> None:
            super().__init__()
            self.result = result

    def __init__(self, lang: str, state: WizardState) -> None:
        super().__init__()
        self.lang = lang
        self.state = state   # read here; changed only by the App, on this screen's messages

    # ------------------------------------------------------------------ layout ---

    def compose(self) -> ComposeResult:
        yield Static(self.line(self.title_text()), id="step-title")
        banner = self.replay_banner()
        if banner:
            yield Static(self.text(banner), id="replay-banner")
        with VerticalScroll(id="body", can_focus=not self.PAGES):
            if self.PAGES:
                more = f"\n\n*{ui('reader.more', self.lang)}*"   # "G: the whole guide"
                with GuidePane(id="guide", can_focus=True):
                    yield Guide(self.guide(*self.PAGES) + (asciify(more) if self.state.ascii_marks else more),
                                ascii_text=self.state.ascii_marks, terms_lang=self.lang)
            with Vertical(id="ask"):
                # The question first, so it is in view at once; the checks follow it.
                yield from self.compose_question()
            # Beside #ask, not in it: the box scrolls inside its own border (errors first).
            more = ui("panel.more_ascii" if self.state.ascii_marks else "panel.more", self.lang)
            yield CheckPanel(self.checks(), id="checks", ascii_marks=self.state.ascii_marks,
                             more=more)
        with Horizontal(id="nav"):
            if self.STEP != STEPS[0]:
                yield Button(t("guide.buttons.back", self.lang), id="back", compact=True)
            yield Button(t(self.NEXT_LABEL, self.lang), id="next", variant="primary", compact=True)
        yield KeysFooter()

    def on_mount(self) -> None:
        panel = self.query_one("#checks", CheckPanel)
        recorded = self.state.replay is not None and self.PANEL_TITLE == StepScreen.PANEL_TITLE
        panel.border_title = ui("panel.title_recorded" if recorded else self.PANEL_TITLE, self.lang)
        if self.state.ascii_marks:
            self.add_class("-ascii")
        if not self.PAGES:
            self.add_class("-no-guide")
        self.call_after_refresh(self._show_question)
        self._fit_footer()

    def on_resize(self) -> None:
        self._fit_footer()
        self.call_after_refresh(self._keep_question_in_view)

    def _fit_footer(self) -> None:
        # The footer never cuts a key in half: when its keys do not fit the window it goes
        # compact (less space around each), and when they still do not, it leaves out the
        # least needed ones (footer_rank) until the rest fit.
        width = self.size.width
        keys = self._footer_keys()   # (binding, cells, compact cells), in the step's order
        compact = sum(cells for _, cells, _ in keys) > width
        kept, used = set(), 0
        for binding, cells, small in sorted(keys, key=lambda item: footer_rank(item[0].action)):
            size = small if compact else cells
            if used + size <= width or footer_rank(binding.action) == 0:
                kept.add((binding.key, binding.action))
                used += size
        self.query_one(Footer).compact = compact
        if kept == getattr(self, "_footer_kept", None):
            return
        self._footer_kept = kept
        wanted = {(binding.key, binding.action) for binding, _, _ in keys}
        self.rebind(lambda binding: replace(binding, show=(binding.key, binding.action) in kept)
                    if (binding.key, binding.action) in wanted else binding)

    def _footer_keys(self) -> list[tuple[Binding, int, int]]:
        """The keys this step shows in its footer, each with the cells it takes in Textual's
        Footer: " key desc " a key, or "key desc " compact."""
        shown = {(key, action) for keys, action, _, show in self.KEYS if show for key in keys.split(",")}
        out = []
        # Textual leaves out a key this step hides right now (check_action: False): it takes no room.
        for node, binding, _enabled, _tooltip in self.active_bindings.values():
            if node is self and (binding.key, binding.action) in shown:
                cells = cell_len(self.app.get_key_display(binding)) + cell_len(binding.description)
                out.append((binding, cells + 3, cells + 2))
        return out

    def rebind(self, change: Callable[[Binding], Binding]) -> None:
        """Change this screen's keys as the footer shows them, without rebuilding the screen."""
        textual_workarounds.rebind(self, change)

    def relabel(self, action: str, desc: str) -> None:
        """Say in the footer what `action`'s key does now (Ctrl+N once the report is saved)."""
        text = asciify(ui(desc, self.lang)) if self.state.ascii_marks else ui(desc, self.lang)
        self.rebind(lambda binding: replace(binding, description=text)
                    if binding.action == action else binding)
        self._fit_footer()

    def _keep_question_in_view(self) -> None:
        """After a resize: when the question or the field being answered has left the view
        (a window made shorter turns the step into one scrolling page), bring them back."""
        question = self.query("#question")
        focused = self.focused
        wanted = [w for w in (question.first() if question else None, focused) if w is not None]
        if all(self._in_view(widget) for widget in wanted):
            return
        self._show_question()
        if focused is not None and focused.region.height <= 2 and not self._in_view(focused):
            focused.scroll_visible(animate=False, immediate=True)   # an input line, a button

    def _in_view(self, widget: Any) -> bool:
        try:
            geometry = self.find_widget(widget)
        except NoWidget:
            return False
        return geometry.clip.contains_region(geometry.region)

    def _show_question(self) -> None:
        """Start every step with its question in view.

        Focusing the answer scrolls it into view, which can push the question out of the top;
        on a short terminal the whole page scrolls, and it starts at the question (the guide
        is above it, one scroll away).
        """
        ask = self.query_one("#ask")
        if self.has_class("-short") and self.STEP in QUESTIONS:
            self.query_one("#body").scroll_to_widget(ask, animate=False, top=True)
        else:
            ask.scroll_home(animate=False)

    def guide(self, *pages: str) -> str:
        text = guide_page(self.lang, *pages)
        return asciify(text) if self.state.ascii_marks else text

    def title_text(self) -> str:
        app_name = t("guide.app_title", self.lang)
        title = self.step_title()
        if self.STEP in QUESTIONS:
            counter = t("guide.steps.step_counter", self.lang, number=QUESTIONS.index(self.STEP) + 1,
                        total=len(QUESTIONS))
            return f"{app_name} · {counter} · {title}"
        return f"{app_name} · {title}"

    def replay_banner(self) -> str | None:
        """One line on every step of a replay: whose machine this is, so nobody mistakes it."""
        replay = self.state.replay
        if replay is None:
            return None
        name = replay.path.name
        if not replay.is_report:
            return ui("replay.banner_machine", self.lang, file=name)
        if replay.created:
            return ui("replay.banner_dated", self.lang, file=name, created=replay.created)
        return ui("replay.banner", self.lang, file=name)

    def step_title(self) -> str:
        return t(f"guide.steps.{self.STEP}", self.lang)

    def compose_question(self) -> ComposeResult:
        yield from ()

    # ------------------------------------------------------------------ live checks ---

    def checks(self) -> list[Check]:
        return []

    # The App sets this to the state's live_version when a probe answers: the watcher
    # refreshes what depends on the probes.
    live_version: reactive[int] = reactive(0, init=False)

    def watch_live_version(self) -> None:
        self.live_changed()
        self._fit_footer()   # a key may have come or gone with what the probe found (Install)

    def live_changed(self) -> None:
        """A probe has answered; refresh what depends on it."""
        self.query_one("#checks", CheckPanel).show(self.checks())

    # ------------------------------------------------------------------ answers ---

    def collect(self) -> dict[str, Any] | None:
        """The answers this step adds; None when the input is not valid yet (stay here)."""
        return {}

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "back" and self.STEP == STEPS[0]:
            return False  # nothing before the first step: no "Back" in the footer
        # no guide on this step: no "G" in the footer
        return not (action == "guide" and not self.PAGES)

    def confirmed(self, direction: int) -> tuple[str, ...]:
        """Answers that count as given when leaving in `direction`."""
        return ()

    def action_next(self) -> None:
        changes = self.collect()
        if changes is not None:
            self.post_message(self.Navigate(+1, changes, self.confirmed(+1)))

    def keep(self) -> dict[str, Any]:
        """What to keep when leaving without Next (Back, language switch): nothing is lost."""
        return self.collect() or {}

    def action_back(self) -> None:
        self.post_message(self.Navigate(-1, self.keep(), self.confirmed(-1)))

    def action_guide(self) -> None:
        """The whole guide on a screen of its own; Esc comes back to this step as it was."""
        if not self.PAGES:
            return
        title = f"{t('guide.app_title', self.lang)} · {ui('reader.guide_title', self.lang, step=self.step_title())}"
        self.app.push_screen(ReaderScreen(self.lang, title, self.guide(*self.PAGES), link_terms=True,
                                          ascii_marks=self.state.ascii_marks))

    def action_word(self, term_id: str) -> None:
        """A linked term was clicked: its explanation on the Words page."""
        open_word(self, term_id, self.lang, self.state.ascii_marks)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.lang, self.STEP, ascii_marks=self.state.ascii_marks))

    def action_switch_language(self) -> None:
        self.post_message(self.SwitchLanguage(self.keep()))

    # One handler per button, by its id (a step's own buttons have theirs): Textual runs the
    # on_button_pressed of every class in the MRO, which made a shared one go two steps.
    @on(Button.Pressed, "#next")
    def _next_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_next()

    @on(Button.Pressed, "#back")
    def _back_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_back()

    def text(self, text: str) -> Wrapped:
        """Text for a widget: never markup (content may hold "[...]"), wrapped the way Chinese
        wraps (between characters; Textual wraps only at spaces), ASCII under LANG=C."""
        return Wrapped(Text(clip(shown_text(asciify(text) if self.state.ascii_marks else text))))

    def line(self, text: str) -> Content:
        """A one-line text (cut with … when too long), never markup."""
        return Content(shown_text(asciify(text) if self.state.ascii_marks else text))

    def note(self, widget_id: str, text: str, kind: str = "info") -> None:
        """Show a short message under the question (validation, detection)."""
        widget = self.query_one(f"#{widget_id}", Static)
        widget.update(self.text(text))
        widget.set_class(kind == "error", "-error")
        widget.set_class(kind == "ok", "-ok")
