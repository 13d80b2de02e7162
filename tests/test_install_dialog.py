"""The wizard's install dialog at 80×24: it fits (buttons, outcome and keys on screen), warns when
the target is gpu-wizard's own Python, says why this build, never cuts a pip line, and when pip
cannot reach the index it says so in one line and offers a mirror, which it then uses."""

from __future__ import annotations

import sys

import pytest
from rich.cells import cell_len
from textual.app import App
from textual.widgets import Button, Log

from screens.app import CSS_FILE, WizardApp
from screens.install import InstallScreen
from tests.pilot import until
from tests.recorded import machine
from wizard.pytorch.choose import choose_for_machine
from wizard.pytorch.installer import index_unreachable, make_plan
from wizard.text.i18n import t

NETWORK_FAILURE = [
    "Looking in indexes: https://download.pytorch.org/whl/cu126",
    "WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection "
    "broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f>: "
    "Failed to establish a new connection: [Errno -3] Temporary failure in name resolution')': /whl/cu126/torch/",
    "ERROR: Could not find a version that satisfies the requirement torch==2.14.1 (from versions: none)",
    "ERROR: No matching distribution found for torch==2.14.1",
]


class Host(App):
    CSS_PATH = str(CSS_FILE)
    VERTICAL_BREAKPOINTS = WizardApp.VERTICAL_BREAKPOINTS
    HORIZONTAL_BREAKPOINTS = WizardApp.HORIZONTAL_BREAKPOINTS

    def __init__(self, screen) -> None:
        super().__init__()
        self.dialog = screen

    def on_mount(self) -> None:
        self.push_screen(self.dialog)


def _plan(python: str, companions=("torchvision",), source="own"):
    laptop = machine("laptop-4060")
    return make_plan(python, source, choose_for_machine(laptop, "en"), companions=companions), laptop


@pytest.fixture
def pip_runs(monkeypatch):
    """stream_install replaced: what ran, and the output it gave (no pip, no network)."""
    ran: list = []

    def fake(plan, on_line, on_start=None):
        ran.append(plan)
        for line in NETWORK_FAILURE if len(ran) == 1 else ["Collecting torch==2.14.1", "Killed"]:
            on_line(line)
        return 1

    monkeypatch.setattr("wizard.pytorch.installer.stream_install", fake)
    return ran


def _on_screen(app, selector: str) -> bool:
    widget = app.screen.query_one(selector)
    region = widget.region
    return widget.display and region.height > 0 and region.bottom <= app.size.height \
        and region.right <= app.size.width


@pytest.mark.parametrize("size", [(80, 24), (40, 12)])
async def test_the_dialog_fits_and_a_network_failure_offers_a_mirror(size, pip_runs):
    plan, laptop = _plan(sys.executable)
    app = Host(InstallScreen("en", plan, laptop))
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: isinstance(app.screen, InstallScreen) and app.screen.is_mounted,
                    what="the dialog")
        await pilot.pause()
        plan_text = str(app.screen.query_one("#install-plan").render())
        # gpu-wizard's own Python is named as such, and why this build.
        assert "gpu-wizard's own Python" in plan_text and plan.choice.reason[:30] in plan_text
        for name in ("#install-go", "#install-cancel", "#install-keys"):
            assert _on_screen(app, name), name
        assert "Esc" in str(app.screen.query_one("#install-keys").render())

        await pilot.click("#install-go")
        await until(pilot, lambda: app.screen.query_one("#install-mirror").display, what="the mirror offer")
        await pilot.pause()
        status = str(app.screen.query_one("#install-status").render())
        assert "could not reach download.pytorch.org" in status and "--mirror sjtu" in status
        for name in ("#install-status", "#install-mirror", "#install-cancel"):
            assert _on_screen(app, name), name
        log = app.screen.query_one(Log)
        width = log.scrollable_content_region.width
        assert all(cell_len(line) <= width for line in log.lines), [line for line in log.lines
                                                                   if cell_len(line) > width]
        joined = "".join(log.lines).replace(" ", "")
        assert "Temporaryfailureinnameresolution" in joined          # wrapped, not lost

        await pilot.click("#install-mirror")
        await until(pilot, lambda: len(pip_runs) == 2 and not app.screen.running, what="the retry")
        assert "mirror.sjtu.edu.cn" in " ".join(pip_runs[1].argv)
        assert "torchvision" in pip_runs[1].argv          # the companions come along
        assert "mirror.sjtu.edu.cn" in str(app.screen.query_one("#install-command").render())
        # Not a network failure this time: pip's own failure, and no second offer.
        assert not app.screen.query_one("#install-mirror").display
        assert t("torch.install.pip-failed", "en", tool="pip", code=1)[:20] in \
            str(app.screen.query_one("#install-status").render())


def test_network_failures_are_told_from_other_failures():
    assert index_unreachable(NETWORK_FAILURE)
    assert index_unreachable(["error: Failed to fetch: `https://download.pytorch.org/whl/cu126/torch/`",
                              "  Caused by: dns error: failed to lookup address information"])
    assert not index_unreachable(["ERROR: Could not find a version that satisfies the requirement torch==9.9",
                                  "ERROR: No matching distribution found for torch==9.9"])
    assert not index_unreachable(["Collecting torch", "Killed"])


async def test_a_users_python_gets_no_own_environment_warning(pip_runs, tmp_path):
    plan, laptop = _plan(str(tmp_path / "venv" / "bin" / "python"), source="--python")
    app = Host(InstallScreen("en", plan, laptop))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, InstallScreen) and app.screen.is_mounted,
                    what="the dialog")
        assert "own Python" not in str(app.screen.query_one("#install-plan").render())
        assert isinstance(app.screen.query_one("#install-go"), Button)
