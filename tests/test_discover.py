"""Finding the user's PyTorch: real virtualenvs made here (one with a fake torch package), a fake
conda prefix and `conda env list`, a `.venv` in a parent folder, a python on PATH, and `--python`.

Every interpreter is really run (its sys.path and prefix are asked for); torch itself is never
imported into this process.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
import textwrap
import time
import venv
from pathlib import Path

import pytest

from wizard.cli import main
from wizard.probe import discover as d
from wizard.pytorch.probe.job import probe_torch


def make_venv(folder: Path, torch_version: str | None = None) -> Path:
    """A real virtualenv (no pip: fast); with `torch_version`, a fake torch installed in it."""
    venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt").create(folder)
    python = Path(d.interpreter_in(folder))
    if torch_version:
        site = next(folder.glob("lib/python3*/site-packages")) if os.name != "nt" else folder / "Lib/site-packages"
        pkg = site / "torch"
        pkg.mkdir()
        (pkg / "__init__.py").write_text(textwrap.dedent(f"""
            from types import SimpleNamespace
            __version__ = "{torch_version}"
            version = SimpleNamespace(cuda=None, hip=None, xpu=None)
            cuda = SimpleNamespace(is_available=lambda: False)
        """))
        (pkg / "version.py").write_text(f"__version__ = '{torch_version}'\ncuda = None\nhip = None\n")
        meta = site / f"torch-{torch_version}.dist-info"
        meta.mkdir()
        (meta / "METADATA").write_text(f"Metadata-Version: 2.1\nName: torch\nVersion: {torch_version}\n\n")
        (meta / "RECORD").write_text("torch/__init__.py,,\ntorch/version.py,,\n")
    return python


@pytest.fixture(scope="module")
def envs(tmp_path_factory):
    root = tmp_path_factory.mktemp("envs")
    return {
        "with-torch": make_venv(root / "with-torch", "2.13.0+cu130"),
        "other-torch": make_venv(root / "other-torch", "2.9.1+cpu"),
        "no-torch": make_venv(root / "no-torch"),
    }


def no_path(name: str) -> None:
    return None


def allow(candidate) -> bool:
    """The user's answer when asked whether a folder's own environment may run: yes."""
    return True


def find(env=None, cwd=None, home=None, which=no_path, own=None, listings=(), python=None, consent=None):
    return d.discover(python, env=env or {}, cwd=cwd or Path("/"), home=home, which=which,
                      own=own or sys.executable, listings=listings, consent=consent)


def venv_of(python: Path) -> str:
    return str(python.parent.parent)


# ------------------------------------------------------------------------------- the order ---

def test_the_activated_virtualenv_comes_first(envs):
    found = find(env={"VIRTUAL_ENV": venv_of(envs["with-torch"]), "CONDA_PREFIX": venv_of(envs["other-torch"])})
    assert (found.chosen.path, found.chosen.source) == (str(envs["with-torch"]), "virtualenv")
    others = found.others_with_torch(timeout=10)
    assert [(Path(a.candidate.path), a.candidate.source, a.torch_version) for a in others][:1] == \
        [(envs["other-torch"], "conda", "2.9.1+cpu")]


def test_a_candidate_without_torch_is_passed_over_for_one_with_it(envs, tmp_path):
    project = tmp_path / "project"
    shutil.copytree(venv_of(envs["with-torch"]), project / ".venv", symlinks=True)
    found = find(env={"VIRTUAL_ENV": venv_of(envs["no-torch"])}, cwd=project, home=tmp_path, consent=allow)
    assert found.chosen.source == "project-venv"
    assert found.chosen.path == d.interpreter_in(project / ".venv")


def test_a_fake_conda_prefix(envs, tmp_path):
    prefix = tmp_path / "miniconda3" / "envs" / "course"
    shutil.copytree(venv_of(envs["with-torch"]), prefix, symlinks=True)
    (prefix / "conda-meta").mkdir()
    found = find(env={"CONDA_PREFIX": str(prefix)})
    assert (found.chosen.source, Path(found.chosen.path).parent.parent) == ("conda", prefix)


def test_a_venv_in_a_parent_folder_up_to_home_and_no_further(envs, tmp_path):
    home = tmp_path / "home" / "student"
    deep = home / "course" / "week3" / "notebooks"
    deep.mkdir(parents=True)
    shutil.copytree(venv_of(envs["with-torch"]), home / "course" / "venv", symlinks=True)
    found = find(cwd=deep, home=home, consent=allow)
    assert found.chosen.source == "project-venv"
    assert Path(found.chosen.path).parent.parent == home / "course" / "venv"
    # Above the home folder is somebody else's business.
    shutil.copytree(venv_of(envs["other-torch"]), tmp_path / "home" / ".venv", symlinks=True)
    (home / "course" / "venv" / "pyvenv.cfg").unlink()
    assert d.project_venvs(deep, home) == []


def test_python_on_path(envs, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(envs["with-torch"])
    which = lambda name: shutil.which(name, path=str(bin_dir))  # noqa: E731
    found = find(which=which, own=str(envs["no-torch"]))
    assert (found.chosen.path, found.chosen.source) == (str(bin_dir / "python3"), "path")


def test_conda_env_list_when_conda_is_on_path(envs, tmp_path):
    bin_dir = tmp_path / "condabin"
    bin_dir.mkdir()
    conda = bin_dir / "conda"
    envs_json = json.dumps({"envs": [str(tmp_path / "gone"), venv_of(envs["other-torch"])]})
    conda.write_text(f"#!/bin/sh\necho '{envs_json}'\n")
    conda.chmod(conda.stat().st_mode | stat.S_IEXEC)
    which = lambda name: shutil.which(name, path=str(bin_dir))  # noqa: E731
    found = d.discover(env={}, cwd=Path("/"), home=None, which=which, own=str(envs["no-torch"]))
    assert (found.chosen.path, found.chosen.source) == (str(envs["other-torch"]), "conda-env")


def test_own_interpreter_comes_last(envs):
    found = find(env={"VIRTUAL_ENV": venv_of(envs["no-torch"])}, own=str(envs["with-torch"]))
    assert (found.chosen.path, found.chosen.source) == (str(envs["with-torch"]), "own")


def test_without_torch_anywhere_the_first_working_python_is_checked(envs, tmp_path):
    found = find(env={"VIRTUAL_ENV": venv_of(envs["no-torch"])}, own=str(envs["no-torch"]))
    assert found.chosen.source == "virtualenv"


def test_a_broken_or_hanging_candidate_is_passed_over_in_bounded_time(envs, tmp_path):
    hang = tmp_path / "hang-env"
    (hang / "bin").mkdir(parents=True)
    (hang / "pyvenv.cfg").write_text("home = /nowhere\n")
    script = hang / "bin" / "python3"
    script.write_text("#!/bin/sh\nsleep 30\n")
    script.chmod(0o755)
    started = time.monotonic()
    found = d.discover(env={"VIRTUAL_ENV": str(hang), "CONDA_PREFIX": venv_of(envs["with-torch"])},
                       cwd=Path("/"), home=None, which=no_path, own=sys.executable, listings=(), timeout=1.0)
    assert found.chosen.source == "conda"
    assert time.monotonic() - started < 5


def test_a_venv_python_that_is_the_same_environment_twice_is_listed_once(envs):
    python = envs["other-torch"]
    twin = python.with_name("python")  # bin/python3 and bin/python: one environment
    found = find(env={"VIRTUAL_ENV": venv_of(envs["with-torch"])}, own=str(twin))
    found.others_with_torch(timeout=10)
    paths = [a.candidate.path for a in found.others_with_torch(timeout=10)]
    assert len([p for p in paths if Path(p).parent == python.parent]) <= 1


def test_py_launcher_listing_formats():
    text = textwrap.dedent("""\
         -V:3.13 *        C:\\Users\\u\\AppData\\Local\\Programs\\Python\\Python313\\python.exe
         -V:3.12          C:\\Python312\\python.exe
         -3.9-64          C:\\Python39\\python.exe
        """)
    assert d.parse_py_list(text) == [
        "C:\\Users\\u\\AppData\\Local\\Programs\\Python\\Python313\\python.exe",
        "C:\\Python312\\python.exe", "C:\\Python39\\python.exe"]


def test_fast_check_needs_no_child(envs):
    assert d.fast_has_torch(str(envs["with-torch"])) is True
    assert d.fast_has_torch(str(envs["no-torch"])) is False


# ---------------------------------------------------------------------------- the probe ---

def test_the_probe_checks_the_discovered_python_and_says_why(envs, monkeypatch, tmp_path):
    monkeypatch.setenv("VIRTUAL_ENV", venv_of(envs["with-torch"]))
    monkeypatch.setenv("CONDA_PREFIX", venv_of(envs["other-torch"]))
    monkeypatch.delenv("PYTHONPATH", raising=False)
    monkeypatch.chdir(tmp_path)
    info, _, _ = probe_torch(discover=True, timeout=30)
    assert info.status == "ok" and info.version == "2.13.0+cu130"
    assert (info.interpreter, info.interpreter_source) == (str(envs["with-torch"]), "virtualenv")
    assert [(o.source, o.torch_version) for o in info.other_pythons][:1] == [("conda", "2.9.1+cpu")]
    assert "torch" not in sys.modules  # never imported into gpu-wizard's own process


def test_a_given_python_keeps_its_source(envs, monkeypatch, tmp_path):
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.chdir(tmp_path)
    info, _, _ = probe_torch(str(envs["other-torch"]), discover=True, timeout=30)
    assert (info.version, info.interpreter_source) == ("2.9.1+cpu", "--python")


# ------------------------------------------------------------------------------ --python ---

def test_python_that_does_not_exist_is_exit_2_naming_the_path(capsys):
    assert main(["check", "--python", "/nonexistent/python"]) == 2
    err = capsys.readouterr().err
    assert "/nonexistent/python" in err and "no such file" in err


def test_python_that_is_not_a_python_is_exit_2(tmp_path, capsys):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho hello\n")
    fake.chmod(0o755)
    assert main(["check", "--python", str(fake)]) == 2
    assert str(fake) in capsys.readouterr().err
    assert main(["torch-command", "--python", "/etc/hostname"]) == 2


def test_python_may_be_a_virtualenv_folder(envs):
    assert d.check_python_arg(venv_of(envs["with-torch"])) == d.interpreter_in(venv_of(envs["with-torch"]))


def test_python_2_is_named_as_such(tmp_path):
    fake = tmp_path / "python2"
    fake.write_text("#!/bin/sh\nif [ \"$2\" = 'import sys; print(sys.version_info[0])' ]; then echo 2; exit 0; fi\n"
                    "echo 'SyntaxError: invalid syntax' >&2; exit 1\n")
    fake.chmod(0o755)
    with pytest.raises(d.PythonArgError) as caught:
        d.check_python_arg(str(fake))
    assert caught.value.key == "python2"
