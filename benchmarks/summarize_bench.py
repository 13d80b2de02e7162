"""`gpu-wizard report summarize` over a class of 200 reports, against reading them with tomllib;
and a class of 1,000 (issue 28), as a table, as CSV and as the HTML page.

    python -m benchmarks.summarize_bench [--runs N] [--reports N] [--scale N] [--keep DIR]

The target (issue 25, which relaxed issue 13's 1.5×): summarizing 200 generated reports takes at
most 2.0× the tomllib floor
below, for the table and for `--csv`: the ratio of the medians of the runs (seven by default),
each run timing every case once, interleaved, as `check`'s benchmark does. The slowest run's
own ratio (candidate / floor of that run) is printed beside it, not judged: on a shared 2-core
VM the same build's per-run ratios spread from 0.93 to 1.62× (15 runs), so the slowest of
several measures the neighbours more than gpu-wizard. (The issue asks for the slowest of three
runs for the event-loop stall and the memory, where tui_bench.py judges it.) The issue's first
target, well under a second, is printed beside it (0.5 s) but depends on the machine.

The scale target (issue 28): 1,000 reports summarized, each of the table, `--csv` and
`--html OUT`, in under 2 s on the machine it runs on (the median of the runs; `--scale 0`
skips it). Seconds depend on the machine, so the ratio against the same run's tomllib floor
for those 1,000 files is printed beside each: it says what gpu-wizard adds to reading them.

The reports are made the way the wizard makes them (`build_report` on the recorded machines in
tests/machines, through the real `evaluate` (findings and advice)), with varied answers, both languages,
most redacted (each student's host name and home folder scrubbed) and a few `--no-redact`, plus
three broken files (not UTF-8, bad TOML, an invalid report), so the run also takes the "skipped,
exit 2" path a real class folder takes.

Baselines, measured in the same run and interleaved with the candidates:
* `python -c pass`: the interpreter's start, which no Python command avoids;
* the floor: `python -c` that reads and parses the same files with `tomllib` and nothing
  else. Any summarizer written in Python must at least start the interpreter and parse every
  file, so the ratio against this floor is what gpu-wizard adds: importing itself and its
  strings, validating each report, and rendering. The ratio is the figure.
Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import os
import sys
import tempfile
import tomllib
from pathlib import Path

from benchmarks.harness import Figure, Timing, compare, print_table
from tests.recorded import MACHINE_FILES

TARGET_RATIO = 2.0      # at most this many times the floor, median against median
TARGET_S = 0.5          # "well under a second": shown, not checked (it depends on the machine)
SCALE = 1000            # issue 28: a big course's reports
SCALE_TARGET_S = 2.0    # each output of those, median of the runs
RUNS = 7
FLOOR = "floor: tomllib reads the files"
START = "python -c pass"
TABLE = "gpu-wizard report summarize"
CSV = "gpu-wizard report summarize --csv"
HTML = "gpu-wizard report summarize --html OUT"
_READ = "import sys, tomllib\nfor name in sys.argv[1:]:\n    try:\n        tomllib.load(open(name, 'rb'))\n" \
        "    except Exception:\n        pass\n"

_GOALS = ("learning", "kaggle", "vision-apps", "image-generation", "llm-inference", "llm-finetune",
          "research")
_BUDGETS = ((0, "CNY"), (3000, "CNY"), (5000, "CNY"), (12000, "CNY"), (None, "USD"), (800, "USD"),
            (2500, "USD"))


def generate(folder: Path, count: int = 200) -> list[Path]:
    """`count` report files in `folder` (a few deliberately broken); their paths, in order."""
    from wizard.answers import Answers
    from wizard.evaluate import evaluate
    from wizard.knowledge.load import load_knowledge
    from wizard.probe.facts import machine_from_dict
    from wizard.report.building import build_report
    from wizard.report.saving import dumps_report

    knowledge = load_knowledge()
    goals = [g for g in _GOALS if g in knowledge.goal_ids] or list(knowledge.goal_ids)
    machines = []
    for path in MACHINE_FILES:
        with path.open("rb") as fh:
            machines.append(machine_from_dict(tomllib.load(fh)["machine"]))
    cache: dict[tuple, tuple] = {}
    created = dt.datetime(2026, 11, 30, 8, 0, tzinfo=dt.timezone.utc)
    paths: list[Path] = []
    broken = {count // 3: b"\xff\xfe not a report", count // 2: b"[[[\n", 2 * count // 3: None}
    for i in range(count):
        path = folder / f"s{i:03d}-gpu-report-20261130-{8 + i // 60:02d}{i % 60:02d}00.toml"
        paths.append(path)
        if i in broken:
            path.write_bytes(broken[i] if broken[i] is not None else
                             b'schema = "gpu-wizard/report/1"\nlanguage = "fr"\n')
            continue
        machine = machines[i % len(machines)]
        lang = "zh" if i % 3 == 0 else "en"
        amount, currency = _BUDGETS[i % len(_BUDGETS)]
        answers = Answers(("yes", "no", "unsure")[i % 3], ("yes", "unsure", "no")[i % 4 % 3],
                          ("laptop", "desktop", "server", "unsure")[i % 4], amount, currency,
                          goals[i % len(goals)])
        key = (i % len(machines), lang, answers)
        if key not in cache:
            outcome = evaluate(machine, answers, knowledge, lang)
            cache[key] = (outcome.findings, outcome.recommendation)
        findings, rec = cache[key]
        # Each student's own identifiers, as a live probe would see them.
        student = f"student{i:03d}"
        torch = machine.torch
        if torch is not None:
            torch = dataclasses.replace(torch, interpreter=f"/home/{student}/venv/bin/python3.11")
        ident = dataclasses.replace(machine, hostname=f"{student}-laptop", torch=torch)
        report = build_report(answers, ident, findings, rec, lang, redact=i % 10 != 7,
                              now=created + dt.timedelta(minutes=i), identifiers=[f"{student}-laptop"])
        path.write_text(dumps_report(report), encoding="utf-8")
    return paths


def slowest_ratio(candidate: Timing, floor: Timing) -> float:
    """The ratio of the slowest run: each run's candidate over the same run's floor."""
    return max(c / f for c, f in zip(candidate.samples, floor.samples))


def measure(runs: int = RUNS, reports: int = 200, keep: str | None = None,
            scale: int = SCALE) -> list[Figure]:
    figures = _ratios(runs, reports, keep)
    if scale:
        print()
        figures += _scale(runs, scale)
    return figures


def _ratios(runs: int, reports: int, keep: str | None) -> list[Figure]:
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="gpu-wizard-summarize-") as tmp:
        folder = Path(keep) if keep else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        files = [str(p) for p in generate(folder, reports)]
        cases = {
            START: [py, "-c", "pass"],
            FLOOR: [py, "-c", _READ, *files],
            TABLE: [py, "-m", "wizard", "report", "summarize", *files],
            CSV: [py, "-m", "wizard", "report", "summarize", "--csv", *files],
        }
        timings = compare(cases, runs=runs)
    print(f"`report summarize` over {reports} reports (3 of them broken):")
    print_table(timings, FLOOR)
    print()
    figures = []
    floor = timings[FLOOR]
    for name, label in ((TABLE, f"summarize {reports} (table)"), (CSV, f"summarize {reports} --csv")):
        ratio = timings[name].median / floor.median
        worst = slowest_ratio(timings[name], floor)
        slowest = max(timings[name].samples)
        ok = ratio <= TARGET_RATIO
        figures.append(Figure(label, ratio, f"median of {runs}: {timings[name].median:.3f} s, floor "
                              f"{floor.median:.3f} s; slowest run {worst:.2f}×",
                              f"<= {TARGET_RATIO:g}× tomllib", ok))
        print(f"{label}: {ratio:.2f}× the tomllib floor, median against median of {runs} runs "
              f"(target <= {TARGET_RATIO:g}×); the slowest run {worst:.2f}× its floor, "
              f"{slowest:.3f} s (the issue's < {TARGET_S:g} s: {'yes' if slowest < TARGET_S else 'no'})"
              f"  {'ok' if ok else 'OVER'}")
    return figures


def _scale(runs: int, reports: int) -> list[Figure]:
    """Issue 28: `reports` files as a table, as CSV and as the page, each against SCALE_TARGET_S."""
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="gpu-wizard-summarize-") as tmp:
        files = [str(p) for p in generate(Path(tmp), reports)]
        page = str(Path(tmp) / "roster.html")
        summarize = [py, "-m", "wizard", "report", "summarize"]
        cases = {
            START: [py, "-c", "pass"],
            FLOOR: [py, "-c", _READ, *files],
            TABLE: [*summarize, *files],
            CSV: [*summarize, "--csv", *files],
            HTML: [*summarize, "--html", page, *files],
        }
        timings = compare(cases, runs=runs, env={**os.environ, "COLUMNS": "80"})
    print(f"`report summarize` over {reports} reports (3 of them broken):")
    print_table(timings, FLOOR)
    print()
    figures = []
    floor = timings[FLOOR]
    for name, label in ((TABLE, "table"), (CSV, "--csv"), (HTML, "--html")):
        median = timings[name].median
        ok = median < SCALE_TARGET_S
        figures.append(Figure(f"summarize {reports} {label}", median / floor.median,
                              f"median of {runs}: {median:.3f} s (slowest {max(timings[name].samples):.3f} s), "
                              f"floor {floor.median:.3f} s", f"< {SCALE_TARGET_S:g} s", ok))
        print(f"summarize {reports} {label}: {median:.3f} s, median of {runs} runs (target < "
              f"{SCALE_TARGET_S:g} s); {median / floor.median:.2f}× the tomllib floor of the same files"
              f"  {'ok' if ok else 'OVER'}")
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=RUNS, help="timed runs; their medians count")
    parser.add_argument("--reports", type=int, default=200, help="how many report files to generate")
    parser.add_argument("--scale", type=int, default=SCALE,
                        help="also time a class of this many as table, CSV and HTML (0: skip)")
    parser.add_argument("--keep", metavar="DIR", help="write the reports here and keep them")
    args = parser.parse_args(argv)
    figures = measure(args.runs, args.reports, args.keep, args.scale)
    return 0 if all(f.ok for f in figures) else 1


if __name__ == "__main__":
    sys.exit(main())
