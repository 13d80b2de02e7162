"""The NVML child, started before anything else a command loads.

The child is a whole second Python (about as long to start as importing psutil and pynvml in
this one): started first, it runs while the parent imports the probes, the diagnosis and the
catalog, instead of after them. Only the subprocess runner is loaded here.
"""

from __future__ import annotations

import sys
import threading

from wizard.probe.runner import RunResult, neutral_cwd, python_child_env, run_bounded

NVML_TIMEOUT = 8.0


def run_nvml_child(timeout: float = NVML_TIMEOUT, extra_path: list[str] | None = None) -> RunResult:
    """`python -m wizard.probe.nvml`, bounded in time."""
    return run_bounded(
        [sys.executable, "-m", "wizard.probe.nvml"], timeout, env=python_child_env(extra_path),
        cwd=neutral_cwd(),  # `-m` puts the folder it starts in first: not the user's
    )


class NvmlJob:
    """run_nvml_child in a thread, started now; `result()` waits for its RunResult."""

    def __init__(self, timeout: float = NVML_TIMEOUT, extra_path: list[str] | None = None) -> None:
        self._result: RunResult | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(timeout, extra_path), daemon=True,
                                        name="nvml-probe")
        self._thread.start()

    def _run(self, timeout: float, extra_path: list[str] | None) -> None:
        try:
            self._result = run_nvml_child(timeout, extra_path)
        except BaseException as exc:  # handed to whoever waits for the result
            self._error = exc

    def result(self) -> RunResult:
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result
