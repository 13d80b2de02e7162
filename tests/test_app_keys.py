"""Keys as people press them in terminal programs: Back one step at a time, Q/Esc/Ctrl+C to
quit, F1 and ? for help, what Ctrl+N does after saving, and a window resized under the wizard.

Driven with Textual's Pilot over recorded machines, like tests/test_app_flow.py.
"""

from __future__ import annotations

import pytest
from rich.cells import cell_len
from textual.widgets import Footer, Input
from textual.widgets.input import Selection

from screens.app import exit_summary, make_app
from screens.step import STEPS
from screens.window import MIN_HEIGHT, MIN_WIDTH, TooSmall, toast_width, wrap_glued
from tests.pilot import Told, at_step, open_at, save, screen_rows, type_budget, until
from tests.recorded import machine
from wizard.text.i18n import t

pytestmark = pytest.mark.usefixtures("quiet_terminal")


def footer_text(app) -> str:
    return screen_rows(app)[-1]


def in_view(app, widget) -> bool:
    """Wholly drawn: inside the screen and not scrolled out of its container."""
    geometry = app.screen.find_widget(widget)
    return geometry.clip.contains_region(geometry.region) and app.screen.region.contains_region(geometry.region)


async def quits(pilot) -> None:
    await until(pilot, lambda: pilot.app.return_code is not None or not pilot.app.is_running,
                what="the wizard to quit")


# ------------------------------------------------------------------------ Back ---

@pytest.mark.parametrize("index", range(1, len(STEPS)))
async def test_the_back_button_goes_exactly_one_step_back(tmp_path, index):
    app = make_app("en", machine=machine("laptop-4060"), report_path=tmp_path / "r.toml")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_step(pilot, "welcome")
        app.goto(index)
        await at_step(pilot, STEPS[index])
        await pilot.click("#back")
        await at_step(pilot, STEPS[index - 1])
        await pilot.pause(0.2)      # a second Navigate would have arrived by now
        assert app.step == STEPS[index - 1]
    assert list(tmp_path.iterdir()) == []


async def test_the_next_button_on_the_budget_step_goes_one_step_on():
    app = make_app("en", machine=machine("laptop-4060"))
    async with app.run_test(size=(80, 24)) as pilot:
        await at_step(pilot, "welcome")
        app.goto(STEPS.index("budget"))
        await type_budget(pilot, "900")
        await pilot.click("#next")
        await at_step(pilot, "goal")
        await pilot.pause(0.2)
        assert app.step == "goal"
    assert app.state.session.answers.budget_amount == 900


async def test_the_save_button_saves_and_waits_for_finish(tmp_path):
    app = make_app("en", machine=machine("laptop-4060"), report_path=tmp_path / "r.toml")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_step(pilot, "welcome")
        app.goto(STEPS.index("save"))
        await at_step(pilot, "save")
        await pilot.click("#next")
        await until(pilot, lambda: app.state.saved_path is not None, what="the save")
        await pilot.pause(0.2)
        assert app.is_running and app.return_value is None   # saving is not finishing
        await pilot.click("#next")
        await quits(pilot)
    assert app.return_value == 0
    assert (tmp_path / "r.toml").exists()


# ------------------------------------------------------------------- after saving ---

@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_after_saving_ctrl_n_says_finish(tmp_path, lang):
    app = make_app(lang, machine=machine("h200-server"), report_path=tmp_path / "r.toml")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_at(pilot, "result")
        await pilot.press("ctrl+n")
        await at_step(pilot, "save")
        assert app.screen.active_bindings["ctrl+n"].binding.description == t("ui.keys.save", lang)
        await pilot.press("enter")
        await until(pilot, lambda: app.state.saved_path is not None, what="the save")
        await pilot.pause()
        finish = t("ui.keys.finish", lang)
        assert app.screen.active_bindings["ctrl+n"].binding.description == finish
        assert f"^n {finish}" in footer_text(app)
        assert t("ui.keys.save", lang) not in footer_text(app)
        # Back and on again: the step remembers the report is saved.
        await pilot.press("escape")
        await at_step(pilot, "result")
        await pilot.press("ctrl+n")
        await at_step(pilot, "save")
        await pilot.pause()
        assert f"^n {finish}" in footer_text(app)
        await pilot.press("ctrl+n")
        await quits(pilot)
    assert app.return_value == 0


