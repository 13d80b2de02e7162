"""Run an external command with a hard time bound, whatever the child does.

`subprocess.run(timeout=...)` is not enough: after killing the child it waits without a bound,
which blocks forever on a child stuck in the kernel (a wedged GPU puts nvidia-smi and NVML in
uninterruptible sleep) or on grandchildren that keep the pipes open. Here the child gets its own
process group, the whole group is killed on timeout, and if even that does not free the pipes
within a second the child is abandoned: the caller always gets an answer.
"""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

_GRACE_SECONDS = 1.0

# Children still running. They live in their own process groups, so a Ctrl+C in the terminal
# does not reach them: whoever stops early (an interrupt, the wizard quitting mid-probe) kills
# them here, or a hung NVML child would outlive the wizard.
_LIVE: set[subprocess.Popen] = set()
_LIVE_LOCK = threading.Lock()


@dataclass(frozen=True)
class RunResult:
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
            import shutil
            import tempfile

            try:
                folder: str | None = tempfile.mkdtemp(prefix="gpu-wizard-")
                atexit.register(shutil.rmtree, folder, True)
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
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        out = err = b""
        try:
            # What it wrote before it hung still counts (the torch child reports as it goes).
            out, err = proc.communicate(timeout=_GRACE_SECONDS)
        except (subprocess.TimeoutExpired, OSError, ValueError):
            pass  # abandoned: stuck in the kernel; the OS reaps it when it wakes up
        return RunResult(
            "timeout",
            stdout=(out or b"").decode("utf-8", errors="replace"),
            stderr=(err or b"").decode("utf-8", errors="replace"),
            seconds=time.monotonic() - start,
            detail=f"no answer within {timeout:g} s",
        )
    except BaseException:  # interrupted (Ctrl+C, SIGTERM): take the child down too
        _kill_group(proc)
        raise
    finally:
        with _LIVE_LOCK:
            _LIVE.discard(proc)
    seconds = time.monotonic() - start
    stdout = out.decode("utf-8", errors="replace")
    stderr = err.decode("utf-8", errors="replace")
    if proc.returncode is not None and proc.returncode < 0:
        sig = _signal_name(-proc.returncode)
        return RunResult("crashed", proc.returncode, stdout, stderr, seconds, f"killed by {sig}")
    return RunResult("ok", proc.returncode, stdout, stderr, seconds)


def kill_running() -> int:
    """Kill every child still running (and its process group); how many there were."""
    with _LIVE_LOCK:
        procs = list(_LIVE)
    for proc in procs:
        if proc.poll() is None:
            _kill_group(proc)
    return len(procs)


atexit.register(kill_running)


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
    """Environment for a Python child that must import this package (and maybe test fakes)."""
    env = dict(os.environ)
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parts = list(extra_path or []) + [package_root]
    if env.get("PYTHONPATH"):
        parts.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(parts)
    env["PYTHONIOENCODING"] = "utf-8"
    env.pop("PYTHONSTARTUP", None)
    return env
