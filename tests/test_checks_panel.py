"""The checks box: ✗ first, then ⚠, then the facts; it scrolls inside its own border, by keyboard
too, and says when there is more below.

The acceptance case is a student's laptop with the CPU-only PyTorch on an RTX 4060
(tests/machines/laptop-4060.toml): on the NVIDIA step of an 80x24 terminal the ✗ that says so is on
screen without scrolling anything.
"""

from __future__ import annotations

import pytest
from textual.app import App

from screens.app import make_app
from screens.panels import Check, errors_first
from screens.widgets import CheckPanel
from tests.pilot import at_step, screen_rows, squeeze, until
from tests.recorded import machine
from wizard.diagnosis.diagnose import diagnose
from wizard.text.i18n import t

pytestmark = pytest.mark.usefixtures("quiet_terminal")




async def nvidia_step(pilot) -> CheckPanel:
    """Step 2, the NVIDIA question, as the App draws it."""
    await at_step(pilot, "welcome")
    pilot.app.goto(2)
    await at_step(pilot, "has_nvidia")
    return pilot.app.screen.query_one("#checks", CheckPanel)


def box_text(app, panel: CheckPanel) -> str:
    """The text drawn inside the box's border on screen (no border, padding or scroll bar),
    with the spaces wrapping adds taken out."""
    region = panel.scrollable_content_region
    rows = screen_rows(app)[region.y:region.bottom]
    return squeeze("".join(row[region.x:region.right] for row in rows))


# ------------------------------------------------------------------------ order ---

def test_errors_first_then_warnings_then_facts_keeping_their_order():
    checks = [Check("ok", "gpu"), Check("warning", "w1"), Check("info", "cpu"),
              Check("error", "e1"), Check("pending", "torch"), Check("warning", "w2"),
              Check("error", "e2"), Check("info", "size")]
    assert [c.text for c in errors_first(checks)] == [
        "e1", "e2", "w1", "w2", "gpu", "cpu", "torch", "size"]
    assert errors_first([]) == []
    facts = [Check("info", "a"), Check("ok", "b"), Check("pending", "c")]
    assert errors_first(facts) == facts   # nothing wrong: the order the step gave


class PanelApp(App):
    def __init__(self, checks, **kwargs):
        super().__init__()
        self.initial = checks
        self.kwargs = kwargs

    def compose(self):
        yield CheckPanel(self.initial, id="checks", **self.kwargs)


async def test_the_panel_draws_errors_first_and_keeps_sorting_on_updates():
    app = PanelApp([Check("ok", "driver fine"), Check("warning", "low RAM"),
                    Check("error", "CPU-only torch")])
    async with app.run_test(size=(60, 20)) as pilot:
        panel = app.query_one(CheckPanel)
        assert [c.kind for c in panel.checks] == ["error", "warning", "ok"]
        assert panel.plain.splitlines() == ["✗ CPU-only torch", "⚠ low RAM", "✓ driver fine"]
        lines = [line for line in screen_rows(app) if "torch" in line or "RAM" in line
                 or "driver" in line]
        assert ["torch" in lines[0], "RAM" in lines[1], "driver" in lines[2]] == [True] * 3

        panel.show([Check("info", "cpu"), Check("error", "nouveau"), Check("warning", "disk")])
        await pilot.pause()
        assert [c.text for c in panel.checks] == ["nouveau", "disk", "cpu"]


async def test_every_step_box_on_the_cpu_torch_laptop_starts_with_its_errors():
    app = make_app("en", machine=machine("laptop-4060"), ascii_marks=False)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = await nvidia_step(pilot)
        kinds = [c.kind for c in panel.checks]
        assert kinds.count("error") >= 2
        assert kinds == sorted(kinds, key=lambda k: {"error": 0, "warning": 1}.get(k, 2))


# ------------------------------------------------------------------- acceptance ---

@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_cpu_only_torch_error_is_in_view_on_the_nvidia_step_at_80x24(lang):
    recorded = machine("laptop-4060")
    finding = next(f for f in diagnose(recorded, lang) if f.severity == "error")
    app = make_app(lang, machine=recorded, ascii_marks=False)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = await nvidia_step(pilot)
        await pilot.pause(0.1)
        assert panel.scroll_y == 0 and app.screen.query_one("#body").scroll_y == 0
        assert [c.kind for c in panel.checks][:2] == ["error", "error"]
        assert any(c.text.startswith(finding.title) for c in panel.checks)

        # The box is on screen, above the Back/Next row, and its lines are drawn in it.
        screen = app.screen.region
        assert panel.region.y >= 0 and panel.region.bottom <= app.screen.query_one("#nav").region.y
        assert screen.contains_region(panel.region)
        assert squeeze(finding.title) in box_text(app, panel)
        # …with its ✗ on the row where the title starts.
        first_words = finding.title.split()[0]
        rows = [row for row in screen_rows(app) if first_words in row]
        assert rows and any("✗" in row for row in rows), rows