# ------------------------------------------------------------------------- Ctrl+C ---

@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_ctrl_c_says_how_to_quit_and_that_nothing_is_saved_yet(tmp_path, lang):
    app = make_app(lang, machine=machine("laptop-4060"), report_path=tmp_path / "r.toml")
    told = Told(app)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await at_step(pilot, "welcome")
        app.goto(1)
        await at_step(pilot, "need_gpu")
        await pilot.press("ctrl+c")
        await pilot.pause(0.2)
        assert app.is_running
        (message,) = told.messages
        assert "Ctrl+Q" in message and "Ctrl+C" in message
        flat = message.replace("\n", "")
        assert (t("ui.quit_hint", lang).replace("\u00a0", " ") == flat if lang == "zh"
                else "Nothing is saved" in message.replace("\n", " "))
        rows = screen_rows(app)
        key = "按 Ctrl+Q" if lang == "zh" else "Ctrl+Q"
        assert any(key in row for row in rows), rows   # drawn on one row, not split
        assert any(key in line for line in message.splitlines())
        # Wrapped to fit the toast: Textual draws each line as it is, never breaking it again.
        for line in message.splitlines():
            assert cell_len(line) <= toast_width(80)
            assert any(line in row for row in rows), (line, rows)


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_ctrl_c_after_saving_says_where_the_report_is(tmp_path, lang):
    app = make_app(lang, machine=machine("h200-server"), report_path=tmp_path / "r.toml")
    told = Told(app)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await open_at(pilot, "result")
        path = await save(pilot)
        app.clear_notifications()
        told.clear()
        await pilot.press("ctrl+c")
        await pilot.pause(0.2)
        (message,) = told.messages
        flat = message.replace("\n", "" if lang == "zh" else " ")
        assert str(path).replace("\n", "") in message.replace("\n", "")
        assert t("ui.quit_hint_saved", lang, path=path).replace("\u00a0", " ").replace(" ", "") \
            == flat.replace(" ", "")
        assert "Nothing" not in message and "只有在最后一步" not in message
        rows = screen_rows(app)
        assert any(("按 Ctrl+Q" if lang == "zh" else "Ctrl+Q") in row for row in rows), rows


async def test_ctrl_c_twice_within_two_seconds_quits_and_saves_nothing(tmp_path):
    app = make_app("en", machine=machine("laptop-4060"), cwd=tmp_path, report_path=tmp_path / "r.toml")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_step(pilot, "welcome")
        app.goto(3)
        await at_step(pilot, "form_factor")
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.is_running
        await pilot.press("ctrl+c")
        await quits(pilot)
    assert list(tmp_path.iterdir()) == []
    assert exit_summary(app).startswith(t("ui.exit.not_saved", "en"))


async def test_ctrl_c_again_after_two_seconds_only_says_it_again():
    app = make_app("en", machine=machine("laptop-4060"))
    told = Told(app)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await at_step(pilot, "welcome")
        await pilot.press("ctrl+c")
        await pilot.pause()
        app._ctrl_c_at -= app.CTRL_C_AGAIN_S + 0.5   # as if 2.5 s had passed
        await pilot.press("ctrl+c")
        await pilot.pause(0.2)
        assert app.is_running
        assert len(told.messages) == 2


async def test_ctrl_c_with_text_selected_copies_and_does_not_count_as_a_first_press():
    app = make_app("en", machine=machine("laptop-4060"))
    told = Told(app)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await at_step(pilot, "welcome")
        app.goto(STEPS.index("budget"))
        await type_budget(pilot, "4500")
        field = app.screen.query_one("#amount", Input)
        field.selection = Selection(0, 4)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.clipboard == "4500"
        assert told.messages == [] and app._ctrl_c_at is None
        field.selection = Selection.cursor(4)      # nothing selected: now it is the quit hint
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.is_running and len(told.messages) == 1


