"""Run an external command with a hard time bound, whatever the child does.

`subprocess.run(timeout=...)` is not enough: after killing the child it waits without a bound,
which blocks forever on a child stuck in the kernel (a wedged GPU puts nvidia-smi and NVML in
uninterruptible sleep) or on grandchildren that keep the pipes open. Here the child gets its own
process group, the whole group is killed on timeout, and if even that does not free the pipes
within a second the child is abandoned: the caller always gets an answer.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from typing import Any, Callable, NamedTuple

from wizard.signals import at_end

_GRACE_SECONDS = 1.0
# Every answer we read is a few kilobytes; a child that floods its pipes (a loop, a hostile
# "python") is stopped rather than held in memory. Of stderr only the end matters.
MAX_STDOUT = 8 * 2**20
MAX_STDERR = 256 * 2**10

# Children still running. They live in their own process groups, so a Ctrl+C in the terminal
# does not reach them: whoever stops early (an interrupt, the wizard quitting mid-probe) kills
# them here, or a hung NVML child would outlive the wizard.
_LIVE: set[subprocess.Popen] = set()
_LIVE_LOCK = threading.Lock()


# A named tuple, not a dataclass: this module is on the way to the first child process, and
# `dataclasses` costs several milliseconds to import before the NVML child could start.
class RunResult(NamedTuple):
    status: str  # "ok" (ran and exited, any code) | "timeout" | "not-found" | "crashed" | "error"
    returncode: int | None = None
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok" and self.returncode == 0


_NEUTRAL: list[str | None] = []


def neutral_cwd() -> str | None:
    """An empty folder for Python children to start in, made once and removed at exit.

    A child started in the user's folder puts that folder first on its path: a json.py or
    platform.py of theirs would replace the standard library inside our check. None when no
    folder can be made (a read-only temp): the child's own path clean-up still applies."""
    with _LIVE_LOCK:
        if not _NEUTRAL:
            # Only when a Python child runs: +1.5-2 ms on every command at the top, which the CLI
            # imports (measured 2026-12-04).
            import tempfile

            folder: str | None
            try:
                folder = tempfile.mkdtemp(prefix="gpu-wizard-")
            except OSError:
                folder = None
            _NEUTRAL.append(folder)
        return _NEUTRAL[0]


