import functools
import os
import sys
from pathlib import Path

import pytest

from tests.recorded import MACHINES

__all__ = ["FROZEN_MATRIX", "MACHINES", "ROOT", "frozen_matrix_data", "run_cli"]

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def own_settings_folder(tmp_path_factory, monkeypatch):
    """Every test gets an empty settings folder: what a developer allowed gpu-wizard to run on
    their machine must not change a test, and a test must not write to their settings."""
    import wizard.probe.discover  # noqa: F401  (its answers of this run are reset below)

    folder = tmp_path_factory.mktemp("settings")
    monkeypatch.setenv("GPU_WIZARD_CONFIG_DIR", str(folder))
    # Nor what the user answered earlier in the same process (another test's answers).
    discover = sys.modules.get("wizard.probe.discover")
    if discover is not None:
        monkeypatch.setattr(discover, "_ANSWERED", {})
    return folder


@pytest.fixture(autouse=True)
def no_animations(monkeypatch):
    """Apps made in a test do not animate: Textual's Pilot waits for every animation after a
    key, up to a second for Home or End in a long guide. A test checks where the screen ends
    up, which is the same; how it slides there is Textual's."""
    constants = sys.modules.get("textual.constants")   # only where a test has loaded Textual
    if constants is not None:
        monkeypatch.setattr(constants, "TEXTUAL_ANIMATIONS", "none")


@pytest.fixture
def quiet_terminal(monkeypatch):
    """Keep the developer's locale and colour settings out of what the app shows."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)


@pytest.fixture
def write_tree(tmp_path):
    """Build a fake filesystem root: {"sys/class/dmi/id/chassis_type": "10\\n", ...}."""

    def build(files: dict[str, str], symlinks: dict[str, str] | None = None) -> Path:
        for rel, text in files.items():
            path = tmp_path / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        for rel, target in (symlinks or {}).items():
            path = tmp_path / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            target_path = tmp_path / target
            target_path.mkdir(parents=True, exist_ok=True)
            path.symlink_to(target_path)
        return tmp_path

    return build


# The torch matrix the tests of the torch-choosing rules read: a frozen copy of
# content/torch_matrix.toml (tests/data/torch_matrix.toml says why), so that their expected
# versions do not change when content/ gains a release. Tests of content/'s own matrix (its
# properties, its past releases) read content/.
FROZEN_MATRIX = ROOT / "tests" / "data" / "torch_matrix.toml"


@functools.cache
def frozen_matrix_data():
    from wizard.pytorch.matrix import load_matrix

    return load_matrix(FROZEN_MATRIX)   # read by the loader content/'s matrix goes through


@pytest.fixture
def frozen_matrix(monkeypatch):
    """Every `load_matrix()` of this process (the chooser, the causes, the mirrors, the
    installer, the CLI and the App run in-process) reads tests/data/torch_matrix.toml instead
    of content/'s matrix, for the test. Use it in tests of the rules with expected versions:
    `pytestmark = pytest.mark.usefixtures("frozen_matrix")`. A command run as a child process
    reads content/: derive its expected version from `load_matrix()` there instead."""
    from wizard.pytorch.matrix import load_matrix, parse

    matrix = frozen_matrix_data()
    monkeypatch.setattr(parse, "_default_matrix", lambda: matrix)
    # Not a silent no-op should the loader change how it reads its default file.
    assert load_matrix() is matrix, "load_matrix() no longer reads parse._default_matrix"
    return matrix


@pytest.fixture(scope="session")
def template_venv(tmp_path_factory) -> Path:
    """A virtual environment with pip, made once per session (once per xdist worker): making
    one takes ~10 s on 2 cores (ensurepip), copying it ~1 s. Use it only where nothing is
    installed or changed in it; a test that installs, or may change the environment, takes
    `venv_copy`. (An environment without pip is quicker to make than to copy: 0.01 s.)"""
    import venv

    folder = tmp_path_factory.mktemp("template") / ".venv"
    venv.EnvBuilder(with_pip=True).create(folder)
    return folder


@pytest.fixture
def venv_copy(template_venv, tmp_path_factory) -> Path:
    """The test's own environment with pip: a copy of `template_venv` (links kept, so its
    python is still the base interpreter's), which it may change. Its folder, on a short path
    (as a user's is: a long one wraps the lines that name it)."""
    import shutil

    folder = tmp_path_factory.mktemp("env") / ".venv"
    shutil.copytree(template_venv, folder, symlinks=True)
    return folder


def run_cli(*args: str, env: dict | None = None, cwd: str | None = None, timeout: float = 60):
    """The CLI as a user runs it: a separate process, so crashes and exit codes are real."""
    import subprocess

    full_env = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, "-m", "wizard", *args], capture_output=True, text=True,
                          env=full_env, cwd=cwd or ROOT, timeout=timeout)


