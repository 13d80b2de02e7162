"""run_bounded: whatever the child does, the caller gets an answer in time."""

import sys
import time

from wizard.probe.runner import MAX_STDERR, MAX_STDOUT, run_bounded


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


def test_a_child_that_floods_its_output_is_stopped_not_held_in_memory():
    import resource

    flood = "import sys\nwhile True: sys.stdout.write('x' * 65536)\n"
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = run_bounded([sys.executable, "-c", flood], 60)
    grew_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert result.status == "error" and "more than 8 MB" in result.detail
    assert len(result.stdout) == MAX_STDOUT
    assert grew_mb < 64, f"the reader kept {grew_mb:.0f} MB"


def test_of_a_flood_on_stderr_the_end_is_kept():
    noisy = ("import sys\nfor i in range(200000): sys.stderr.write('warning %d\\n' % i)\n"
             "sys.stderr.write('the last line\\n')\n")
    result = run_bounded([sys.executable, "-c", noisy], 60)
    assert result.ok and result.stderr.endswith("the last line\n")
    assert len(result.stderr.encode()) <= MAX_STDERR


def test_what_a_child_leaves_running_in_its_group_ends_with_it(tmp_path):
    import os

    pid_file = tmp_path / "pid"
    code = ("import subprocess, sys\n"
            "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'],"
            " stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
            f"open({str(pid_file)!r}, 'w').write(str(p.pid))\n")
    result = run_bounded([sys.executable, "-c", code], 20)
    assert result.ok
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        # A killed child of a reaped parent is a zombie until init reaps it: that counts as gone.
        try:
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().split(")")[-1].split()[0] == "Z":
                    return
        except OSError:
            return
        time.sleep(0.05)
    raise AssertionError("the grandchild outlived the probe")
