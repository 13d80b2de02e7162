"""The fault suite's tally counts every case under pytest-xdist too, where each worker process
keeps its own list: the outcomes travel on the test reports to the process that prints them."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import ROOT


def test_the_tally_is_whole_across_workers():
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
                          "tests/faults/test_faults.py", "-k", "full_disk or read_only_folder or file_size"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:]
    tally = re.search(r"fault suite: (\d+) cases tried, (\d+) survived", run.stdout)
    assert tally is not None, run.stdout[-2000:]
    assert tally.groups() == ("3", "3")   # one per test: none lost in a worker
