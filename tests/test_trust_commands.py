"""The trust boundary as a user meets it: the real command in a folder a stranger prepared, and
the wizard's question before a folder's own Python runs.

Planted interpreters leave a mark when they run (tests/test_trust.py `plant`): no mark, nothing
ran. The commands run as separate processes, in the planted folder, with a home folder of the
test's own.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.pilot import at_step, screen_rows, squeeze, until
from tests.test_trust import AS_ROOT, give_away, plant

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX shell scripts stand in for interpreters")


def gpu_wizard(*args: str, cwd: Path, home: Path, env: dict | None = None):
    import subprocess

    full = dict(os.environ, HOME=str(home), PYTHONPATH=str(ROOT), **(env or {}))
    full.pop("VIRTUAL_ENV", None)
    full.pop("CONDA_PREFIX", None)
    return subprocess.run([sys.executable, "-m", "wizard", *args], capture_output=True, text=True,
                          env=full, cwd=cwd, timeout=120)


@pytest.fixture
def clone(tmp_path):
    """A project just cloned into the user's home, carrying a committed .venv."""
    home = tmp_path / "home"
    project = home / "src" / "cool-model"
    python = plant(project / ".venv", tmp_path / "mark", torch_version="2.5.1+cu121")
    return home, project, python, tmp_path / "mark"


def test_check_in_a_cloned_folder_runs_nothing_of_it_and_says_so(clone):
    home, project, python, mark = clone
    result = gpu_wizard("check", "--no-gpu-test", cwd=project, home=home)
    assert result.returncode in (0, 1), result.stderr
    assert not mark.exists()
    out = squeeze(result.stdout)
    assert squeeze("Found and not run") in out
    assert squeeze("a folder's own environment runs only once you allow it") in out
    assert squeeze("its files show PyTorch 2.5.1+cu121") in out
    # The finding names the true cause: its PyTorch was not checked, not "not installed".
    assert squeeze("PyTorch 2.5.1+cu121 was found in") in out
    assert "Traceback" not in result.stderr


def test_check_json_records_what_was_not_run_and_why(clone):
    home, project, python, mark = clone
    result = gpu_wizard("check", "--json", "--no-gpu-test", cwd=project, home=home)
    data = json.loads(result.stdout)
    torch = data["machine"]["torch"]
    assert [(n["source"], n["reason"], n["torch_version"]) for n in torch["not_run"]] == \
        [("project-venv", "ask-first", "2.5.1+cu121")]
    assert torch["interpreter_source"] != "project-venv"
    assert "torch-not-run" in [f["id"] for f in data["findings"]]
    assert not mark.exists()


def test_torch_command_and_a_dry_run_install_run_nothing_of_it(clone):
    home, project, python, mark = clone
    command = gpu_wizard("torch-command", cwd=project, home=home)
    assert command.returncode in (0, 1), command.stderr
    assert squeeze("Found and not run") in squeeze(command.stdout)
    dry = gpu_wizard("install-torch", "--dry-run", cwd=project, home=home)
    assert dry.returncode == 0, dry.stderr
    assert not mark.exists()
    assert str(python) not in dry.stdout.split("Command:")[-1]


def test_a_venv_above_the_current_folder_outside_home_never_runs(tmp_path):
    mark = tmp_path / "mark"
    plant(tmp_path / "shared" / ".venv", mark, torch_version="2.4.0")
    here = tmp_path / "shared" / "lab" / "week1"
    here.mkdir(parents=True)
    home = tmp_path / "home" / "ana"
    home.mkdir(parents=True)
    result = gpu_wizard("check", "--json", "--no-gpu-test", cwd=here, home=home)
    assert result.returncode in (0, 1), result.stderr
    assert not mark.exists()
    assert json.loads(result.stdout)["machine"]["torch"].get("not_run", []) == []  # not even looked at


@pytest.mark.skipif(not AS_ROOT, reason="giving files to another user needs root (CI runs as root)")
def test_root_in_a_folder_another_user_prepared(tmp_path):
    mark = tmp_path / "mark"
    shared = tmp_path / "scratch"
    python = plant(shared / ".venv", mark)
    give_away(shared / ".venv")
    os.chmod(tmp_path, 0o755)
    result = gpu_wizard("check", "--json", "--no-gpu-test", cwd=shared, home=Path("/root"))
    assert not mark.exists()
    [item] = json.loads(result.stdout)["machine"]["torch"]["not_run"]
    assert (item["reason"], item["interpreter"].split("/")[-1]) == ("other-owner", python.name)


def test_no_discover_ignores_even_the_activated_environment(clone, tmp_path):
    home, project, python, mark = clone
    active = tmp_path / "active"
    plant(active, mark)
    result = gpu_wizard("check", "--json", "--no-gpu-test", "--no-discover", cwd=project, home=home,
                        env={"VIRTUAL_ENV": str(active)})
    assert result.returncode in (0, 1), result.stderr
    assert not mark.exists()
    torch = json.loads(result.stdout)["machine"]["torch"]
    assert torch["interpreter_source"] == "own" and torch.get("asked", []) == []


