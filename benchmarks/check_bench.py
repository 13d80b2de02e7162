"""How much `gpu-wizard check --json` costs over the floor of importing its two probe libraries.

    python -m benchmarks.check_bench [--runs N]

The target (issue 25, which relaxed issue 13's 2.0× so that no speed trick is kept for its own
sake): check takes at most 2.5× `python -c "import psutil, pynvml"` (the floor: no
hardware check in Python can skip those imports), as a ratio of medians measured in the same
run. The target is about the hardware probes, so it is judged on `check --json --no-torch`;
plain `check --json` also starts the PyTorch probe, and where torch is installed that costs a
torch import, whose own target is torch_bench's.
"""

from __future__ import annotations

import argparse
import sys

from benchmarks.harness import Figure, compare, print_table

FLOOR = "floor: import psutil, pynvml"
CHECK = "gpu-wizard check --json"
NO_TORCH = "gpu-wizard check --json --no-torch"
TARGET_RATIO = 2.5


def measure(runs: int = 9) -> list[Figure]:
    py = sys.executable
    cases = {
        FLOOR: [py, "-c", "import psutil, pynvml"],
        CHECK: [py, "-m", "wizard", "check", "--json"],
        NO_TORCH: [py, "-m", "wizard", "check", "--json", "--no-torch"],
        "gpu-wizard check (text)": [py, "-m", "wizard", "check"],
    }
    timings = compare(cases, runs=runs)
    print_table(timings, FLOOR)
    print()
    floor = timings[FLOOR].median
    figures = []
    for name, judged in ((NO_TORCH, True), (CHECK, False)):
        median = timings[name].median
        delta = median - floor
        ok = median / floor <= TARGET_RATIO if judged else None
        target = f"<= {TARGET_RATIO:.1f}× the import floor" if judged else "see the torch figure"
        figures.append(Figure(name.removeprefix("gpu-wizard "), median / floor,
                              f"{delta:+.3f} s ({median:.3f} vs {floor:.3f} s)", target, ok))
        verdict = "" if ok is None else "  ok" if ok else "  OVER"
        print(f"{name}: {median / floor:.2f}× the floor, {delta:+.3f} s over it "
              f"(target: {target}){verdict}")
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args(argv)
    figures = measure(args.runs)
    return 1 if any(f.ok is False for f in figures) else 0


if __name__ == "__main__":
    sys.exit(main())