# --------------------------------------------------------------------- Q, Esc, ? ---

@pytest.mark.parametrize("step", ["welcome", "need_gpu", "has_nvidia", "form_factor", "goal", "result"])
async def test_q_quits_where_no_text_field_has_focus_and_saves_nothing(tmp_path, step):
    app = make_app("en", machine=machine("laptop-4060"), cwd=tmp_path, report_path=tmp_path / "r.toml")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_step(pilot, "welcome")
        app.goto(STEPS.index(step))
        await at_step(pilot, step)
        assert not isinstance(app.focused, Input)
        await pilot.press("q")
        await quits(pilot)
    assert list(tmp_path.iterdir()) == []
    assert exit_summary(app).startswith(t("ui.exit.not_saved", "en"))


async def test_q_quits_the_save_step_once_saved(tmp_path):
    app = make_app("en", machine=machine("h200-server"), report_path=tmp_path / "r.toml")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_at(pilot, "result")
        path = await save(pilot)
        await pilot.press("q")
        await quits(pilot)
    assert exit_summary(app).startswith(t("ui.exit.saved", "en", path=path))


@pytest.mark.parametrize("step, field", [("budget", "#amount"), ("save", "#path")])
async def test_q_and_question_mark_are_typed_into_a_text_field(tmp_path, step, field):
    app = make_app("en", machine=machine("laptop-4060"), report_path=tmp_path / "r.toml")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_step(pilot, "welcome")
        app.goto(STEPS.index(step))
        await at_step(pilot, step)
        box = app.screen.query_one(field, Input)
        assert app.focused is box
        before = box.value
        box.cursor_position = len(before)
        await pilot.press("q", "question_mark")
        await pilot.pause()
        assert box.value == before + "q?"
        assert app.is_running and app.step == step
        assert type(app.screen).__name__ != "HelpScreen"
    assert list(tmp_path.iterdir()) == []


async def test_escape_on_the_welcome_screen_quits():
    app = make_app("zh", machine=machine("laptop-4060"))
    async with app.run_test(size=(80, 24)) as pilot:
        await at_step(pilot, "welcome")
        await pilot.press("escape")
        await quits(pilot)
    assert exit_summary(app).startswith(t("ui.exit.not_saved", "zh"))


@pytest.mark.parametrize("key", ["f1", "question_mark"])
async def test_f1_and_question_mark_open_the_help(key):
    app = make_app("en", machine=machine("laptop-4060"))
    async with app.run_test(size=(80, 24)) as pilot:
        await at_step(pilot, "welcome")
        app.goto(2)
        await at_step(pilot, "has_nvidia")
        await pilot.press(key)
        await until(pilot, lambda: type(app.screen).__name__ == "HelpScreen", what="help")
        assert app.screen.step == "has_nvidia"
        await pilot.press("escape")
        await at_step(pilot, "has_nvidia")


# ----------------------------------------------------------------------- resizing ---

