"""The welcome step names the Python whose PyTorch is checked, and lets the user check another one:
one of the others found with torch, or a path typed in. A path that is not a Python leaves the
earlier result in place and says why; answers already given are kept."""

from __future__ import annotations

import sys
import threading
from dataclasses import replace

import pytest
from textual.widgets import Input, OptionList, Static

from screens.app import make_app
from tests.pilot import Told, at_step, shown, squeeze, until
from tests.recorded import machine
from wizard.machine.live import Probes, from_machine
from wizard.probe.facts import OtherPython

OTHER = sys.executable  # listed Pythons exist: the pick is checked like a typed path


class PickableProbes:
    """The laptop's probes; torch answers for whichever interpreter the test asks about."""

    def __init__(self):
        live = from_machine(machine("laptop-4060"))
        info, bench, note = live.torch
        self.first = (replace(info, interpreter="/home/s/project/.venv/bin/python",
                              interpreter_source="project-venv",
                              other_pythons=(OtherPython(OTHER, "conda-env", "2.8.0+cu126"),)), bench, note)
        self.live = live
        self.asked: list[str] = []
        self.release = threading.Event()

    def torch_for(self, python: str):
        self.asked.append(python)
        self.release.wait(10)
        info, bench, note = self.first
        return replace(info, interpreter=python, interpreter_source="picked", version="2.8.0+cu126",
                       build="cuda", cuda_version="12.6", other_pythons=()), bench, note

    def probes(self) -> Probes:
        return Probes(system=lambda: self.live.system, nvidia=lambda: self.live.nvidia,
                      hardware=lambda: self.live.hardware, torch=lambda: self.first, torch_for=self.torch_for)


def python_line(app) -> str:
    """The line as shown, spaces squeezed out (it wraps at 80 columns)."""
    return shown(app.screen.query_one("#python-line", Static))


async def test_welcome_names_the_python_and_a_listed_one_can_be_picked(tmp_path):
    fake = PickableProbes()
    app = make_app("en", probes=fake.probes(), report_path=tmp_path / "r.toml")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_step(pilot, "welcome")
        await until(pilot, lambda: squeeze("project's virtualenv") in python_line(app), what="the Python line")
        assert "/home/s/project/.venv/bin/python" in python_line(app)
        assert squeeze("Other Pythons with PyTorch found: 1.") in python_line(app)

        await pilot.press("p")                               # the key; the button does the same
        await until(pilot, lambda: app.screen.query("#python-choices"), what="the dialog")
        options = app.screen.query_one("#python-choices", OptionList)
        assert options.option_count == 2
        options.highlighted = 1
        await pilot.press("enter")
        await until(pilot, lambda: fake.asked == [OTHER], what="the picked Python to be probed")
        assert app.state.live.torch is None                      # pending again, not the old answer
        fake.release.set()
        await until(pilot, lambda: app.state.live.torch is not None, what="the new result")
        info = app.state.live.torch_info()
        assert (info.interpreter, info.interpreter_source, info.version) == (OTHER, "picked", "2.8.0+cu126")
        # The new text may wrap onto one more row than the old: wait for the re-layout too.
        await until(pilot, lambda: OTHER in python_line(app)
                    and squeeze("picked in the wizard") in python_line(app),
                    what="the line to name the new Python, and how it was chosen")