def test_with_python_the_named_one_runs(clone):
    home, project, python, mark = clone
    result = gpu_wizard("check", "--python", str(python), cwd=project, home=home)
    assert result.returncode == 2  # a shell script is no Python; but it was the user's to run
    assert mark.exists()


# ------------------------------------------------------------------------------ the wizard ---

def real_probes_app(tmp_path, lang="en"):
    from screens.app import make_app

    return make_app(lang, report_path=tmp_path / "report.toml", benchmark=False, gpu_test=False)


def dialog_open(app) -> bool:
    from screens.run_python import RunPythonDialog

    return isinstance(app.screen, RunPythonDialog) and app.screen.is_mounted


@pytest.fixture
def in_clone(clone, monkeypatch):
    """The wizard started in the cloned folder, with no environment activated."""
    home, project, python, mark = clone
    monkeypatch.chdir(project)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.delenv("CONDA_PREFIX", raising=False)
    return clone


async def test_the_wizard_asks_first_and_enter_means_do_not_run(in_clone, tmp_path):
    home, project, python, mark = in_clone
    app = real_probes_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: dialog_open(app), timeout=30, what="the question before running ./.venv")
        await pilot.pause()
        rows = squeeze("".join(screen_rows(app)))
        assert squeeze("./.venv") in rows and squeeze("Run this folder's Python?") in rows
        await pilot.press("enter")     # the focus starts on "Don't run it"
        await until(pilot, lambda: app.state.live.torch is not None, timeout=60, what="the torch result")
        info = app.state.live.torch_info()
        assert [(n.reason, n.torch_version) for n in info.not_run] == [("declined", "2.5.1+cu121")]
        await at_step(pilot, "welcome")
    assert not mark.exists()


async def test_the_wizard_runs_it_when_allowed_and_remembers(in_clone, tmp_path, own_settings_folder):
    home, project, python, mark = in_clone
    app = real_probes_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: dialog_open(app), timeout=30, what="the question")
        await pilot.click("#remember")
        await pilot.click("#run")
        await until(pilot, lambda: app.state.live.torch is not None, timeout=60, what="the torch result")
    assert mark.exists()
    assert '"run"' in (own_settings_folder / "settings.toml").read_text()
    # Next time: no question.
    mark.unlink()
    app = real_probes_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.state.live.torch is not None, timeout=60, what="the torch result")
        assert not dialog_open(app)
    assert mark.exists()


async def test_the_question_fits_a_40_by_12_terminal(in_clone, tmp_path):
    home, project, python, mark = in_clone
    app = real_probes_app(tmp_path)
    async with app.run_test(size=(40, 12)) as pilot:
        await until(pilot, lambda: dialog_open(app), timeout=30, what="the question")
        await pilot.pause()
        for button in ("#run", "#skip"):
            region = app.screen.query_one(button).region
            assert region.height >= 1 and region.bottom <= 12 and region.right <= 40, (button, region)
        await pilot.press("escape")
        await until(pilot, lambda: not dialog_open(app), what="Esc to close the question")
    assert not mark.exists()


def test_the_headless_run_names_what_ran_and_what_did_not(clone, tmp_path):
    home, project, python, mark = clone
    answers = tmp_path / "answers.toml"
    answers.write_text('[answers]\nneed_gpu = "yes"\nhas_nvidia = "no"\nform_factor = "laptop"\n'
                       'budget_amount = 800\nbudget_currency = "USD"\ngoal = "learning"\n')
    result = gpu_wizard("--answers", str(answers), "--report", str(tmp_path / "out.toml"), "--no-gpu-test",
                        cwd=project, home=home)
    assert result.returncode == 0, result.stderr
    out = squeeze(result.stdout)
    assert squeeze("Python run for this check:") in out and squeeze("Found and not run") in out
    assert not mark.exists()


def test_a_folders_environment_is_named_as_typed_there_not_by_its_full_path(clone):
    """"./.venv/bin/python3": what the user would type, and no folder of theirs in a shared report."""
    home, project, python, mark = clone
    result = gpu_wizard("check", "--json", "--no-gpu-test", cwd=project, home=home)
    [finding] = [f for f in json.loads(result.stdout)["findings"] if f["id"] == "torch-not-run"]
    assert "./.venv/bin/python3" in finding["fix"] and str(project) not in json.dumps(finding)


def test_the_fix_quotes_a_path_the_shell_would_split(tmp_path):
    """A folder called "my $(touch x) course": the pasted fix is one word, and runs nothing."""
    import shlex

    home = tmp_path / "home"
    project = home / "my $(touch x) course"
    python = plant(project / ".venv", tmp_path / "mark", torch_version="2.5.1")
    here = project / "hw1"   # the course's .venv is in the folder above: named by its full path
    here.mkdir()
    result = gpu_wizard("check", "--json", "--no-gpu-test", "--no-redact", cwd=here, home=home)
    [finding] = [f for f in json.loads(result.stdout)["findings"] if f["id"] == "torch-not-run"]
    command = finding["fix"].split(": ", 1)[1]
    assert shlex.split(command) == ["gpu-wizard", "check", "--python", str(python)]
    assert not (tmp_path / "mark").exists()
