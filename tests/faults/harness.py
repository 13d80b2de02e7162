"""Run the real `gpu-wizard` under an injected fault and judge whether it survived.

A case is one command line plus the faults to arm (see inject/). Whatever the command is, the
same rules decide "survived": it ends within its bound, the exit status is one it may give,
nothing prints a traceback, no temp file or partial report is left, files that existed before
are untouched, and no child process outlives it. A case may add its own checks (the report
is valid, the message names the file). Every outcome is kept for the tally that
tests/conftest.py prints at the end of the run.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import psutil

from tests.terminal import TMUX, Terminal, installed_command

HERE = Path(__file__).resolve().parent
INJECT = HERE / "inject"
SITE, FAKE_NVML, FAKE_TORCH = INJECT / "site", INJECT / "nvml", INJECT / "torch"
ROOT = HERE.parent.parent
TAG = "GPU_WIZARD_FAULT_CASE"


@dataclass
class Outcome:
    case_id: str
    returncode: int | None
    stdout: str
    stderr: str
    seconds: float
    workdir: Path
    problems: list[str] = field(default_factory=list)

    @property
    def survived(self) -> bool:
        return not self.problems


# Every outcome of this run, for the tally; the conftest prints it.
TALLY: list[Outcome] = []


@dataclass
class Case:
    id: str
    argv: list[str]
    expect: tuple[int, ...] = (0,)
    faults: tuple[str, ...] = ()            # names for inject/site/sitecustomize.py
    env: dict[str, str] = field(default_factory=dict)
    paths: tuple[Path, ...] = ()            # folders put first on PYTHONPATH (fake modules)
    bound: float = 45.0                      # seconds before the case counts as hung
    setup: Callable[[Path], None] | None = None
    signal_at: str | float | None = None     # "mark" (the slow-save mark) or seconds after start
    signum: int = signal.SIGINT
    limit_file_size: int | None = None       # RLIMIT_FSIZE in bytes: a real kernel EFBIG
    check: Callable[[Outcome], list[str]] | None = None
    python_m: bool = False                   # `python -m wizard`: PYTHONPATH picks the package


def command(python_m: bool = False) -> list[str]:
    """The installed console script; `python -m wizard` for a damaged copy on PYTHONPATH."""
    installed = None if python_m else installed_command()
    return [installed] if installed else [sys.executable, "-m", "wizard"]


def base_env(workdir: Path, case_id: str, paths: tuple[Path, ...], faults: tuple[str, ...],
             extra: dict[str, str]) -> dict[str, str]:
    """A user's environment: no inherited Python settings, English UTF-8, a home in workdir."""
    home = workdir / "home"
    home.mkdir(exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "en_US.UTF-8",
        "TERM": "xterm-256color",
        TAG: f"{case_id}-{uuid.uuid4().hex[:8]}",
        "GPU_WIZARD_FAULT_MARK": str(workdir / ".fault-mark"),
    }
    pythonpath = [str(p) for p in paths] + ([str(SITE)] if faults else [])
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join(pythonpath)
    if faults:
        env["GPU_WIZARD_FAULTS"] = ",".join(faults)
    env.update(extra)
    return env


