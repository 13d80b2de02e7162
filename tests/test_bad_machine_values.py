"""A recorded machine with a bad value fails where it is read, the same way for every command.

`check --machine`, the headless run and the wizard all read the file through
wizard.machine.recorded, so a value that breaks the schema (a compute capability that is not a
number, a negative size) ends each of them with exit status 2 and one line naming the key,
before any advice, report or screen: never a traceback from the code that would use it.
"""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path

import pytest
import tomli_w

from tests.test_headless import GOOD as ANSWERS  # a valid answers file
from wizard.cli import main
from wizard.machine import live as live_module

MACHINES = Path(__file__).parent / "machines"

# (where in [machine], the bad value, the key path the message must name)
BAD_VALUES = [
    (("gpus", 0, "compute_capability"), "banana", "machine.gpus[0].compute_capability"),
    (("gpus", 0, "vram_gb"), -8.0, "machine.gpus[0].vram_gb"),
    (("ram_gb",), -1, "machine.ram_gb"),
    (("nvidia", "driver_version"), "five-fifty", "machine.nvidia.driver_version"),
    (("nvidia", "cuda_driver_version"), "12.x", "machine.nvidia.cuda_driver_version"),
    (("gpus",), "NVIDIA GeForce RTX 4060 Laptop GPU", "machine.gpus"),
    (("torch", "arch_list"), "sm_89", "machine.torch.arch_list"),
    (("cpu_cores",), "six", "machine.cpu_cores"),
]
IDS = [case[2].removeprefix("machine.") for case in BAD_VALUES]


def bad_machine(tmp_path: Path, where: tuple, value) -> Path:
    data = tomllib.loads((MACHINES / "laptop-4060.toml").read_text(encoding="utf-8"))
    table = data["machine"]
    for step in where[:-1]:
        table = table[step]
    table[where[-1]] = value
    path = tmp_path / "bad-machine.toml"
    path.write_text(tomli_w.dumps(data), encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def no_live_probes(monkeypatch):
    """A bad --machine must never fall back to probing the computer running the test."""
    def refuse(*_args, **_kwargs):
        raise AssertionError("probed this machine")

    monkeypatch.setattr(live_module, "probe_this_machine", refuse)


def one_line_naming(capsys, key: str) -> str:
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err and "Error" not in err, err
    assert f"{key}:" in lines[0], lines[0]
    assert out == ""
    return lines[0]


@pytest.mark.parametrize("where, value, key", BAD_VALUES, ids=IDS)
def test_check_refuses_the_file_naming_the_key(tmp_path, capsys, where, value, key):
    path = bad_machine(tmp_path, where, value)
    assert main(["check", "--machine", str(path), "--lang", "en"]) == 2
    assert str(path) in one_line_naming(capsys, key)


@pytest.mark.parametrize("where, value, key", BAD_VALUES, ids=IDS)
def test_the_headless_run_refuses_the_file_and_writes_no_report(tmp_path, capsys, where, value, key):
    path = bad_machine(tmp_path, where, value)
    answers = tmp_path / "answers.toml"
    answers.write_text(ANSWERS, encoding="utf-8")
    report = tmp_path / "report.toml"
    assert main(["--machine", str(path), "--answers", str(answers), "--report", str(report),
                 "--lang", "en"]) == 2
    one_line_naming(capsys, key)
    assert not report.exists()


@pytest.mark.parametrize("where, value, key", BAD_VALUES, ids=IDS)
def test_the_wizard_refuses_the_file_before_any_screen(tmp_path, capsys, monkeypatch, where, value, key):
    import screens.app
    from wizard.commands import wizard_main

    def no_screen(*_args, **_kwargs):
        raise AssertionError("the wizard opened with a bad machine file")

    # As if run in a terminal: the refusal must come from the file, not from a missing terminal.
    monkeypatch.setattr(wizard_main, "refuse_without_terminal", lambda lang: False)
    monkeypatch.setattr(screens.app, "make_app", no_screen)
    path = bad_machine(tmp_path, where, value)
    assert main(["--machine", str(path), "--lang", "en"]) == 2
    one_line_naming(capsys, key)


def test_the_wizard_command_itself_returns_2_for_a_bad_machine(tmp_path, capsys, monkeypatch):
    import screens.app
    from wizard.commands import wizard_main

    monkeypatch.setattr(wizard_main, "refuse_without_terminal", lambda lang: False)
    monkeypatch.setattr(screens.app, "make_app", lambda *a, **k: pytest.fail("opened the UI"))
    path = bad_machine(tmp_path, ("gpus", 0, "compute_capability"), "banana")
    args = argparse.Namespace(machine=str(path), answers=None, lang="en", report=None, python=None,
                              no_gpu_test=False, no_redact=False)
    assert wizard_main.run(args) == 2
    assert "'banana' is not like" in one_line_naming(capsys, "machine.gpus[0].compute_capability")


def test_the_good_file_these_are_made_from_loads(tmp_path, capsys):
    """The cases above fail for the value they change, not for the file they start from."""
    data = tomllib.loads((MACHINES / "laptop-4060.toml").read_text(encoding="utf-8"))
    path = tmp_path / "good.toml"
    path.write_text(tomli_w.dumps(data), encoding="utf-8")
    assert main(["check", "--machine", str(path), "--lang", "en"]) in (0, 1)
    assert capsys.readouterr().err == ""