def run_bounded(
    argv: list[str],
    timeout: float,
    *,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    background: bool = False,
) -> RunResult:
    """`background`: at a lower CPU priority (POSIX), for work nobody is waiting on yet, so it
    never takes the processor from the wizard's screen or from the probe that matters."""
    start = time.monotonic()
    kwargs: dict = {}
    if sys.platform == "win32":
        kwargs["creationflags"] = getattr(subprocess, "CREATE_NO_WINDOW", 0) | getattr(
            subprocess, "CREATE_NEW_PROCESS_GROUP", 0
        )
    else:
        kwargs["start_new_session"] = True
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
            **kwargs,
        )
    except FileNotFoundError:
        return RunResult("not-found", detail=f"{argv[0]} was not found")
    except OSError as exc:
        return RunResult("error", detail=f"{argv[0]} could not start: {exc.strerror or exc}")

    with _LIVE_LOCK:
        _LIVE.add(proc)
    if background and hasattr(os, "setpriority"):
        try:
            os.setpriority(os.PRIO_PROCESS, proc.pid, 10)
        except OSError:  # already gone, or not allowed: it just runs at normal priority
            pass
    out, err = _Reader(proc.stdout, MAX_STDOUT, keep="head", on_full=lambda: _kill_group(proc)), \
        _Reader(proc.stderr, MAX_STDERR, keep="tail")
    # Popen.wait(timeout) polls with sleeps that double up to 50 ms, so it notices a child's
    # exit up to 50 ms late (25 ms on average: a third of the NVML probe). A thread blocked in
    # a plain wait() wakes the moment the child exits.
    waiter = threading.Thread(target=proc.wait, daemon=True, name="run-bounded-wait")
    waiter.start()
    try:
        waiter.join(timeout)
        if waiter.is_alive():
            raise subprocess.TimeoutExpired(argv, timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        # What it wrote before it hung still counts (the torch child reports as it goes); a
        # child stuck in the kernel is abandoned and reaped by the OS when it wakes up.
        out.join(_GRACE_SECONDS)
        err.join(_GRACE_SECONDS)
        return RunResult("timeout", stdout=out.text(), stderr=err.text(),
                         seconds=time.monotonic() - start, detail=f"no answer within {timeout:g} s")
    except BaseException:  # interrupted (Ctrl+C, SIGTERM): take the child down too
        _kill_group(proc)
        raise
    finally:
        with _LIVE_LOCK:
            _LIVE.discard(proc)
    # Whatever it started in its group goes with it (a grandchild holding our pipes open, or
    # a daemon it left behind), so nothing of a probe outlives the probe.
    _kill_group(proc)
    out.join(max(_GRACE_SECONDS, timeout - (time.monotonic() - start)))
    err.join(_GRACE_SECONDS)
    seconds = time.monotonic() - start
    stdout, stderr = out.text(), err.text()
    if out.overflowed:
        return RunResult("error", proc.returncode, stdout, stderr, seconds,
                         f"it wrote more than {MAX_STDOUT // 2**20} MB of output")
    if proc.returncode is not None and proc.returncode < 0:
        sig = _signal_name(-proc.returncode)
        return RunResult("crashed", proc.returncode, stdout, stderr, seconds, f"killed by {sig}")
    return RunResult("ok", proc.returncode, stdout, stderr, seconds)


class _Reader:
    """One pipe, read in a thread to EOF: the first `limit` bytes (head) or the last (tail)."""

    def __init__(self, pipe: Any, limit: int, keep: str, on_full: Callable[[], None] | None = None):
        self.data = bytearray()
        self.overflowed = False
        self._pipe, self._limit, self._keep, self._on_full = pipe, limit, keep, on_full
        self._thread = threading.Thread(target=self._run, daemon=True, name="run-bounded-reader")
        self._thread.start()

    def _run(self) -> None:
        try:
            while True:
                chunk = self._pipe.read1(65536) if hasattr(self._pipe, "read1") else self._pipe.read(65536)
                if not chunk:
                    break
                if self._keep == "tail":
                    self.data += chunk
                    del self.data[:-self._limit]
                elif not self.overflowed:
                    room = self._limit - len(self.data)
                    self.data += chunk[:room]
                    if len(chunk) > room:
                        self.overflowed = True
                        if self._on_full is not None:
                            self._on_full()
        except (OSError, ValueError):
            pass
        finally:
            try:
                self._pipe.close()
            except OSError:
                pass

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)

    def text(self) -> str:
        return bytes(self.data).decode("utf-8", errors="replace")


def kill_running() -> int:
    """Kill every child still running (and its process group); how many there were."""
    with _LIVE_LOCK:
        procs = list(_LIVE)
    for proc in procs:
        if proc.poll() is None:
            _kill_group(proc)
    return len(procs)


def end_of_process() -> None:
    """What must happen before any exit: every child still running ended, the neutral folder
    removed: at Python's exit, or at the CLI's fast one (wizard.signals.at_end)."""
    kill_running()
    with _LIVE_LOCK:
        folders = [f for f in _NEUTRAL if f]
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


at_end(end_of_process)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        if sys.platform == "win32":
            proc.kill()
        else:
            os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        try:
            proc.kill()
        except OSError:
            pass


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def python_child_env(extra_path: list[str] | None = None) -> dict[str, str]:
    """The environment a Python child starts in: the user's own, so it sees the modules they
    would see, plus `extra_path` first (tests' fakes), UTF-8 output and no start-up script."""
    env = dict(os.environ)
    if extra_path:
        parts = list(extra_path) + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
        env["PYTHONPATH"] = os.pathsep.join(parts)
    env["PYTHONIOENCODING"] = "utf-8"
    env.pop("PYTHONSTARTUP", None)
    # macOS framework builds leak this into children, which then believe they are the venv.
    env.pop("__PYVENV_LAUNCHER__", None)
    return env