# ------------------------------------------------------------------ scrolling ---

async def test_a_cut_box_is_a_tab_stop_and_the_keys_scroll_it():
    app = make_app("en", machine=machine("laptop-4060"), ascii_marks=False)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = await nvidia_step(pilot)
        assert panel.max_scroll_y > 0
        assert app.focused is app.screen.query_one("#answer")
        unfocused_border = panel.styles.border_top[0]

        await pilot.press("tab")
        assert app.focused is panel
        await pilot.pause()
        # Focus shows without colour: another border, a reversed title.
        assert panel.styles.border_top[0] != unfocused_border
        assert "reverse" in str(panel.styles.border_title_style)

        await pilot.press("down")
        await until(pilot, lambda: panel.scroll_y >= 1, what="the box to scroll down")
        one = panel.scroll_y
        await pilot.press("pagedown")
        await until(pilot, lambda: panel.scroll_y > one, what="a page down")
        await pilot.press("pageup")
        await until(pilot, lambda: panel.scroll_y == 0, what="a page up")
        # The arrows scrolled the box, not the answer.
        assert app.screen.query_one("#answer").highlighted == 0


async def test_the_scroll_bar_is_the_boxs_own():
    app = make_app("en", machine=machine("laptop-4060"), ascii_marks=False)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = await nvidia_step(pilot)
        assert panel.show_vertical_scrollbar
        for outside in ("#ask", "#body"):
            widget = app.screen.query_one(outside)
            assert not (widget.show_vertical_scrollbar and widget.max_scroll_y > 0), outside
        # Drawn inside the border: the bar's column is left of the box's right edge.
        bar = panel.vertical_scrollbar.region
        assert panel.region.x < bar.x and bar.right < panel.region.right
        assert panel.region.y < bar.y and bar.bottom < panel.region.bottom


# ------------------------------------------------------------------ more below ---

@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_more_below_cue_while_cut_only(lang):
    app = make_app(lang, machine=machine("laptop-4060"), ascii_marks=False)
    more = t("ui.panel.more", lang)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = await nvidia_step(pilot)
        assert panel.max_scroll_y > 0
        assert panel.border_subtitle == more
        assert squeeze(more) in squeeze(screen_rows(app)[panel.region.bottom - 1])
        panel.scroll_end(animate=False)
        await until(pilot, lambda: panel.border_subtitle is None, what="the cue to go at the end")
        panel.scroll_home(animate=False)
        await until(pilot, lambda: panel.border_subtitle == more, what="the cue to come back")

    # The same step on a tall terminal: everything fits, no cue, no Tab stop.
    app = make_app(lang, machine=machine("laptop-4060"), ascii_marks=False)
    async with app.run_test(size=(120, 50)) as pilot:
        panel = await nvidia_step(pilot)
        assert panel.max_scroll_y == 0
        assert panel.border_subtitle is None
        assert squeeze(more) not in squeeze("".join(screen_rows(app)))
        assert not panel.focusable
        await pilot.press("tab")
        assert app.focused is not panel


async def test_more_below_cue_in_an_ascii_terminal():
    app = make_app("en", machine=machine("laptop-4060"), ascii_marks=True)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = await nvidia_step(pilot)
        cue = t("ui.panel.more_ascii", "en")
        assert cue.isascii()
        assert panel.border_subtitle == cue
        assert cue in screen_rows(app)[panel.region.bottom - 1]


async def test_a_box_that_fits_is_as_tall_as_its_lines():
    """Room the lines don't need goes to the guide, not to empty rows in the box."""
    app = make_app("en", machine=machine("laptop-4060"), ascii_marks=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_step(pilot, "welcome")
        app.goto(3)
        await at_step(pilot, "form_factor")
        panel = app.screen.query_one("#checks", CheckPanel)
        await pilot.pause(0.1)
        assert panel.max_scroll_y == 0 and panel.border_subtitle is None
        lines = panel.virtual_size.height
        assert panel.region.height == lines + 2     # the border, and the lines
        assert app.screen.query_one("#guide").region.height > 3
