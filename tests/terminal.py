"""A real terminal for tests: one private tmux server, one 80×24 window, one command.

Each Terminal gets its own tmux server (-L), so a developer's tmux sessions and environment
stay out of it. Every wait polls the screen with a bound; nothing sleeps blindly.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

TMUX = shutil.which("tmux")


def installed_command() -> str | None:
    """The `gpu-wizard` console script of the environment running the tests."""
    beside = Path(sys.executable).parent / "gpu-wizard"
    return str(beside) if beside.exists() else shutil.which("gpu-wizard")


class Terminal:
    def __init__(self, name: str, command: str, width: int = 80, height: int = 24,
                 config: str | None = None):
        """`config`: tmux configuration lines (e.g. "set -g set-clipboard on"), else none."""
        self.socket = f"gpu-wizard-test-{os.getpid()}-{name}"
        self.name = name
        conf = "/dev/null"
        if config is not None:
            import tempfile

            with tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False) as fh:
                fh.write(config + "\n")
            conf = fh.name
        try:
            self._tmux("-f", conf, "new-session", "-d", "-s", name, "-x", str(width),
                       "-y", str(height), command)
        finally:
            if config is not None:
                os.unlink(conf)

    def _tmux(self, *args: str) -> str:
        result = subprocess.run([TMUX, "-L", self.socket, *args], capture_output=True, text=True,
                                timeout=20)
        assert result.returncode == 0, result.stderr
        return result.stdout

    def screen(self) -> str:
        # -J: a long line the shell printed after the wizard closed reads as one line.
        return self._tmux("capture-pane", "-p", "-J", "-t", self.name)

    def history(self) -> str:
        """Everything the pane has shown, scrollback included."""
        return self._tmux("capture-pane", "-p", "-J", "-S", "-", "-t", self.name)

    def modes(self) -> dict[str, str]:
        """The terminal modes an application may leave behind (tmux tracks them per pane)."""
        names = ("alternate_on", "mouse_any_flag", "mouse_button_flag", "mouse_sgr_flag",
                 "cursor_flag", "keypad_flag")
        shown = self._tmux("display-message", "-p", "-t", self.name,
                           " ".join(f"#{{{n}}}" for n in names)).split()
        return dict(zip(names, shown))

    def title(self) -> str:
        """The pane's title: what an OSC 0/2 escape sequence from the program would set."""
        return self._tmux("display-message", "-p", "-t", self.name, "#{pane_title}").strip()

    def buffers(self) -> str:
        """tmux's paste buffers: with set-clipboard on, an OSC 52 sequence creates one."""
        return self._tmux("list-buffers")

    def wait_for(self, text: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            shown = self.screen()
            if text in shown:
                return shown
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} did not appear within {timeout:g} s; the screen:\n{shown}")
            time.sleep(0.1)

    def keys(self, *keys: str) -> None:
        for key in keys:
            self._tmux("send-keys", "-t", self.name, key)

    def type(self, text: str) -> None:
        self._tmux("send-keys", "-t", self.name, "-l", text)

    def close(self) -> None:
        subprocess.run([TMUX, "-L", self.socket, "kill-server"], capture_output=True, timeout=20)
