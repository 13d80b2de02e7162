"""One call in a daemon thread, whose result (or exception) whoever needs it waits for.

Probes run side by side this way: the NVML child, the hardware readers, interpreter discovery,
and every probe of a command (wizard.machine.live.settle). Daemon threads, not a pool: a slow listing
never delays gpu-wizard's exit (the runner's atexit ends the children), and `check` does not pay
for concurrent.futures and logging at start.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Generic, TypeVar

T = TypeVar("T")


class WaitTimeout(Exception):
    """`result(timeout)` ran out before the call returned."""


class Background(Generic[T]):
    """`call(*args)`, started now in its own thread."""

    def __init__(self, call: Callable[..., T], *args: Any, name: str = "probe") -> None:
        self._call = call
        self._args = args
        self._value: T | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True, name=name)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._value = self._call(*self._args)
        except BaseException as exc:  # handed to whoever waits for the result
            self._error = exc

    def result(self, timeout: float | None = None) -> T:
        """The call's return value, or its exception raised here; WaitTimeout when `timeout`
        seconds pass first."""
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise WaitTimeout(f"no answer within {timeout} s")
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]  # set: the thread has finished
