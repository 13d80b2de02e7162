"""Every screen of the wizard at 80×24, in English and Chinese, pinned as SVG snapshots.

Deterministic by construction: recorded machines instead of probes (nothing pending, so no
spinner), a fixed report path instead of the clock, no cursor blink. Regenerate with
`pytest tests/test_app_snapshots.py --snapshot-update` and look at the report before
committing the new SVGs.
"""

from __future__ import annotations

import pytest
from textual.widgets import Input

from screens.app import make_app
from screens.step import STEPS
from tests.pilot import open_at, type_budget, until
from tests.recorded import machine

REPORT = "reports/gpu-report.toml"   # shown as typed: no tmp path, no clock in the picture


pytestmark = pytest.mark.usefixtures("quiet_terminal")


@pytest.fixture(autouse=True)
def steady(monkeypatch):
    """No blinking cursor in the picture."""
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("step", STEPS)
def test_every_screen(snap_compare, step, lang):
    app = make_app(lang, machine=machine("laptop-4060"), report_path=REPORT, ascii_marks=False)

    async def run_before(pilot):
        await open_at(pilot, step, goal=None)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_budget_error_while_typing(snap_compare, lang):
    app = make_app(lang, machine=machine("vm-no-gpu"), report_path=REPORT, ascii_marks=False)

    async def run_before(pilot):
        await open_at(pilot, "budget", goal=None)
        await type_budget(pilot, "-300")

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_result_picks_table_and_chart(snap_compare, lang):
    app = make_app(lang, machine=machine("vm-no-gpu"), report_path=REPORT, ascii_marks=False)

    async def run_before(pilot):
        await open_at(pilot, "result", budget="9000", form_factor="desktop", goal=None)
        pilot.app.screen.query_one("#picks").scroll_visible(top=True, animate=False)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_help_dialog(snap_compare, lang):
    app = make_app(lang, machine=machine("laptop-4060"), report_path=REPORT, ascii_marks=False)

    async def run_before(pilot):
        await open_at(pilot, "has_nvidia", goal=None)
        await pilot.press("f1")
        await until(pilot, lambda: type(pilot.app.screen).__name__ == "HelpScreen")

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_exists_dialog(snap_compare, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "gpu-report.toml").write_text("taken = true\n", encoding="utf-8")
    app = make_app("en", machine=machine("laptop-4060"), report_path=REPORT, ascii_marks=False,
                   cwd=tmp_path)

    async def run_before(pilot):
        await open_at(pilot, "save", goal=None)
        await pilot.press("enter")
        await until(pilot, lambda: type(pilot.app.screen).__name__ == "ExistsDialog")

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_small_terminal_40x12(snap_compare):
    app = make_app("zh", machine=machine("desktop-1080ti"), report_path=REPORT, ascii_marks=False)

    async def run_before(pilot):
        await open_at(pilot, "has_nvidia", goal=None)

    assert snap_compare(app, terminal_size=(40, 12), run_before=run_before)


def test_lang_c_ascii(snap_compare):
    app = make_app("en", machine=machine("nouveau"), report_path=REPORT, ascii_marks=True)

    async def run_before(pilot):
        await open_at(pilot, "has_nvidia", goal=None)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_no_color(snap_compare, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app("en", machine=machine("container-no-gpu"), report_path=REPORT, ascii_marks=False)

    async def run_before(pilot):
        await open_at(pilot, "form_factor", goal=None)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