@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("step", ["need_gpu", "budget", "goal", "save"])
async def test_a_smaller_window_keeps_the_question_the_answer_and_the_footer_in_view(tmp_path, lang, step):
    app = make_app(lang, machine=machine("desktop-1080ti"), report_path=tmp_path / "r.toml")
    async with app.run_test(size=(100, 30)) as pilot:
        await at_step(pilot, "welcome")
        app.goto(STEPS.index(step))
        await at_step(pilot, step)
        for width, height in [(80, 24), (MIN_WIDTH, 12), (MIN_WIDTH, MIN_HEIGHT), (120, 40)]:
            await pilot.resize_terminal(width, height)
            await pilot.pause(0.1)
            screen = app.screen
            assert not screen.query(TooSmall)
            assert in_view(app, screen.query_one("#question")), (width, height)
            focused = app.focused
            if isinstance(focused, Input):
                assert in_view(app, focused), (width, height)
            assert in_view(app, screen.query_one(Footer))
            footer = footer_text(app)
            assert "^n" in footer and "f1" in footer, footer   # the main keys are not cut off
            assert in_view(app, screen.query_one("#next"))


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_under_the_minimum_size_a_sentence_says_how_big_and_goes_when_it_is(lang):
    app = make_app(lang, machine=machine("laptop-4060"))
    async with app.run_test(size=(80, 24)) as pilot:
        await at_step(pilot, "welcome")
        app.goto(STEPS.index("budget"))
        await type_budget(pilot, "700")
        for width, height in [(MIN_WIDTH - 1, 24), (80, MIN_HEIGHT - 1), (30, 8)]:
            await pilot.resize_terminal(width, height)
            await pilot.pause(0.1)
            rows = screen_rows(app)
            text = "".join("".join(rows).split())
            wanted = t("ui.too_small", lang, width=MIN_WIDTH, height=MIN_HEIGHT,
                       now_width=width, now_height=height)
            assert text == "".join(wanted.split()), rows     # that sentence, and nothing else
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.1)
        assert not app.screen.query(TooSmall)
        assert any(t("guide.buttons.next", lang) in row for row in screen_rows(app))
        # Nothing typed was lost, and the step still works.
        assert app.screen.query_one("#amount", Input).value == "700"
        await pilot.press("enter")
        await at_step(pilot, "goal")


async def test_starting_in_a_tiny_window_and_dialogs_are_covered_too():
    app = make_app("en", machine=machine("laptop-4060"))
    async with app.run_test(size=(30, 8)) as pilot:
        await at_step(pilot, "welcome")
        await until(pilot, lambda: bool(app.screen.query(TooSmall)), what="the cover")
        await pilot.press("f1")                       # a dialog opened meanwhile
        await until(pilot, lambda: type(app.screen).__name__ == "HelpScreen", what="help")
        await until(pilot, lambda: bool(app.screen.query(TooSmall)), what="the dialog's cover")
        await pilot.pause(0.1)
        assert "Make the window at least" in " ".join(screen_rows(app))
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.1)
        assert not any(screen.query(TooSmall) for screen in app.screen_stack)
        await pilot.press("escape")
        await at_step(pilot, "welcome")
        await pilot.press("enter")
        await at_step(pilot, "need_gpu")


# ------------------------------------------------------------------- wrapping toasts ---

def test_a_no_break_space_keeps_a_key_with_the_word_before_it():
    text = "再按一次\u00a0Ctrl+C 或按\u00a0Ctrl+Q 退出。只有在最后一步保存了报告，才会留下文件。"
    for width in range(14, 40):
        lines = wrap_glued(text, width)
        assert "".join(lines).replace(" ", "") == text.replace("\u00a0", "").replace(" ", "")
        assert any("按 Ctrl+Q" in line for line in lines), (width, lines)
        assert any("再按一次 Ctrl+C" in line for line in lines) or width < 16, (width, lines)
        assert all(cell_len(line) <= width for line in lines), (width, lines)


async def test_the_footer_is_rebuilt_only_when_its_keys_change(tmp_path):
    """Textual's Footer rebuilds every key on each change of the screen's bindings, even one
    that shows the same keys (four times in the welcome step's first 0.1 s, 15-40 ms each on
    a slow machine); screens.widgets.KeysFooter keeps its keys until what they say changes."""
    app = make_app("en", machine=machine("laptop-4060"), report_path=tmp_path / "r.toml")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_step(pilot, "welcome")
        footer = app.screen.query_one(Footer)
        keys = list(footer.query("FooterKey"))   # by name: the class is private to Textual
        assert keys
        for _ in range(3):
            app.screen.refresh_bindings()
            await pilot.pause()
        now = list(footer.query("FooterKey"))
        assert len(now) == len(keys) and all(a is b for a, b in zip(now, keys))
        finish = t("ui.keys.finish", "en")
        assert finish not in footer_text(app)
        app.screen.relabel("next", "keys.finish")
        await until(pilot, lambda: finish in footer_text(app), what="the footer's new label")
        assert not any(key.is_attached for key in keys)
