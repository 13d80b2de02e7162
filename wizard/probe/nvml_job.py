"""The NVML child, started before anything else a command loads.

The child is a whole second Python (about as long to start as importing psutil and pynvml in
this one): started first, it runs while the parent imports the probes, the diagnosis and the
catalog, instead of after them. Only the subprocess runner is loaded here.
"""

from __future__ import annotations

import os
import sys

from wizard.background import Background
from wizard.probe.runner import RunResult, python_child_env, run_bounded

NVML_TIMEOUT = 8.0

# Where this package lies: the child finds it there, after the standard library.
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# `-c`, not `-m`: both put the folder the user is in first on the child's path, where a json.py
# of theirs would replace the standard library, but with `-c` the child can drop that entry
# before it imports anything. The package's folder goes last, not first (PYTHONPATH would put a
# whole site-packages ahead of the standard library).
CHILD_SOURCE = (
    "import sys\n"
    "sys.path[:] = [p for p in sys.path if p not in ('', '.')]\n"
    "sys.path.append(sys.argv[1])\n"
    "from wizard.probe.nvml import main\n"
    "sys.exit(main())\n"
)


def run_nvml_child(timeout: float = NVML_TIMEOUT, extra_path: list[str] | None = None) -> RunResult:
    """wizard.probe.nvml's main() in a child Python, bounded in time."""
    return run_bounded([sys.executable, "-c", CHILD_SOURCE, PACKAGE_ROOT], timeout,
                       env=python_child_env(extra_path))


class NvmlJob(Background[RunResult]):
    """run_nvml_child in a thread, started now; `result()` waits for its RunResult."""

    def __init__(self, timeout: float = NVML_TIMEOUT, extra_path: list[str] | None = None) -> None:
        super().__init__(run_nvml_child, timeout, extra_path, name="nvml-probe")
