"""run_bounded: whatever the child does, the caller gets an answer in time."""

import sys
import time

from wizard.probe.runner import run_bounded


def test_normal_exit_and_output():
    result = run_bounded([sys.executable, "-c", "print('hello'); import sys; sys.exit(3)"], 20)
    assert (result.status, result.returncode, result.stdout.strip()) == ("ok", 3, "hello")
    assert not result.ok


def test_missing_program():
    result = run_bounded(["gpu-wizard-no-such-program-xyz"], 5)
    assert result.status == "not-found"


def test_timeout_kills_children_that_ignore_sigterm_and_grandchildren_holding_the_pipe():
    code = (
        "import signal, subprocess, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        "time.sleep(600)\n"
    )
    start = time.monotonic()
    result = run_bounded([sys.executable, "-c", code], 1.5)
    assert result.status == "timeout"
    assert time.monotonic() - start < 5


def test_crash_is_reported_with_the_signal():
    result = run_bounded([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"], 20)
    assert result.status == "crashed"
    assert "SIGSEGV" in result.detail


def test_undecodable_output_does_not_raise():
    result = run_bounded([sys.executable, "-c", "import sys; sys.stdout.buffer.write(b'\\xff\\xfe ok')"], 20)
    assert result.ok and "ok" in result.stdout