# The fault suite's outcomes travel on each test's report (user_properties), so that the tally
# is whole under pytest-xdist too, where each worker process keeps its own harness.TALLY.
_ATTACHED = 0                                   # this process's TALLY entries already sent
FAULT_CASES: list[tuple[str, list[str]]] = []   # (case id, problems) from every process


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    harness = sys.modules.get("tests.faults.harness")
    if report.when != "teardown" or harness is None:
        return
    global _ATTACHED
    for out in harness.TALLY[_ATTACHED:]:
        report.user_properties.append(("fault_case", (out.case_id, list(out.problems))))
    _ATTACHED = len(harness.TALLY)


def pytest_runtest_logreport(report):
    for name, value in report.user_properties:
        if name == "fault_case":
            FAULT_CASES.append((value[0], list(value[1])))


# The slow lane: what drives a real terminal, a real install, the wizard itself (every async
# test is a Textual Pilot), or many real child processes (the torch probe in a real Python, the
# CLI run as a user runs it, a class of reports). `pytest -m "not slow"` is the fast lane
# (CONTRIBUTING.md).
SLOW_FILES = ("faults/", "test_e2e_tmux.py", "test_app_snapshots.py", "test_install_torch.py",
              "test_fault_tally.py", "test_docs.py", "test_torch_probe.py", "test_trust_commands.py",
              "test_check_cli.py", "test_summarize.py", "test_replay.py", "test_roster_browser.py")


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_auto_num_workers(config):
    """`-n auto`: two workers more than there are cores, for a run with the slow lane in it.

    A third of the whole suite's time is waiting, not work: children that hang on purpose until
    their time bound, a wizard in tmux, signals sent mid-save. Two more workers keep the cores
    busy meanwhile: on 2 cores, -n 2 took 317 s and -n 4 252 s (2026-12-04). The fast lane
    waits on nothing, and extra workers only add collection there (42 s and 49 s): one a core.
    PYTEST_XDIST_AUTO_NUM_WORKERS, when set, decides as pytest-xdist documents."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None   # pytest-xdist's own hook reads it
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cores if "not slow" in (config.option.markexpr or "") else cores + 2


def pytest_collection_modifyitems(config, items):
    import inspect

    for item in items:
        path = item.nodeid.split("::", 1)[0]
        pilot = inspect.iscoroutinefunction(getattr(item, "function", None))
        if pilot or any(path.endswith(name) or f"/{name}" in path for name in SLOW_FILES):
            item.add_marker(pytest.mark.slow)


def pytest_terminal_summary(terminalreporter):
    """The fault suite's tally: every case tried, and whether it survived."""
    skipped = [r for r in terminalreporter.stats.get("skipped", [])
               if "tests/faults/" in getattr(r, "nodeid", "")]
    if not FAULT_CASES and not skipped:
        return
    survived = sum(1 for _case, problems in FAULT_CASES if not problems)
    write = terminalreporter.write_line
    terminalreporter.section("fault-injection suite")
    # A case that could not run (no tmux) is not a case that survived: say so.
    write(f"fault suite: {len(FAULT_CASES)} cases tried, {survived} survived, "
          f"{len(FAULT_CASES) - survived} did not" + (f", {len(skipped)} not run" if skipped else ""))
    for case_id, problems in FAULT_CASES:
        if problems:
            write(f"  NOT SURVIVED {case_id}: {'; '.join(problems)[:300]}")
