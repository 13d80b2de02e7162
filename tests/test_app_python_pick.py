"""The welcome step names the Python whose PyTorch is checked, and lets the user check another one:
one of the others found with torch, or a path typed in. A path that is not a Python leaves the
earlier result in place and says why; answers already given are kept."""

from __future__ import annotations

import sys
import threading
from dataclasses import replace
from pathlib import Path

from textual.widgets import Input, OptionList, Static

from screens.facts import Probes, from_machine
from wizard.app import make_app
from wizard.machine_file import load_machine
from wizard.probe.model import OtherPython

from tests.test_app_flow import at_step, shown, squeeze, until

MACHINES = Path(__file__).parent / "machines"
OTHER = sys.executable  # listed Pythons exist: the pick is checked like a typed path


class PickableProbes:
    """The laptop's probes; torch answers for whichever interpreter the test asks about."""

    def __init__(self):
        live = from_machine(load_machine(MACHINES / "laptop-4060.toml"))
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
        assert app.live.torch is None                      # pending again, not the old answer
        fake.release.set()
        await until(pilot, lambda: app.live.torch is not None, what="the new result")
        info = app.live.torch_info()
        assert (info.interpreter, info.interpreter_source, info.version) == (OTHER, "picked", "2.8.0+cu126")
        await until(pilot, lambda: OTHER in python_line(app), what="the line to name the new Python")
        assert squeeze("picked in the wizard") in python_line(app)


async def test_a_typed_path_that_is_not_a_python_keeps_the_earlier_result(tmp_path):
    fake = PickableProbes()
    app = make_app("en", probes=fake.probes(), report_path=tmp_path / "r.toml")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_step(pilot, "welcome")
        await until(pilot, lambda: app.live.torch is not None, what="the first torch result")
        before = app.live.torch
        await pilot.click("#python-change")
        await until(pilot, lambda: app.screen.query("#python-path"), what="the dialog")
        field = app.screen.query_one("#python-path", Input)
        field.focus()
        await pilot.pause()
        field.value = str(tmp_path / "no-such-python")
        await pilot.press("enter")
        await until(pilot, lambda: getattr(app.screen, "STEP", None) == "welcome", what="the dialog to close")
        await until(pilot, lambda: app.live.torch is before, what="the earlier result to come back")
        assert fake.asked == []                              # nothing was probed
        notes = [n.message for n in app._notifications]
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
        await until(pilot, lambda: app.live.torch_info() and app.live.torch_info().interpreter == sys.executable,
                    what="its result")


async def test_no_picking_in_a_replay(tmp_path):
    app = make_app("en", machine=load_machine(MACHINES / "laptop-4060.toml"), report_path=tmp_path / "r.toml")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_step(pilot, "welcome")
        assert not app.screen.query("#python-change")
        await pilot.press("p")
        await pilot.pause()
        assert getattr(app.screen, "STEP", None) == "welcome"   # no dialog: it is the student's Python