def snapshot(folder: Path) -> dict[str, str]:
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink() and path.name != ".fault-mark":
            out[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def survivors(tag: str) -> list[psutil.Process]:
    """Processes started for this case (they carry its tag in their environment) still alive."""
    alive = []
    for proc in psutil.process_iter():
        try:
            if (proc.pid != os.getpid() and proc.environ().get(TAG) == tag
                    and proc.status() != psutil.STATUS_ZOMBIE):
                alive.append(proc)
        except (psutil.Error, OSError):
            continue
    return alive


def _reap(tag: str, grace: float = 3.0) -> list[str]:
    """Children must be gone shortly after the command exits; name and kill any that are not."""
    deadline = time.monotonic() + grace
    while True:
        alive = survivors(tag)
        if not alive or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    names = []
    for proc in alive:
        try:
            names.append(" ".join(proc.cmdline())[:120])
            proc.kill()
        except psutil.Error:
            pass
    return names


def common_problems(out: Outcome, expect: tuple[int, ...], before: dict[str, str],
                    tag: str) -> list[str]:
    problems = []
    if out.returncode not in expect:
        problems.append(f"exit status {out.returncode}, expected one of {expect}")
    for stream, text in (("stdout", out.stdout), ("stderr", out.stderr)):
        if "Traceback (most recent call last)" in text:
            problems.append(f"a traceback on {stream}: {text[-600:]}")
    leftovers = [p.name for p in out.workdir.rglob("*.tmp")]
    if leftovers:
        problems.append(f"temp files left behind: {leftovers}")
    after = snapshot(out.workdir)
    changed = [name for name, digest in before.items() if after.get(name) != digest]
    if changed:
        problems.append(f"files that existed before were changed or removed: {changed}")
    orphans = _reap(tag)
    if orphans:
        problems.append(f"child processes outlived gpu-wizard: {orphans}")
    return problems


def limit_file_size(limit: int) -> Callable[[], None]:
    def preexec() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return preexec


def child_env(case: Case, workdir: Path) -> dict[str, str]:
    env = base_env(workdir, case.id, case.paths, case.faults, case.env)
    if case.limit_file_size:
        # The cap is for the report, but it cuts every file the child writes: a bytecode cache
        # it compiles would be cut at the cap too (a short write that CPython's atomic replace
        # does not notice), and every later run of the checkout would stop on "marshal data
        # too short".
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run_case(case: Case, workdir: Path) -> Outcome:
    workdir.mkdir(parents=True, exist_ok=True)
    if case.setup:
        case.setup(workdir)
    env = child_env(case, workdir)
    before = snapshot(workdir)
    mark = Path(env["GPU_WIZARD_FAULT_MARK"])
    start = time.monotonic()
    proc = subprocess.Popen(
        command(case.python_m) + case.argv, cwd=workdir, env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=limit_file_size(case.limit_file_size) if case.limit_file_size else None,
    )
    problems = []
    if case.signal_at is not None:
        if case.signal_at == "mark":
            while not mark.exists() and proc.poll() is None and time.monotonic() - start < case.bound:
                time.sleep(0.02)
            if not mark.exists():
                problems.append("the save never started, so the signal was not sent mid-save")
        else:
            time.sleep(float(case.signal_at))
        if proc.poll() is None:
            proc.send_signal(case.signum)
    try:
        stdout, stderr = proc.communicate(timeout=max(1.0, case.bound - (time.monotonic() - start)))
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
        problems.append(f"still running after {case.bound:g} s: hung")
    out = Outcome(case.id, proc.returncode, stdout.decode("utf-8", "replace"),
                  stderr.decode("utf-8", "replace"), time.monotonic() - start, workdir)
    out.problems = problems + common_problems(out, case.expect, before, env[TAG])
    if case.check and not out.problems:
        out.problems += case.check(out)
    TALLY.append(out)
    return out


# --------------------------------------------------------------------------- the TUI ---

@dataclass
class TuiCase:
    """The wizard in a real terminal: walk to `step`, then apply `action` there."""

    id: str
    step: str | None                  # the step at which the fault strikes (None: at start)
    action: str                       # "SIGINT" | "SIGTERM" | "SIGHUP" | "mid-save:SIGINT" | "save"
    args: tuple[str, ...] = ()
    faults: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    paths: tuple[Path, ...] = ()
    expect: tuple[int, ...] = (0,)
    setup: Callable[[Path], None] | None = None
    check: Callable[[Outcome], list[str]] | None = None
    bound: float = 90.0
    python_m: bool = False


EXIT_MARK = "FAULT-EXIT-"


def tui_shell(argv: list[str], env: dict[str, str], workdir: Path) -> str:
    """The pane's command: the wizard, then its exit status and the terminal's settings."""
    stty = workdir / ".stty"
    return (f"cd {shlex.quote(str(workdir))} && env -i "
            + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()) + " "
            + " ".join(shlex.quote(a) for a in argv)
            + f"; echo {EXIT_MARK}$?; stty -a > {shlex.quote(str(stty))}; sleep 600")


def wizard_process(tag: str, timeout: float = 20.0) -> psutil.Process:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for proc in survivors(tag):
            try:
                cmd = " ".join(proc.cmdline())
            except psutil.Error:
                continue
            if ("gpu-wizard" in cmd or "-m wizard" in cmd) and "wizard.probe" not in cmd \
                    and " -c " not in cmd:
                # The console script's own process, not a probe child.
                parent = proc.parent()
                if parent is None or parent.environ().get(TAG) != tag:
                    return proc
        time.sleep(0.05)
    raise AssertionError(f"the wizard process for {tag} was not found")


def terminal_problems(term: Terminal, workdir: Path) -> list[str]:
    problems = []
    modes = term.modes()
    for mode in ("alternate_on", "mouse_any_flag", "mouse_button_flag", "mouse_sgr_flag"):
        if modes.get(mode) not in ("0", None):
            problems.append(f"terminal left with {mode}={modes[mode]}")
    if modes.get("cursor_flag") == "0":
        problems.append("terminal left with the cursor hidden")
    stty_file = workdir / ".stty"
    deadline = time.monotonic() + 5
    while not stty_file.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    stty = stty_file.read_text() if stty_file.exists() else ""
    words = stty.split()
    for flag in ("icanon", "echo", "isig"):
        if f"-{flag}" in words or flag not in words:
            problems.append(f"terminal left without {flag} (stty: {flag} not set)")
    return problems


def tui_available() -> bool:
    return TMUX is not None
