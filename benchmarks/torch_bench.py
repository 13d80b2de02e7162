"""`gpu-wizard check --json` with torch installed, against the two things it must beat.

    python -m benchmarks.torch_bench [--runs N] [--python PATH]

Issue 3's targets, measured in the same run on the same machine:
* at most 1.15x a bare `python -c "import torch"` (the floor: one torch import), which holds only
  if every other probe runs while the torch child is importing;
* at most 0.85x `python -m torch.utils.collect_env`.
`--python` points all three at another interpreter's torch (check gets `--python` too).

Discovery is included and not helped: every command runs from an empty scratch folder with no
activated environment, so check asks the pythons on PATH (and conda, when it is there) before it
settles on the interpreter that has torch — the slow path a user without a project venv gets.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile

from benchmarks.harness import Figure, compare, print_table

FLOOR = 'floor: python -c "import torch"'
COLLECT_ENV = "python -m torch.utils.collect_env"
CHECK = "gpu-wizard check --json"
TARGETS = {FLOOR: 1.15, COLLECT_ENV: 0.85}
SHORT = {FLOOR: "import torch", COLLECT_ENV: "collect_env"}


def _has_torch(python: str) -> bool:
    if python == sys.executable:
        return importlib.util.find_spec("torch") is not None
    probe = subprocess.run([python, "-c", "import importlib.util as u, sys; sys.exit(u.find_spec('torch') is None)"],
                           capture_output=True, timeout=60)
    return probe.returncode == 0


def measure(runs: int = 7, python: str = sys.executable) -> list[Figure]:
    """The two figures; an empty list (and a line on stderr) when `python` has no torch."""
    if not _has_torch(python):
        print(f"torch is not installed for {python}; nothing to compare", file=sys.stderr)
        return []
    check = [sys.executable, "-m", "wizard", "check", "--json"]
    if python != sys.executable:
        check += ["--python", python]
    cases = {
        FLOOR: [python, "-c", "import torch"],
        COLLECT_ENV: [python, "-m", "torch.utils.collect_env"],
        CHECK: check,
    }
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX")}
    with tempfile.TemporaryDirectory(prefix="gpu-wizard-bench-") as scratch:
        timings = compare(cases, runs=runs, env=env, cwd=scratch)
    print_table(timings, FLOOR)
    print()
    check_s = timings[CHECK].median
    figures = []
    for name, target in TARGETS.items():
        base = timings[name].median
        ratio = check_s / base
        ok = ratio <= target
        figures.append(Figure(f"torch check / {SHORT[name]}", ratio,
                              f"{check_s:.3f} s vs {base:.3f} s", f"<= {target:.2f}×", ok))
        print(f"check / {name}: {ratio:.2f} (target <= {target:.2f}) {'ok' if ok else 'OVER'}")
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose torch is timed")
    args = parser.parse_args(argv)
    figures = measure(args.runs, args.python)
    if not figures:
        return 2
    return 1 if any(f.ok is False for f in figures) else 0


if __name__ == "__main__":
    sys.exit(main())
