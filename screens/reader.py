"""Reading a page whole: a step's guide (G) or the words explained (W in the help), each on
a screen of its own; and the guide pane of a step, which starts where the page's text starts.

Esc (or Q) goes back to what was below, untouched: the step keeps its answers because it is
still there, under this screen.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import Button, Static

from screens import markdown_lite
from screens.strings import guide_page
from screens.widgets import Guide, shown_text
from wizard.knowledge.content import ContentError
from wizard.text.glossary import terms
from wizard.text.i18n import t
from wizard.text.output import asciify


class GuidePane(VerticalScroll):
    """A step's guide pane. A short one starts at the page's first text, not at its date and
    a heading with nothing under it (markdown_lite.text_start); once the reader scrolls it,
    it stays where they put it."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._placed_at: float = 0.0   # where this pane put itself; elsewhere: the reader did

    def on_resize(self, event: Resize) -> None:
        self.call_after_refresh(self._start_at_text)

    def _start_at_text(self) -> None:
        if not self.is_mounted or self.scroll_y != self._placed_at:
            return
        guides = self.query(Guide)
        guide = guides.first() if guides else None  # first() raises NoMatches when there is none
        width = guide.content_size.width if guide is not None else 0
        if guide is None or width <= 0:
            return
        blocks = markdown_lite.layout(guide.markdown, width, self.app.console)
        row = markdown_lite.text_start(blocks, self.scrollable_content_region.height)
        self.scroll_to(y=row, animate=False, immediate=True)
        self._placed_at = self.scroll_y


class ReaderScreen(Screen[None]):
    """A page on the whole screen: ↑/↓, PgUp/PgDn, Home/End scroll it; Esc or Q closes it."""

    BINDINGS = [Binding("escape,q", "close", show=False)]
    AUTO_FOCUS = "#reader-body"

    def __init__(self, lang: str, title: str, markdown: str, *, ascii_marks: bool = False,
                 link_terms: bool = False, section: int | None = None) -> None:
        super().__init__()
        self.lang = lang
        self.title_line = title
        self.markdown = markdown
        self.ascii_marks = ascii_marks
        self.link_terms = link_terms   # a guide page links its terms; the Words page does not
        self.section = section         # open at this "##" section (counted from 0)

    def _plain(self, text: str) -> str:
        return shown_text(asciify(text) if self.ascii_marks else text)

    def compose(self) -> ComposeResult:
        yield Static(Content(self._plain(self.title_line)), id="step-title")
        with VerticalScroll(id="reader-body", can_focus=True):
            yield Guide(asciify(self.markdown) if self.ascii_marks else self.markdown,
                        ascii_text=self.ascii_marks, terms_lang=self.lang if self.link_terms else None)
        with Horizontal(id="reader-nav"):
            yield Static(Content(self._plain(t("ui.reader.hint", self.lang))), id="reader-hint")
            yield Button(t("guide.buttons.close", self.lang), id="reader-close", compact=True)

    def on_mount(self) -> None:
        if self.section is not None:
            self.call_after_refresh(self._show_section)

    def _show_section(self) -> None:
        body = self.query_one("#reader-body", VerticalScroll)
        guide = body.query_one(Guide)
        width = guide.content_size.width
        if width <= 0:
            return
        headings = [block for block in markdown_lite.layout(guide.markdown, width, self.app.console)
                    if block.kind == "heading"]
        if self.section is not None and self.section < len(headings):
            body.scroll_to(y=headings[self.section].top, animate=False, immediate=True)

    def action_word(self, term_id: str) -> None:
        open_word(self, term_id, self.lang, self.ascii_marks)

    def action_close(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)


def words_page(lang: str) -> str:
    """The words explained (content/<lang>/words.md), without its title: the screen has it."""
    return guide_page(lang, "words")


def words_screen(lang: str, ascii_marks: bool = False, section: int | None = None) -> ReaderScreen:
    title = f"{t('guide.app_title', lang)} · {t('ui.reader.words_title', lang)}"
    return ReaderScreen(lang, title, words_page(lang), ascii_marks=ascii_marks, section=section)


def open_word(screen: Screen, term_id: str, lang: str, ascii_marks: bool) -> None:
    """The Words page over `screen`, at the explanation of `term_id` (a linked term's click)."""
    try:
        section = next((term.section for term in terms(lang) if term.id == term_id), None)
    except ContentError:
        section = None
    screen.app.push_screen(words_screen(lang, ascii_marks, section))
