import os
import sys
from pathlib import Path

import pytest

from tests.recorded import MACHINES

__all__ = ["MACHINES", "ROOT", "run_cli"]

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
