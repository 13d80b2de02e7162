"""Small widgets the steps share: the live-check panel and the answer list."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.highlighter import Highlighter
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.color import Color, ColorParseError
from textual.containers import ScrollableContainer
from textual.content import Content
from textual.css.scalar import Scalar
from textual.errors import NoWidget
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from screens import markdown_lite
from screens.markdown_lite import Wrapped
from screens.panels import Check, errors_first
from screens.textual_workarounds import footer_bindings_ready
from wizard.knowledge.content import ContentError
from wizard.text.glossary import first_uses
from wizard.text.output import ASCII_MARKS, MARKS, asciify, has_hidden, shown

if TYPE_CHECKING:
    from textual.timer import Timer

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
ASCII_SPINNER = "|/-\\"
# The marks' colours; a fact's "•" (info) keeps the colour of its text.
STYLES = {"ok": "$text-success", "warning": "$text-warning", "error": "$text-error",
          "pending": "$text-accent"}


class KeysFooter(Footer):
    """Textual's Footer, rebuilt only when the keys it shows change.

    Textual's rebuilds itself (a widget per key, each styled anew) on every change of the
    screen's bindings, even one that shows the same keys, and a step's bindings are refreshed
    each time a probe answers. With Textual's own, the longest event-loop stall while the
    probes run was twice as long: median of 12 runs 105 ms against 53 ms, the event loop's own
    work in it 33 ms against 19 ms (target ≤ 50 ms; benchmarks tui on a busy 2-core VM,
    2026-12-04).
    """

    _shown: tuple | None = None   # what the keys said when they were last built

    def _showing(self) -> tuple:
        keys = tuple((binding.key, binding.key_display, binding.description, binding.action,
                      binding.show, binding.group, enabled, tooltip)
                     for _, binding, enabled, tooltip in self.screen.active_bindings.values())
        return self.show_command_palette, keys

    def compose(self) -> ComposeResult:
        # Recorded as the keys are built, not when the rebuild was asked for: bindings that
        # change meanwhile are what a later rebuild compares with.
        self._shown = self._showing() if footer_bindings_ready(self) else None
        yield from super().compose()

    async def recompose(self) -> None:
        if self.is_attached and footer_bindings_ready(self) and self._showing() == self._shown:
            return
        await super().recompose()


class Guide(Static):
    """A guide page from content/ (Markdown), drawn by screens.markdown_lite in one widget.

    Not Textual's Markdown widget: it builds one child widget per paragraph and list item,
    which made every step ~100 ms slower to appear; see markdown_lite for why not Rich's.
    """

    DEFAULT_CSS = """
    Guide { height: auto; padding: 0 1; }
    """

    def __init__(self, markdown: str, *, ascii_text: bool = False, terms_lang: str | None = None,
                 **kwargs):
        super().__init__(**kwargs)
        self.markdown = markdown
        self.ascii_text = ascii_text
        # With a language: the first use of each glossary term links to the Words page
        # (a click runs the screen's `word` action with the term's id).
        self.terms_lang = terms_lang
        self.linked: list[str] = []   # the terms linked, in page order

    def on_mount(self) -> None:
        accent = _theme_color(self, "text-accent")
        styles = markdown_lite.Styles(ascii_only=self.ascii_text)
        if accent is not None:
            styles.code = Style(color=accent, bold=True)
        if self.terms_lang is not None:
            styles.prose = self._link_terms
        self.linked = []
        self.update(markdown_lite.render(self.markdown, styles))

    def _link_terms(self, text: Text) -> None:
        try:
            hits = first_uses(text.plain, self.terms_lang or "en", set(self.linked))
        except ContentError:   # a damaged glossary: no links (the App has said which file)
            return
        for start, end, term in hits:
            self.linked.append(term.id)
            text.stylize(Style(underline=True, meta={"@click": f"screen.word({term.id!r})"}),
                         start, end)


def _theme_color(widget: Widget, variable: str):
    """A theme colour as a Rich colour, for Rich renderables drawn inside Textual."""
    value = widget.app.get_css_variables().get(variable)
    if not value:
        return None
    try:
        return Color.parse(value).rich_color
    except ColorParseError:
        return None


# A replayed report's own text may run to 10,000 characters: the screen shows the start of it
# (the file keeps it all), so a hostile file cannot make every frame wrap pages of text.
MAX_SHOWN_CHARS = 600


def shown_text(text: str) -> str:
    """Text bound for the screen with no control character left in it: a file name, a probe's
    message or a replayed report can carry escape sequences, and the last line of defence is
    here, where everything is drawn. An interpreter's path arrives as it is (it is run), so a byte
    of it that is not UTF-8 is mended here too: the terminal is written UTF-8."""
    return shown(text)


class VisibleText(Highlighter):
    """For an Input whose value comes from outside (a path made of the user's folder names):
    every hidden character is drawn as U+FFFD, one for one, so the cursor still lines up, while
    the value itself stays exactly what it is (the report is saved under that very path)."""

    def highlight(self, text: Text) -> None:
        if has_hidden(text.plain):
            text.plain = "".join("\ufffd" if has_hidden(ch) else ch for ch in text.plain)


def clip(text: str) -> str:
    return text if len(text) <= MAX_SHOWN_CHARS else text[:MAX_SHOWN_CHARS - 1] + "…"


class Bullets(Static):
    """Lines with a mark in front and a hanging indent, so wrapped lines stay aligned.

    One widget drawing a two-column grid, not a widget per line: the panels are rebuilt on
    every probe result and spinner frame, and each Textual widget costs layout time.
    """

    DEFAULT_CSS = """
    Bullets { height: auto; }
    """

    def __init__(self, items: Iterable[tuple[str, str]] = (), *, ascii_text: bool = False,
                 **kwargs):
        super().__init__(**kwargs)
        self.ascii_text = ascii_text
        self._items = [self._clean(mark, text) for mark, text in items]

    def _clean(self, mark: str, text: str) -> tuple[str, str]:
        text = clip(shown_text(text))
        return (asciify(mark), asciify(text)) if self.ascii_text else (mark, text)

    def on_mount(self) -> None:
        self._draw()

    def set_items(self, items: Iterable[tuple[str, str]]) -> None:
        self._items = [self._clean(mark, text) for mark, text in items]
        self._draw()

    @property
    def plain(self) -> str:
        return "\n".join(f"{mark} {text}" for mark, text in self._items)

    def mark_style(self, index: int) -> Style | None:
        return None

    def _draw(self) -> None:
        grid = Table.grid(padding=(0, 1, 0, 0), expand=True)
        width = max((cell_len(mark) for mark, _ in self._items), default=1)
        grid.add_column(width=width, no_wrap=True)
        grid.add_column(ratio=1, overflow="fold")
        for index, (mark, text) in enumerate(self._items):
            # Text, not markup: probe messages and paths may hold "[...]".
            grid.add_row(Text(mark, style=self.mark_style(index) or ""), Wrapped(Text(text)))
        self.update(grid)


class _CheckLines(Bullets):
    """The lines inside a CheckPanel; each mark takes its colour from the panel's checks."""

    def __init__(self, panel: CheckPanel, items: Iterable[tuple[str, str]], **kwargs):
        super().__init__(items, **kwargs)
        self.panel = panel

    def mark_style(self, index: int) -> Style | None:
        return self.panel.mark_style(index)


class CheckPanel(ScrollableContainer):
    """The live checks of a step: ✓/⚠/✗ lines, with a spinner on the ones still running.

    ✗ lines come first, then ⚠, then the facts (screens.panels.errors_first). The box is never
    taller than its lines; given less room than that (the step's CSS), it scrolls inside its
    border, takes focus (Tab, then ↑ ↓ PgUp PgDn) and says there is more below (`more`).
    """

    # The marks' colours, as component classes: Textual resolves them once per theme, not on
    # every spinner frame.
    COMPONENT_CLASSES = {f"check-panel--{kind}" for kind in STYLES}
    DEFAULT_CSS = """
    CheckPanel {
        width: 1fr;
        height: auto;
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-size-vertical: 1;
    }
    """ + "".join(f"CheckPanel > .check-panel--{kind} {{ color: {variable}; text-style: bold; }}\n"
                  for kind, variable in STYLES.items())

    def __init__(self, checks: Iterable[Check] = (), *, ascii_marks: bool = False,
                 more: str = "", **kwargs):
        self.ascii_marks = ascii_marks
        self.more = more  # the cue on the bottom border while lines are cut off below
        self._checks: list[Check] = errors_first(checks)
        self._frame = 0
        self._timer: Timer | None = None
        self._cue = ""
        self._lines = _CheckLines(self, self._pairs(), ascii_text=ascii_marks)
        super().__init__(self._lines, **kwargs)

    def on_mount(self) -> None:
        self._timer = self.set_interval(0.12, self._spin, pause=True)
        self._update_timer()
        self.watch(self, "scroll_y", self._show_cue, init=False)

    def on_resize(self) -> None:
        self._fit()
        self._show_cue()

    def _fit(self) -> None:
        """Never taller than the lines: a box given more rows (height in fr) stops at its last
        line, and the rows it leaves go to the guide above it."""
        width = self.outer_size.width - self.styles.gutter.width
        if width <= 0:
            return
        height = self._lines.get_content_height(self.size, self.app.size, width)
        height += self.styles.gutter.height
        if self.styles.max_height != Scalar.from_number(height):
            self.styles.max_height = height

    @property
    def cut(self) -> bool:
        """Whether lines are hidden below the bottom of the box."""
        return round(self.scroll_y) < self.max_scroll_y

    def _show_cue(self) -> None:
        cue = self.more if self.cut else ""
        if cue != self._cue:
            self._cue = cue
            self.border_subtitle = Content(cue) if cue else None

    def allow_focus(self) -> bool:
        # A Tab stop only while there is something to bring into view: lines below its own
        # border, or the box itself below the fold of a small window (40×12), where focus
        # scrolls the step to it.
        if not super().allow_focus():
            return False
        if self.max_scroll_y > 0:
            return True
        try:
            geometry = self.screen.find_widget(self)
        except NoWidget:   # scrolled wholly out of view
            return self.is_mounted and self.display
        return not geometry.clip.contains_region(geometry.region)

    def show(self, checks: Iterable[Check]) -> None:
        checks = errors_first(checks)
        if checks != self._checks:
            self._checks = checks
            self._lines.set_items(self._pairs())
        self._update_timer()

    def _update_timer(self) -> None:
        if self._timer is not None:
            # The timer only runs while something is pending: an idle panel costs nothing.
            if any(c.kind == "pending" for c in self._checks):
                self._timer.resume()
            else:
                self._timer.pause()

    @property
    def checks(self) -> list[Check]:
        """The checks in the order shown."""
        return list(self._checks)

    @property
    def plain(self) -> str:
        return self._lines.plain

    def _pairs(self) -> list[tuple[str, str]]:
        return [(self._mark(c.kind), c.text) for c in self._checks]

    def _spin(self) -> None:
        self._frame += 1
        self._lines.set_items(self._pairs())

    def _mark(self, kind: str) -> str:
        if kind == "pending":
            frames = ASCII_SPINNER if self.ascii_marks else SPINNER
            return frames[self._frame % len(frames)]
        return (ASCII_MARKS if self.ascii_marks else MARKS).get(kind, "?")

    def mark_style(self, index: int) -> Style | None:
        if index >= len(self._checks):
            return None
        kind = self._checks[index].kind
        if kind not in STYLES:
            return None
        return self.get_component_rich_style(f"check-panel--{kind}", partial=True)


class Choices(OptionList):
    """The answers of a question. The current answer is marked; Enter or a click picks one."""

    class Picked(Message):
        def __init__(self, choices: Choices, value: str) -> None:
            super().__init__()
            self.choices = choices
            self.value = value

    def __init__(self, options: list[tuple[str, str]], current: str | None, *,
                 ascii_marks: bool = False, **kwargs):
        self.values = [value for value, _ in options]
        self.labels = dict(options)
        self.ascii_marks = ascii_marks
        self.current = current
        super().__init__(*self._build_options(), **kwargs)

    def _build_options(self) -> list[Option]:
        on, off = ("(*)", "( )") if self.ascii_marks else ("●", "○")
        label = asciify if self.ascii_marks else str
        return [Option(Content(f"{on if v == self.current else off} {label(self.labels[v])}"), id=v)
                for v in self.values]

    def on_mount(self) -> None:
        self._highlight_current()

    def _highlight_current(self) -> None:
        if self.current in self.values:
            self.highlighted = self.values.index(self.current)
        elif self.values:
            self.highlighted = 0

    def set_current(self, value: str | None, move_highlight: bool = True) -> None:
        self.current = value
        keep = self.highlighted
        self.clear_options()
        self.add_options(self._build_options())
        if move_highlight:
            self._highlight_current()
        elif keep is not None:
            self.highlighted = keep

    @property
    def highlighted_value(self) -> str | None:
        if self.highlighted is None:
            return None
        return self.values[self.highlighted]

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        value = event.option.id
        if value is not None:
            self.set_current(value)
            self.post_message(self.Picked(self, value))
