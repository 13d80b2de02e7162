"""`gpu-wizard check --json` with torch installed, against the two things it must beat.

    python -m benchmarks.torch_bench [--runs N] [--python PATH]

Issue 3's targets, measured in the same run on the same machine:
* at most 1.15x a bare `python -c "import torch"` (the floor: one torch import), which holds only
  if every other probe runs while the torch child is importing;
* at most 0.85x `python -m torch.utils.collect_env`.
`--python` points all three at another interpreter's torch (check gets `--python` too).
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys

from benchmarks.harness import compare, print_table

FLOOR = 'floor: python -c "import torch"'
COLLECT_ENV = "python -m torch.utils.collect_env"
CHECK = "gpu-wizard check --json"
TARGETS = {FLOOR: 1.15, COLLECT_ENV: 0.85}


def _has_torch(python: str) -> bool:
    if python == sys.executable:
        return importlib.util.find_spec("torch") is not None
    probe = subprocess.run([python, "-c", "import importlib.util as u, sys; sys.exit(u.find_spec('torch') is None)"],
                           capture_output=True, timeout=60)
    return probe.returncode == 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose torch is timed")
    args = parser.parse_args()
    if not _has_torch(args.python):
        print(f"torch is not installed for {args.python}; nothing to compare", file=sys.stderr)
        return 2
    check = [sys.executable, "-m", "wizard", "check", "--json"]
    if args.python != sys.executable:
        check += ["--python", args.python]
    cases = {
        FLOOR: [args.python, "-c", "import torch"],
        COLLECT_ENV: [args.python, "-m", "torch.utils.collect_env"],
        CHECK: check,
    }
    timings = compare(cases, runs=args.runs)
    print_table(timings, FLOOR)
    print()
    check_s = timings[CHECK].median
    failed = False
    for name, target in TARGETS.items():
        ratio = check_s / timings[name].median
        verdict = "ok" if ratio <= target else "OVER"
        failed |= ratio > target
        print(f"check / {name}: {ratio:.2f} (target <= {target:.2f}) {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
