"""Ctrl+C, `kill` and a closed SSH session end gpu-wizard cleanly, never half-way through a save.

Python turns SIGINT into KeyboardInterrupt but lets SIGTERM and SIGHUP kill the process on the
spot: no `finally`, no temp-file clean-up, child probes left running. `install` makes those two
raise `Interrupted` (a KeyboardInterrupt) too, so one handler in the CLI covers all three.
`deferred` holds them back during a few lines that must finish once started (publishing a
report), and lets them go right after.

The Textual wizard handles the same signals on its event loop instead (screens/app.py): there a
signal is queued behind whatever the loop is doing, a save included.
"""

from __future__ import annotations

import atexit
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from pathlib import Path

# SIGHUP: the terminal went away (an SSH session dropped). Not on Windows.
HANDLED = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                if hasattr(signal, name))


# Reports this process has written (wizard.report.saving), for the message after Ctrl+C.
SAVED: list[Path] = []

# What must happen before this process ends, however it ends (children of ours ended, our
# temporary folder removed): run by atexit, and by the CLI's exit that skips Python's teardown.
_AT_END: list[Callable[[], None]] = []


def at_end(action: Callable[[], None]) -> None:
    """Run `action` when the process ends: at Python's exit, or at the CLI's fast one."""
    _AT_END.append(action)
    atexit.register(action)


def end_actions() -> None:
    """Run what at_end registered, now (the CLI's fast exit, which skips atexit)."""
    for action in reversed(_AT_END):
        action()


class Interrupted(KeyboardInterrupt):
    """A signal asked gpu-wizard to stop; `exit_code` is the shell's 128 + signal number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


def _raise(signum: int, frame: object) -> None:
    raise Interrupted(signum)


def install() -> None:
    """SIGTERM and SIGHUP raise Interrupted, like Ctrl+C raises KeyboardInterrupt."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in HANDLED:
        if signum == signal.SIGINT:
            continue
        if signal.getsignal(signum) is signal.SIG_IGN:
            continue  # nohup: the user asked for SIGHUP to be ignored
        signal.signal(signum, _raise)


def exit_code(exc: BaseException) -> int:
    return exc.exit_code if isinstance(exc, Interrupted) else 130


@contextmanager
def deferred() -> Iterator[None]:
    """Signals that arrive inside the block are acted on when it ends, not in the middle.

    Only the handlers that raise (ours and Python's Ctrl+C) are held back; an event loop's
    handler (the wizard) or an ignored signal is left as it is. Outside the main thread
    Python delivers no signals, so there is nothing to hold back.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous: dict[int, Callable[[int, FrameType | None], Any]] = {}
    for signum in HANDLED:
        handler = signal.getsignal(signum)
        if callable(handler) and (handler is _raise or handler is signal.default_int_handler):
            previous[signum] = handler
            signal.signal(signum, lambda number, frame: caught.append(number))
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if caught:
            previous[caught[0]](caught[0], None)
