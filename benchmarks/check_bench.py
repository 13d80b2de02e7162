"""How much `gpu-wizard check --json` costs over the floor of importing its two probe libraries.

    python -m benchmarks.check_bench [--runs N]

Issue 2's target: check adds less than 0.3 s over `python -c "import psutil, pynvml"`.
"""

from __future__ import annotations

import argparse
import sys

from benchmarks.harness import compare, print_table


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    py = sys.executable
    cases = {
        "floor: import psutil, pynvml": [py, "-c", "import psutil, pynvml"],
        "gpu-wizard check --json": [py, "-m", "wizard", "check", "--json"],
        "gpu-wizard check --json --no-torch": [py, "-m", "wizard", "check", "--json", "--no-torch"],
        "gpu-wizard check (text)": [py, "-m", "wizard", "check"],
    }
    timings = compare(cases, runs=args.runs)
    print_table(timings, "floor: import psutil, pynvml")


if __name__ == "__main__":
    main()
