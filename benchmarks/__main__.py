"""Every benchmark figure with one command, each a ratio against its baseline from the same run.

    python -m benchmarks [--runs N | --quick] [FIGURE ...]

FIGURE is any of check, torch, tui, summarize (default: all, in that order). Each runs as
`python -m benchmarks.<name>_bench` would, printing its own table, and the end is one summary:

    figure                            target (from each bench's docstring)
    check --json --no-torch           <= 2.0× `import psutil, pynvml` (the import floor)
    torch check / import torch        <= 1.15×
    torch check / collect_env         <= 0.85×
    TUI first screen / minimal app    <= 1.5×
    TUI longest event-loop stall      <= 50 ms, slowest of the runs (absolute: the minimal app has none)
    TUI peak memory / minimal app     <= 1.5×, the wizard's largest run
    summarize 200 (table, --csv)      <= 1.5× tomllib reading the same files, median against median

`--runs N` overrides every bench's own default; `--quick` is 3 runs each (a smoke run: noisier).
Exit status 1 when a figure misses its target, 0 otherwise. Not a test: timing belongs here,
not in the test suite.
"""

from __future__ import annotations

import argparse
import sys
import time

from benchmarks.harness import Figure

BENCHES = ("check", "torch", "tui", "summarize")
QUICK_RUNS = 3


def _run(name: str, runs: int | None) -> list[Figure]:
    kwargs = {} if runs is None else {"runs": runs}
    if name == "check":
        from benchmarks.check_bench import measure
    elif name == "torch":
        from benchmarks.torch_bench import measure
    elif name == "tui":
        from benchmarks.tui_bench import measure
    else:
        from benchmarks.summarize_bench import measure
    figures = measure(**kwargs)
    if not figures:
        figures = [Figure(f"{name} (not measured)", None, "see above", "-", None)]
    return figures


def print_summary(figures: list[Figure], file=sys.stdout) -> None:
    rows = [("figure", "ratio", "measured", "target", "result")]
    for f in figures:
        ratio = "-" if f.ratio is None else f"{f.ratio:.2f}×"
        verdict = "-" if f.ok is None else "ok" if f.ok else "OVER"
        rows.append((f.name, ratio, f.measured, f.target, verdict))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    for i, row in enumerate(rows):
        cells = [row[0].ljust(widths[0]), row[1].rjust(widths[1]), row[2].ljust(widths[2]),
                 row[3].ljust(widths[3]), row[4]]
        print("  ".join(cells).rstrip(), file=file)
        if i == 0:
            print("  ".join("-" * w for w in widths), file=file)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n")[0])
    parser.add_argument("figures", nargs="*", metavar="FIGURE",
                        help=f"which to run: {', '.join(BENCHES)} (default: all)")
    runs = parser.add_mutually_exclusive_group()
    runs.add_argument("--runs", type=int, help="timed runs per case (default: each bench's own)")
    runs.add_argument("--quick", action="store_true", help=f"{QUICK_RUNS} runs each: a smoke run")
    args = parser.parse_args(argv)
    unknown = [f for f in args.figures if f not in BENCHES]
    if unknown:
        parser.error(f"unknown figure {', '.join(unknown)} (choose from {', '.join(BENCHES)})")
    count = QUICK_RUNS if args.quick else args.runs
    chosen = [b for b in BENCHES if b in args.figures] if args.figures else list(BENCHES)
    figures: list[Figure] = []
    started = time.monotonic()
    for name in chosen:
        print(f"=== {name} {'=' * (60 - len(name))}", flush=True)
        figures += _run(name, count)
        print(flush=True)
    print(f"=== summary ({sys.executable}, {time.monotonic() - started:.0f} s) ===")
    print_summary(figures)
    return 1 if any(f.ok is False for f in figures) else 0


if __name__ == "__main__":
    sys.exit(main())
