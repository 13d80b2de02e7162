"""Whose Python gpu-wizard may run (wizard.probe.trust, the Gate in wizard.probe.discover).

The interpreters planted here are shell scripts that leave a mark when they run: a test that
finds no mark proves that nothing ran, whatever the code meant to do. Another user is played two
ways: by a policy that says "you are uid 4242" (works for anyone), and for real, as root, by
giving the files to `nobody` (CI runs as root).
"""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import sys
from pathlib import Path

import pytest

from wizard.probe import discover as d
from wizard.probe import trust
from wizard.probe.trust import Policy

AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
needs_root = pytest.mark.skipif(not AS_ROOT, reason="giving files to another user needs root (CI runs as root)")
pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX ownership")


def nobody() -> tuple[int, int]:
    entry = pwd.getpwnam("nobody")
    return entry.pw_uid, entry.pw_gid


def plant(env: Path, marker: Path, torch_version: str | None = None) -> Path:
    """A virtualenv-shaped folder whose python3 only leaves `marker` behind when run."""
    (env / "bin").mkdir(parents=True)
    (env / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.11.7\n")
    python = marking_script(env / "bin" / "python3", marker)
    site = env / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    if torch_version:
        (site / "torch").mkdir()
        (site / "torch" / "__init__.py").write_text("")
        (site / f"torch-{torch_version}.dist-info").mkdir()
    return python


def marking_script(path: Path, marker: Path) -> Path:
    """A program that only leaves `marker` behind when it runs."""
    path.write_text(f"#!/bin/sh\necho ran >> '{marker}'\n")
    path.chmod(0o755)
    return path


def give_away(root: Path) -> None:
    uid, gid = nobody()
    for folder, _dirs, files in os.walk(root):
        os.chown(folder, uid, gid)
        for name in files:
            os.chown(os.path.join(folder, name), uid, gid)


def no_path(name: str) -> None:
    return None


def find(cwd: Path, home: Path | None = None, consent=None, env=None, which=no_path, gate=None,
         no_discover: bool = False):
    return d.discover(None, env=env or {}, cwd=cwd, home=home, which=which, own=sys.executable,
                      listings=(), consent=consent, gate=gate, no_discover=no_discover)


def reasons(found) -> dict[str, str]:
    return {n.interpreter: n.reason for n in found.not_run()}


# ------------------------------------------------------------------------- the rule itself ---

def test_an_environment_of_ones_own_may_run(tmp_path):
    python = plant(tmp_path / "proj" / ".venv", tmp_path / "mark")
    assert trust.refusal(str(python)) is None


def test_another_owner_is_refused_by_the_policy_alone(tmp_path):
    python = plant(tmp_path / "proj" / ".venv", tmp_path / "mark")
    found = trust.refusal(str(python), Policy(uid=4242))
    assert found is not None and found.reason == "other-owner"


@needs_root
def test_an_environment_given_to_nobody_is_refused(tmp_path):
    python = plant(tmp_path / "shared" / ".venv", tmp_path / "mark")
    give_away(tmp_path / "shared" / ".venv")
    found = trust.refusal(str(python))
    assert found is not None and (found.reason, found.owner) == ("other-owner", nobody()[0])


@needs_root
@pytest.mark.parametrize("part", ["pyvenv.cfg", "lib/python3.11/site-packages", "bin"])
def test_one_foreign_part_is_enough(tmp_path, part):
    """pyvenv.cfg decides the interpreter, site-packages holds .pth files that run at start."""
    env = tmp_path / "proj" / ".venv"
    python = plant(env, tmp_path / "mark")
    os.chown(env / part, *nobody())
    found = trust.refusal(str(python))
    assert found is not None and found.reason == "other-owner"


@needs_root
def test_a_python_linked_to_someone_elses_binary_is_refused(tmp_path):
    """A venv made from another user's Python runs that user's binary and standard library."""
    theirs = tmp_path / "bob" / "miniconda3" / "bin"
    theirs.mkdir(parents=True)
    binary = theirs / "python3.11"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    env = tmp_path / "proj" / ".venv"
    plant(env, tmp_path / "mark")
    link = env / "bin" / "python"
    link.symlink_to(binary)
    assert trust.refusal(str(link)) is None  # all of it the user's own
    os.chown(binary, *nobody())
    found = trust.refusal(str(link))
    assert found is not None and (found.reason, found.path) == ("other-owner", str(binary))


@pytest.mark.parametrize("part,mode", [("", 0o777), ("pyvenv.cfg", 0o666),
                                       ("lib/python3.11/site-packages", 0o777), ("bin/python3", 0o757)])
def test_writable_by_others_is_refused(tmp_path, part, mode):
    env = tmp_path / "proj" / ".venv"
    python = plant(env, tmp_path / "mark")
    os.chmod(env / part if part else env, mode)
    found = trust.refusal(str(python))
    assert found is not None and found.reason == "writable-by-others"


def test_group_writable_only_for_the_owners_private_group(tmp_path, monkeypatch):
    """RHEL gives each user a private group and umask 002: their venvs are group-writable."""
    env = tmp_path / "proj" / ".venv"
    python = plant(env, tmp_path / "mark")
    os.chmod(env / "pyvenv.cfg", 0o664)
    monkeypatch.setattr(trust, "_private_group", lambda gid, uid: True)
    assert trust.refusal(str(python)) is None
    monkeypatch.setattr(trust, "_private_group", lambda gid, uid: False)
    found = trust.refusal(str(python))
    assert found is not None and found.reason == "writable-by-others"


@needs_root
def test_a_shared_group_is_not_a_private_one():
    assert trust._private_group(0, 0) is True           # root's own group, no other member
    assert trust._private_group(nobody()[1], 0) is False


def test_the_folder_holding_it_may_be_sticky_but_not_open(tmp_path):
    holder = tmp_path / "holder"
    python = plant(holder / ".venv", tmp_path / "mark")
    os.chmod(holder, 0o777)
    found = trust.refusal(str(python))
    assert found is not None and (found.reason, found.path) == ("writable-by-others", str(holder))
    os.chmod(holder, 0o777 | stat.S_ISVTX)  # /tmp: others cannot rename what is not theirs
    assert trust.refusal(str(python)) is None


def test_root_owned_is_trusted_only_in_a_system_location(tmp_path):
    """For a user, /usr/bin/python3 (root's, a system place) may run; a root-owned venv in a
    project folder or /tmp may not."""
    system_python = os.path.realpath(shutil.which("python3", path="/usr/bin:/bin") or "/usr/bin/env")
    assert trust.refusal(system_python, Policy(uid=4242)) is None
    python = plant(tmp_path / ".venv", tmp_path / "mark")
    owner = os.stat(tmp_path / ".venv").st_uid   # root in CI: root's, and still not a system place
    found = trust.refusal(str(python), Policy(uid=owner + 4242))
    assert found is not None and found.reason == "other-owner"


def test_a_relative_path_is_refused():
    assert trust.refusal("./python3").reason == "relative-path"
    assert trust.refusal("bin/python3").reason == "relative-path"


# ---------------------------------------------------------------------- discovery's gate ---

def test_a_folders_own_venv_does_not_run_without_being_allowed(tmp_path):
    mark = tmp_path / "mark"
    project = tmp_path / "clone"
    python = plant(project / ".venv", mark, torch_version="2.5.1+cu121")
    found = find(project, home=tmp_path)
    found.others_with_torch(timeout=5)
    assert not mark.exists()
    assert found.chosen.source == "own"
    [item] = found.not_run()
    assert (item.interpreter, item.source, item.reason, item.torch_version) == \
        (str(python), "project-venv", "ask-first", "2.5.1+cu121")
    assert str(python) not in found.asked()


def test_allowed_it_runs_and_declined_it_does_not(tmp_path):
    mark = tmp_path / "mark"
    project = tmp_path / "proj"
    python = plant(project / ".venv", mark)
    asked: list[str] = []

    def no(candidate):
        asked.append(candidate.path)
        return False

    found = find(project, home=tmp_path, consent=no)
    found.others_with_torch(timeout=5)
    assert asked == [str(python)] and not mark.exists()
    assert reasons(found) == {str(python): "declined"}

    d._ANSWERED.clear()   # another run of gpu-wizard: asked again, and this time allowed
    find(project, home=tmp_path, consent=lambda c: True).others_with_torch(timeout=5)
    assert mark.read_text().strip()  # it ran (and, being no Python, was passed over)


def test_an_answer_counts_for_the_rest_of_the_run_without_being_remembered(tmp_path):
    """The wizard's install plan asks through a Gate of its own later: no second question, and
    the "yes" still holds; nothing is written to the settings."""
    from wizard.user_settings import environment_answer

    project = tmp_path / "proj"
    python = plant(project / ".venv", tmp_path / "mark")
    asked: list[str] = []

    def yes(candidate):
        asked.append(candidate.path)
        return True

    find(project, home=tmp_path, consent=yes)
    later = d.Gate(None)
    assert later.allows(d.Candidate(str(python), "project-venv"))
    assert asked == [str(python)]
    assert environment_answer(str(project / ".venv")) is None


def test_a_remembered_answer_is_used_without_asking(tmp_path, monkeypatch):
    from wizard.user_settings import remember_environment

    mark = tmp_path / "mark"
    project = tmp_path / "proj"
    python = plant(project / ".venv", mark)

    def never(candidate):
        raise AssertionError("asked although the answer is remembered")

    remember_environment(str(project / ".venv"), "skip")
    found = find(project, home=tmp_path, consent=never)
    assert reasons(found) == {str(python): "declined"} and not mark.exists()
    remember_environment(str(project / ".venv"), "run")
    find(project, home=tmp_path, consent=never).others_with_torch(timeout=5)
    assert mark.exists()


@needs_root
def test_another_users_venv_here_is_never_run_nor_asked_about(tmp_path):
    mark = tmp_path / "mark"
    mark.touch()
    os.chmod(mark, 0o666)   # so that a script run as nobody could write it: it must not run at all
    mark.unlink()
    project = tmp_path / "shared"
    python = plant(project / ".venv", mark, torch_version="2.4.0")
    give_away(project / ".venv")

    def never(candidate):
        raise AssertionError("asked about another user's environment")

    found = find(project, home=None, consent=never)
    found.others_with_torch(timeout=5)
    assert not mark.exists()
    assert reasons(found) == {str(python): "other-owner"}
    assert found.not_run()[0].torch_version == "2.4.0"


def test_outside_home_only_the_current_folder_is_looked_in(tmp_path):
    mark = tmp_path / "mark"
    shared = tmp_path / "srv" / "lab"
    plant(shared / ".venv", mark)                  # left in a folder above by somebody
    here = shared / "week1" / "student"
    here.mkdir(parents=True)
    home = tmp_path / "home" / "ana"
    home.mkdir(parents=True)
    assert d.project_venvs(here, home) == []
    assert d.project_venvs(here, None) == []
    assert d.project_venvs(shared, home) == [str(shared / ".venv" / "bin" / "python3")]
    find(here, home=home, consent=lambda c: True).others_with_torch(timeout=5)
    assert not mark.exists()


def test_a_home_of_slash_is_no_licence_to_walk_up(tmp_path):
    here = tmp_path / "a" / "b"
    here.mkdir(parents=True)
    plant(tmp_path / "a" / ".venv", tmp_path / "mark")
    assert d.project_venvs(here, Path("/")) == []


def test_inside_home_parents_count_up_to_home(tmp_path):
    home = tmp_path / "home" / "ana"
    here = home / "course" / "hw1"
    here.mkdir(parents=True)
    python = plant(home / "course" / ".venv", tmp_path / "mark")
    plant(tmp_path / "home" / ".venv", tmp_path / "mark2")
    assert d.project_venvs(here, home) == [str(python)]


def test_gpu_wizards_own_environment_found_as_a_folder_venv_runs_without_asking(tmp_path):
    project = tmp_path / "checkout"
    python = plant(project / ".venv", tmp_path / "mark")

    def never(candidate):
        raise AssertionError("asked about gpu-wizard's own environment")

    gate = d.Gate(never, own_prefix=str(project / ".venv"))
    assert gate.allows(d.Candidate(str(python), "project-venv"))


@needs_root
def test_a_python_on_path_owned_by_another_user_is_not_run(tmp_path):
    mark = tmp_path / "mark"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    python = marking_script(bin_dir / "python3", mark)
    os.chown(python, *nobody())
    found = find(tmp_path, which=lambda name: shutil.which(name, path=str(bin_dir)))
    found.others_with_torch(timeout=5)
    assert not mark.exists()
    assert reasons(found) == {str(python): "other-owner"}


def test_a_python_found_through_a_relative_path_entry_is_not_run(tmp_path, monkeypatch):
    """PATH=".:…" finds a python3 a cloned repository carries in its top folder."""
    mark = tmp_path / "mark"
    repo = tmp_path / "repo"
    repo.mkdir()
    marking_script(repo / "python3", mark)
    monkeypatch.chdir(repo)
    found = find(repo, which=lambda name: shutil.which(name, path="."))
    found.others_with_torch(timeout=5)
    assert not mark.exists()
    assert set(reasons(found).values()) == {"relative-path"}


def test_the_activated_environment_is_the_users_choice(tmp_path):
    mark = tmp_path / "mark"
    env = tmp_path / "chosen"
    plant(env, mark)
    os.chmod(env / "pyvenv.cfg", 0o666)   # even one the rule would refuse: the user activated it
    find(tmp_path, env={"VIRTUAL_ENV": str(env)}).others_with_torch(timeout=5)
    assert mark.exists()


def test_no_discover_runs_nothing_but_what_was_named(tmp_path):
    mark = tmp_path / "mark"
    env = tmp_path / "active"
    plant(env, mark)
    project = tmp_path / "proj"
    plant(project / ".venv", mark)
    found = find(project, home=tmp_path, env={"VIRTUAL_ENV": str(env)}, consent=lambda c: True,
                 no_discover=True)
    found.others_with_torch(timeout=5)
    assert found.chosen.source == "own" and not mark.exists()
    assert [c.source for c in found.order] == ["own"] and found.not_run() == []


def test_conda_environments_listed_pass_the_same_rule(tmp_path):
    mark = tmp_path / "mark"
    env = tmp_path / "envs" / "course"
    python = plant(env, mark)
    os.chmod(env / "bin", 0o777)
    found = d.discover(None, env={}, cwd=tmp_path, home=None, which=no_path, own=sys.executable,
                       listings=(("conda-env", lambda: [str(python)]),))
    found.others_with_torch(timeout=5)
    assert not mark.exists()
    assert list(reasons(found).values()) == ["writable-by-others"]


# ------------------------------------------------------------------------------- pyenv ---

def fake_pyenv(root: Path, log: Path) -> Path:
    """A pyenv whose `which` answers from the .python-version of PYENV_DIR, and notes where it
    was started."""
    (root / "libexec").mkdir(parents=True)
    (root / "shims").mkdir()
    pyenv = root / "libexec" / "pyenv"
    pyenv.write_text(
        "#!/bin/sh\n"
        f"pwd >> '{log}'\n"
        'v=$(cat "$PYENV_DIR/.python-version" 2>/dev/null || echo 3.11.7)\n'
        'echo "$PYENV_ROOT/versions/$v/bin/$2"\n')
    pyenv.chmod(0o755)
    for version in ("3.11.7", "3.9.18"):
        bin_dir = root / "versions" / version / "bin"
        bin_dir.mkdir(parents=True)
        (bin_dir / "python3").symlink_to(sys.executable)
    shim = root / "shims" / "python3"
    shim.write_text("#!/bin/sh\nexit 3\n")
    shim.chmod(0o755)
    return shim


def test_a_pyenv_shim_is_the_python_pyenv_picks_in_the_users_folder(tmp_path):
    log = tmp_path / "pyenv-started-in"
    root = tmp_path / "pyenv"
    shim = fake_pyenv(root, log)
    project = tmp_path / "proj"
    project.mkdir()
    (project / ".python-version").write_text("3.9.18\n")
    found = d.path_pythons(lambda name: str(shim) if name == "python3" else None, project)
    assert found == [str(root / "versions" / "3.9.18" / "bin" / "python3")]
    # pyenv was told the folder, not started in it: nothing of that folder ran.
    assert str(project) not in log.read_text()
    # Elsewhere, the global version.
    assert d.path_pythons(lambda name: str(shim) if name == "python3" else None, tmp_path) == \
        [str(root / "versions" / "3.11.7" / "bin" / "python3")]


def test_a_shim_given_with_dash_dash_python_means_the_same(tmp_path, monkeypatch):
    root = tmp_path / "pyenv"
    shim = fake_pyenv(root, tmp_path / "log")
    project = tmp_path / "proj"
    project.mkdir()
    (project / ".python-version").write_text("3.9.18\n")
    monkeypatch.chdir(project)
    assert d.check_python_arg(str(shim)) == str(root / "versions" / "3.9.18" / "bin" / "python3")


def test_a_pyenv_that_is_not_the_users_is_not_run(tmp_path):
    log = tmp_path / "log"
    root = tmp_path / "pyenv"
    shim = fake_pyenv(root, log)
    os.chmod(root / "libexec" / "pyenv", 0o777)
    assert d.pyenv_resolved(str(shim), tmp_path) is None
    assert not log.exists()


def test_a_shim_whose_pyenv_others_can_change_does_not_run(tmp_path):
    mark = tmp_path / "mark"
    root = tmp_path / "pyenv"
    shim = fake_pyenv(root, tmp_path / "log")
    marking_script(shim, mark)
    os.chmod(root / "libexec" / "pyenv", 0o777)
    found = find(tmp_path, which=lambda name: str(shim) if name == "python3" else None)
    found.others_with_torch(timeout=5)
    assert not mark.exists()
    assert reasons(found) == {str(shim): "writable-by-others"}


def test_the_time_the_user_takes_to_answer_is_not_the_probes(tmp_path, monkeypatch):
    """The wizard's question may wait on a student reading it: the torch probe's time bounds
    start again after the answer, or a slow reader would see PyTorch "did not answer"."""
    import time as clock

    from tests.test_discover import make_venv
    from wizard.pytorch.probe import job

    monkeypatch.setattr(job, "DISCOVERY_BOUND", 0.5)
    project = tmp_path / "proj"
    make_venv(project / ".venv", "2.5.1+cpu")
    monkeypatch.chdir(project)
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.delenv("CONDA_PREFIX", raising=False)

    def slow_yes(candidate):
        clock.sleep(4)   # past the probe's whole bound (0.5 + 1 + 1.5 s)
        return True

    info, _, _ = job.start_torch_probe(timeout=1.0, discover=True, gpu_test=False, consent=slow_yes).result()
    assert (info.status, info.version, info.interpreter_source) == ("ok", "2.5.1+cpu", "project-venv")
