"""The wizard in the smallest window it supports, 40×12, item by item: what is on screen and
what has focus (the 80×24 versions are in test_checks_panel, test_app_keys, test_app_flow
and test_guide_and_words).
"""

from __future__ import annotations

import pytest
from textual.widgets import Footer

from screens.app import make_app
from screens.reader import ReaderScreen
from screens.step import STEPS
from screens.widgets import CheckPanel, Guide
from tests.pilot import Told, at_step, open_at, save, squeeze, until
from tests.pilot import screen_rows as screen_text
from tests.recorded import machine
from tests.test_app_keys import footer_text, in_view, quits
from wizard.text.i18n import t

SMALL = (40, 12)


pytestmark = pytest.mark.usefixtures("quiet_terminal")


async def goto(pilot, step: str) -> None:
    await at_step(pilot, "welcome")
    pilot.app.goto(STEPS.index(step))
    await at_step(pilot, step)


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_errors_first_and_the_box_is_reached_by_tab(lang):
    app = make_app(lang, machine=machine("laptop-4060"), ascii_marks=False)
    async with app.run_test(size=SMALL) as pilot:
        await goto(pilot, "has_nvidia")
        box = app.screen.query_one("#checks", CheckPanel)
        assert box.checks[0].kind == "error"
        for _ in range(8):                      # Tab until the box has focus
            if app.focused is box:
                break
            await pilot.press("tab")
        assert app.focused is box
        await pilot.pause(0.1)
        assert box.region.overlaps(app.screen.region)    # focus brought it into view
        rows = screen_text(app)
        top = box.region.y
        inside = rows[max(0, top): top + box.region.height]
        marks = [row for row in inside if "✗" in row or "⚠" in row or "✓" in row]
        assert marks and "✗" in marks[0], rows     # the first mark drawn in the box is an error


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_the_whole_guide_opens_and_esc_returns_with_focus(lang):
    app = make_app(lang, machine=machine("laptop-4060"))
    async with app.run_test(size=SMALL) as pilot:
        await goto(pilot, "need_gpu")
        step, focused = app.screen, app.focused
        await pilot.press("g")
        await until(pilot, lambda: isinstance(app.screen, ReaderScreen), what="the guide")
        await pilot.pause(0.1)
        assert app.focused is app.screen.query_one("#reader-body")
        assert squeeze(t("ui.reader.hint", lang))[:6] in squeeze("".join(screen_text(app)))
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is step, what="the step")
        assert app.focused is focused


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_the_result_opens_at_the_verdict_and_holds_the_whole_command(lang, tmp_path):
    app = make_app(lang, machine=machine("laptop-4060"), report_path=tmp_path / "r.toml")
    async with app.run_test(size=SMALL) as pilot:
        await open_at(pilot, "result")
        await until(pilot, lambda: bool(app.screen.query("#verdict")), what="the advice")
        await pilot.pause(0.1)
        verdict = app.screen.query_one("#verdict")
        assert in_view(app, verdict)
        command = app.state.outcome().recommendation.torch_command
        assert command
        page = squeeze("".join(s.text for s in app.screen.query_one("#result").render_lines(
            app.screen.query_one("#result").region.reset_offset)))
        drawn = squeeze("".join(
            strip.text for widget in app.screen.query("#result > *")
            for strip in widget.render_lines(widget.region.reset_offset)))
        assert squeeze(command) in drawn or squeeze(command) in page   # wrapped, but whole


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_help_opens_and_the_same_keys_close_it(lang):
    app = make_app(lang, machine=machine("laptop-4060"))
    async with app.run_test(size=SMALL) as pilot:
        await goto(pilot, "form_factor")
        for opener, closer in [("f1", "f1"), ("question_mark", "question_mark"), ("f1", "escape")]:
            await pilot.press(opener)
            await until(pilot, lambda: type(app.screen).__name__ == "HelpScreen", what="help")
            await pilot.press(closer)
            await at_step(pilot, "form_factor")


async def test_back_on_the_budget_step_goes_one_step_and_the_footer_keeps_its_keys():
    app = make_app("en", machine=machine("desktop-1080ti"))
    async with app.run_test(size=SMALL) as pilot:
        await goto(pilot, "budget")
        footer = footer_text(app)
        assert "^n" in footer and "f1" in footer, footer
        await pilot.click("#back")
        await at_step(pilot, "form_factor")


async def test_after_saving_the_footer_says_finish(tmp_path):
    app = make_app("en", machine=machine("desktop-1080ti"), report_path=tmp_path / "r.toml")
    async with app.run_test(size=SMALL) as pilot:
        await open_at(pilot, "result", budget="900")
        await save(pilot)
        await pilot.pause(0.1)
        assert in_view(app, app.screen.query_one(Footer))
        assert t("ui.keys.finish", "en") in footer_text(app), footer_text(app)


async def test_q_quits_on_a_step_without_a_text_field():
    app = make_app("en", machine=machine("desktop-1080ti"))
    async with app.run_test(size=SMALL) as pilot:
        await goto(pilot, "goal")
        await pilot.press("q")
        await quits(pilot)
    assert app.state.saved_path is None


async def test_ctrl_c_says_how_to_quit_within_the_window():
    app = make_app("zh", machine=machine("desktop-1080ti"))
    told = Told(app)
    async with app.run_test(size=SMALL) as pilot:
        await goto(pilot, "need_gpu")
        await pilot.press("ctrl+c")
        await pilot.pause(0.2)
        toast = told.messages[-1]
        assert all(len(line) <= 40 for line in toast.splitlines())
        assert any("Ctrl+Q" in line for line in toast.splitlines())


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_a_term_is_linked_in_the_guide_pane(lang):
    app = make_app(lang, machine=machine("laptop-4060"))
    async with app.run_test(size=SMALL) as pilot:
        await goto(pilot, "has_nvidia")
        guide = app.screen.query_one("#guide Guide", Guide)
        assert guide.linked, "no term linked"
        assert len(guide.linked) == len(set(guide.linked))


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("width", [40, 60, 80, 100])
async def test_the_footer_shows_whole_keys_only(lang, width, tmp_path):
    """Every key the footer shows is drawn whole (none cut at the window's edge); Back, Next
    and Help are always there, and Quit too from 80 columns."""
    app = make_app(lang, machine=machine("laptop-4060"), report_path=tmp_path / "r.toml")
    async with app.run_test(size=(width, 24)) as pilot:
        await open_at(pilot, "result")
        for step in ("result", "goal", "welcome"):
            app.goto(STEPS.index(step))
            await at_step(pilot, step)
            await pilot.pause(0.1)
            footer = footer_text(app)
            shown = [b for b in app.screen.active_bindings.values() if b.binding.show]
            for active in shown:
                assert active.binding.description in footer, (step, active.binding.description, footer)
            actions = {active.binding.action for active in shown}
            assert {"back", "next", "help"} & actions or step == "welcome", (step, footer)
            if width >= 80:
                assert "app.quit" in actions, (step, footer)