async def test_a_typed_path_that_is_not_a_python_keeps_the_earlier_result(tmp_path):
    fake = PickableProbes()
    app = make_app("en", probes=fake.probes(), report_path=tmp_path / "r.toml")
    told = Told(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_step(pilot, "welcome")
        await until(pilot, lambda: app.state.live.torch is not None, what="the first torch result")
        before = app.state.live.torch
        await pilot.click("#python-change")
        await until(pilot, lambda: app.screen.query("#python-path"), what="the dialog")
        field = app.screen.query_one("#python-path", Input)
        field.focus()
        await pilot.pause()
        field.value = str(tmp_path / "no-such-python")
        await pilot.press("enter")
        await until(pilot, lambda: getattr(app.screen, "STEP", None) == "welcome", what="the dialog to close")
        await until(pilot, lambda: app.state.live.torch is before, what="the earlier result to come back")
        assert fake.asked == []                              # nothing was probed
        notes = told.messages
        assert any("no-such-python" in n and "no such file" in n for n in notes), notes


async def test_a_typed_real_python_is_checked(tmp_path):
    fake = PickableProbes()
    fake.release.set()
    app = make_app("en", probes=fake.probes(), report_path=tmp_path / "r.toml")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_step(pilot, "welcome")
        await pilot.click("#python-change")
        await until(pilot, lambda: app.screen.query("#python-path"), what="the dialog")
        app.screen.query_one("#python-path", Input).focus()
        await pilot.press(*list(sys.executable), "enter")
        await until(pilot, lambda: fake.asked == [sys.executable], what="the typed Python to be probed")
        await until(pilot,
                    lambda: app.state.live.torch_info() and app.state.live.torch_info().interpreter == sys.executable,
                    what="its result")


async def test_no_picking_in_a_replay(tmp_path):
    app = make_app("en", machine=machine("laptop-4060"), report_path=tmp_path / "r.toml")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_step(pilot, "welcome")
        assert not app.screen.query("#python-change")
        await pilot.press("p")
        await pilot.pause()
        assert getattr(app.screen, "STEP", None) == "welcome"   # no dialog: it is the student's Python


# ----------------------------------------------------- "Install it for me" on the recommendation ---

@pytest.mark.usefixtures("frozen_matrix")   # the command's version: tests/data/torch_matrix.toml's
async def test_install_it_for_me_shows_the_plan_streams_pip_and_records_the_check(tmp_path, monkeypatch):
    from textual.widgets import Log

    from tests.pilot import open_at, save
    from wizard.probe.facts import GpuTest
    from wizard.pytorch import installer

    fake = PickableProbes()
    fake.release.set()
    ran = []

    def fake_stream(plan, on_line, on_start=None):
        ran.append(plan.argv)
        on_line("Looking in indexes: https://download.pytorch.org/whl/cu126")
        on_line("Successfully installed torch-2.14.1+cu126 \x1b]52;c;ZXZpbA==\x07")   # hostile bytes stay inert
        return 0

    def fake_verify(plan, machine, lang, gpu_test=True):
        info = replace(machine.torch, version="2.14.1+cu126", build="cuda", cuda_version="12.6",
                       cuda_available=True, device_count=1,
                       gpu_tests=(GpuTest("cuda:0", "ok", name="NVIDIA GeForce RTX 4060 Laptop GPU", seconds=0.4),))
        return "gpu-ok", info, []

    monkeypatch.setattr(installer, "stream_install", fake_stream)
    monkeypatch.setattr(installer, "verify", fake_verify)
    app = make_app("en", probes=fake.probes(), report_path=tmp_path / "r.toml")
    async with app.run_test(size=(100, 36)) as pilot:
        await open_at(pilot, "result")
        assert app.state.outcome().recommendation.verdict == "fix-setup"     # the CPU build beside the 4060
        await pilot.press("i")
        await until(pilot, lambda: app.screen.query("#install-command"), what="the install dialog")
        command = shown(app.screen.query_one("#install-command"))
        assert squeeze("/home/s/project/.venv/bin/python -m pip install torch==2.14.1") in command
        assert squeeze("--index-url https://download.pytorch.org/whl/cu126") in command
        await pilot.press("enter")                                     # Install
        await until(pilot, lambda: "Installed torch" in str(app.screen.query_one("#install-status").render())
                    if app.screen.query("#install-status") else False, what="the check after the install")
        log = "\n".join(str(line) for line in app.screen.query_one(Log).lines)
        assert "Successfully installed" in log and "\x1b" not in log and "\x07" not in log
        assert ran and ran[0][:4] == ("/home/s/project/.venv/bin/python", "-m", "pip", "install")
        await pilot.press("enter")                                     # Close
        await at_step(pilot, "result")
        assert app.state.outcome().recommendation.verdict == "use-current-gpu"
        path = await save(pilot)
    import tomllib

    report = tomllib.loads(path.read_text(encoding="utf-8"))
    assert report["install"]["verified"] is True and report["install"]["exit_status"] == 0
    assert report["install"]["torch_version"] == "2.14.1+cu126"
    assert report["install"]["gpu_tests"] == ["ok"]
    assert report["machine"]["torch"]["version"] == "2.14.1+cu126"


async def test_no_install_in_a_replay(tmp_path):
    from tests.pilot import open_at

    app = make_app("en", machine=machine("laptop-4060"), report_path=tmp_path / "r.toml")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_at(pilot, "result")
        await pilot.press("i")
        await pilot.pause()
        assert getattr(app.screen, "STEP", None) == "result"
