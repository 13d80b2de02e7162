"""The terminal window the wizard is drawn in: too small to use, and toasts that fit it.

Under MIN_WIDTH×MIN_HEIGHT a step cannot show its question, its answer and the keys at once
(a 40×10 window still can, in both languages, with a replay's banner too): every screen is then
covered by one plain sentence saying how big to make the window, and uncovered as soon as it is.
The screens underneath stay as they are, so nothing typed or chosen is lost and the quit keys
still work.

Textual wraps a toast only at spaces, so a Chinese sentence jumps whole to the next line and
"按 Ctrl+Q" can end up split over two; `toast_text` wraps it the way Chinese wraps (between
characters), keeping words joined by a no-break space (U+00A0) on one line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual.geometry import Size
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from screens.markdown_lite import Wrapped
from wizard.text.i18n import t
from wizard.text.output import asciify, wrap_glued

if TYPE_CHECKING:
    from textual.app import App

MIN_WIDTH = 40
MIN_HEIGHT = 10



def too_small(size: Size) -> bool:
    return size.width < MIN_WIDTH or size.height < MIN_HEIGHT


class TooSmall(Static):
    """Covers a whole screen while the window is under the minimum size.

    What it covers is hidden too (not removed: focus, input and scroll positions stay): drawn
    underneath, a widget's edge would cut a Chinese character of the sentence in half.
    """

    SCOPED_CSS = False   # the rules for the screen it covers apply from its first use
    DEFAULT_CSS = """
    Screen.-too-small > * {
        visibility: hidden;
    }
    Screen.-too-small > TooSmall {
        visibility: visible;
    }
    TooSmall {
        overlay: screen;
        position: absolute;
        offset: 0 0;
        width: 100vw;
        height: 100vh;
        padding: 0 1;
        content-align: center middle;
        text-align: center;
        background: $background;
        color: $text;
    }
    """

    def __init__(self, message: Wrapped, focused: Widget | None) -> None:
        super().__init__(message, id="too-small")
        self.focus_after = focused   # focused before: hidden, it lost the focus; it gets it back


def _uncover(screen: Screen) -> None:
    for cover in screen.query_children(TooSmall):
        widget = cover.focus_after
        cover.remove()
        if widget is not None:
            def refocus(widget: Widget = widget) -> None:
                if screen.focused is None and widget.is_attached and widget.focusable:
                    screen.set_focus(widget)

            screen.call_after_refresh(refocus)


def too_small_text(lang: str, size: Size, ascii_marks: bool = False) -> str:
    text = t("ui.too_small", lang, width=MIN_WIDTH, height=MIN_HEIGHT,
             now_width=size.width, now_height=size.height)
    return asciify(text) if ascii_marks else text


def fit_window(app: App, size: Size | None = None) -> None:
    """Cover every screen while the window is too small; uncover them when it is not."""
    size = size or app.size
    small = too_small(size)
    lang = getattr(app, "lang", "en")
    message = Wrapped(Text(too_small_text(lang, size, getattr(app, "ascii_marks", False)),
                           justify="center"))
    for screen in app.screen_stack:
        covers = screen.query_children(TooSmall)
        screen.set_class(small, "-too-small")
        if not small:
            _uncover(screen)
        elif covers:
            covers.first().update(message)
        elif screen.is_mounted:
            screen.mount(TooSmall(message, screen.focused))
        else:  # still being composed: once it is on screen
            app.call_after_refresh(fit_window, app)


# ---------------------------------------------------------------------- toasts ---

def toast_width(screen_width: int) -> int:
    """The columns of text in a toast: Textual's toast is 60 wide at most, half the window,
    less its border and padding (one column spared, so that Textual never wraps it again)."""
    return max(10, min(60, (screen_width - 2) // 2) - 4)


def toast_text(text: str, screen_width: int) -> str:
    """`text` wrapped for a toast in a window `screen_width` wide."""
    return "\n".join(wrap_glued(text, toast_width(screen_width), cell_len))
