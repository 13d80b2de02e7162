"""The wizard's feel, measured against a minimal Textual app in the same run.

    python -m benchmarks.tui_bench [--runs N] [--machine FILE]

Three figures (issue 5's targets):
  * time to the first screen, from process start to the first step painted (the refresh
    after it mounted; the loop then takes keys), as a ratio to a Label + Footer Textual app
    measured at the same moment (target ≤ 1.5×);
  * the longest event-loop stall while all the live probes run (target ≤ 50 ms), measured
    as the lateness of a 5 ms heartbeat inside the running wizard;
  * peak memory (max RSS) of the wizard after the probes and every screen, as a ratio to
    the minimal app (target ≤ 1.5×).
Each run is a fresh headless process; wizard and baseline runs alternate, so a noisy
neighbour slows both. Not a test: nothing here asserts. Linux/macOS (uses `resource`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time

from benchmarks.harness import Figure, Timing, print_table

HEARTBEAT = 0.005


def _rss_mb() -> float:
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def _emit(started: float, **figures: float) -> None:
    print(json.dumps({"first_screen_s": figures.pop("first"), **figures,
                      "wall_s": time.time() - started}), flush=True)


# ------------------------------------------------------------------------- children ---

def child_minimal(started: float) -> None:
    from textual.app import App, ComposeResult
    from textual.widgets import Footer, Label

    class Minimal(App):
        shown_at: float | None = None

        def compose(self) -> ComposeResult:
            yield Label("hello")
            yield Footer()

        def on_mount(self) -> None:
            # The same moment the wizard records: its first screen has been painted.
            self.call_after_refresh(lambda: setattr(self, "shown_at", time.time()))

    async def auto(pilot) -> None:
        while pilot.app.shown_at is None:
            await asyncio.sleep(0.001)
        await pilot.pause()
        _emit(started, first=pilot.app.shown_at - started, stall_ms=0.0, rss_mb=_rss_mb())
        pilot.app.exit()

    Minimal().run(headless=True, size=(80, 24), auto_pilot=auto)


def child_wizard(started: float, machine_file: str | None) -> None:
    from screens.step import STEPS
    from screens.app import make_app

    machine = None
    if machine_file:
        from wizard.machine_file import load_machine

        machine = load_machine(machine_file)
    app = make_app("en", machine=machine, ascii_marks=False)

    async def auto(pilot) -> None:
        while app.first_shown_at is None:
            await asyncio.sleep(0.001)
        first = app.first_shown_at - started
        # The heartbeat: any lateness beyond its 5 ms is time the loop could not answer keys.
        worst, worst_at = 0.0, 0.0
        deadline = time.monotonic() + 60
        settled_at = None
        while time.monotonic() < deadline:
            tick = time.perf_counter()
            await asyncio.sleep(HEARTBEAT)
            late = time.perf_counter() - tick - HEARTBEAT
            if late > worst:
                worst, worst_at = late, time.time() - app.first_shown_at
            if app.state.live.all_settled and settled_at is None:
                settled_at = time.monotonic()
            if settled_at is not None and time.monotonic() - settled_at > 0.3:
                break   # a little past the last probe, so its panel update is counted
        probes_s = time.time() - started
        for index in range(1, len(STEPS)):    # every screen once: the peak memory
            app.goto(index)
            await pilot.pause()
            await pilot.pause()
        _emit(started, first=first, stall_ms=worst * 1000, stall_at_s=worst_at, rss_mb=_rss_mb(),
              probes_s=probes_s)
        app.exit()

    app.run(headless=True, size=(80, 24), auto_pilot=auto)


# --------------------------------------------------------------------------- parent ---

def run_child(kind: str, machine_file: str | None) -> dict:
    argv = [sys.executable, "-m", "benchmarks.tui_bench", "--child", kind, "--started",
            repr(time.time())]
    if machine_file:
        argv += ["--machine", machine_file]
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TEXTUAL")}
    out = subprocess.run(argv, capture_output=True, text=True, timeout=180, env=env)
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if out.returncode != 0 or not lines:
        raise SystemExit(f"{kind} run failed ({out.returncode}):\n{out.stderr[-2000:]}")
    return json.loads(lines[-1])


def measure(runs: int = 7, machine: str | None = None) -> list[Figure]:
    run_child("minimal", None)            # warm the file cache before timing anything
    run_child("wizard", machine)
    results: dict[str, list[dict]] = {"minimal": [], "wizard": []}
    for _ in range(runs):
        for kind in results:
            results[kind].append(run_child(kind, machine if kind == "wizard" else None))

    def series(kind: str, key: str) -> list[float]:
        return [r[key] for r in results[kind]]

    label = "gpu-wizard (recorded machine)" if machine else "gpu-wizard (live probes)"
    first = {"minimal Textual app": Timing("minimal Textual app", series("minimal", "first_screen_s")),
             label: Timing(label, series("wizard", "first_screen_s"))}
    print("Time to the first screen (process start → first screen painted):")
    print_table(first, "minimal Textual app")
    ratio = first[label].median / first["minimal Textual app"].median
    stall = max(series("wizard", "stall_ms"))
    stall_at = max(results["wizard"], key=lambda r: r["stall_ms"])["stall_at_s"]
    stall_median = sorted(series("wizard", "stall_ms"))[len(results["wizard"]) // 2]
    rss_min = sorted(series("minimal", "rss_mb"))[len(results["minimal"]) // 2]
    rss_wiz = sorted(series("wizard", "rss_mb"))[len(results["wizard"]) // 2]
    print()
    print(f"first screen:   {ratio:.2f}× the minimal app (target ≤ 1.5×)  "
          f"{'ok' if ratio <= 1.5 else 'OVER'}")
    print(f"longest stall:  {stall:.1f} ms worst of {runs} runs ({stall_at:.2f} s after the "
          f"first screen), median {stall_median:.1f} ms "
          f"(target ≤ 50 ms)  {'ok' if stall <= 50 else 'OVER'}")
    print(f"peak memory:    {rss_wiz:.1f} MB vs {rss_min:.1f} MB = {rss_wiz / rss_min:.2f}× "
          f"(target ≤ 1.5×)  {'ok' if rss_wiz / rss_min <= 1.5 else 'OVER'}")
    if not machine:
        probes = sorted(series("wizard", "probes_s"))[len(results["wizard"]) // 2]
        print(f"all probes settled {probes:.2f} s after start (median), the first screen long before")
    minimal_first = first["minimal Textual app"].median
    return [
        Figure("TUI first screen / minimal app", ratio,
               f"{first[label].median:.3f} s vs {minimal_first:.3f} s", "<= 1.5×", ratio <= 1.5),
        # The minimal app runs no probes, so it has no stall to compare with: an absolute figure.
        Figure("TUI longest event-loop stall", None,
               f"{stall:.1f} ms worst of {runs}, median {stall_median:.1f} ms", "<= 50 ms",
               stall <= 50),
        Figure("TUI peak memory / minimal app", rss_wiz / rss_min,
               f"{rss_wiz:.1f} MB vs {rss_min:.1f} MB", "<= 1.5×", rss_wiz / rss_min <= 1.5),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--machine", help="time the wizard on a recorded machine (no probes)")
    parser.add_argument("--child", choices=("minimal", "wizard"), help=argparse.SUPPRESS)
    parser.add_argument("--started", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        started = args.started or time.time()
        if args.child == "minimal":
            child_minimal(started)
        else:
            child_wizard(started, args.machine)
        return 0
    figures = measure(args.runs, args.machine)
    return 1 if any(f.ok is False for f in figures) else 0


if __name__ == "__main__":
    sys.exit(main())
