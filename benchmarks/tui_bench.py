"""The wizard's feel, measured against a minimal Textual app in the same run.

    python -m benchmarks.tui_bench [--runs N] [--machine FILE] [--why]

Three figures (issue 5's targets; issue 13: the last two must hold on the slowest run):
  * time to the first screen, from process start to the first step painted (the refresh
    after it mounted; the loop then takes keys), as a ratio to a Label + Footer Textual app
    measured at the same moment (target ≤ 1.5×; medians);
  * the longest event-loop stall while all the live probes run (target ≤ 50 ms), measured
    as the lateness of a 5 ms heartbeat inside the running wizard: the worst of all runs,
    with the event loop's own CPU time in it (the rest it waited: for the processor, taken
    by the probes' children, or for another thread's turn);
  * peak memory (max RSS) of the wizard after the probes and every screen, as a ratio to
    the minimal app (target ≤ 1.5×): the wizard's largest run against the minimal app's
    median (its own runs hardly differ).
The heartbeat keeps beating while the wizard then shows every step once; the longest stall
there (a screen switch) is printed too, not judged. `--why` samples the wizard's main thread
and every other thread every millisecond and prints where they were during the longest stalls
(the sampling itself costs time and memory: use it to find a stall, not to time one).
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

from benchmarks.harness import Figure, Timing, bench_env, print_table

HEARTBEAT = 0.005
SAMPLE_EVERY = 0.001


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


class Heartbeat:
    """A 5 ms sleep in a loop on the wizard's event loop: its lateness is time no key is read.

    Keeps the worst lateness per phase ("probes", "screens") with when it began."""

    def __init__(self) -> None:
        self.phase = "probes"
        # phase → (lateness s, start perf_counter, main thread's CPU seconds meanwhile)
        self.worst: dict[str, tuple[float, float, float]] = {}

    async def run(self) -> None:
        while True:
            tick, cpu = time.perf_counter(), time.thread_time()
            await asyncio.sleep(HEARTBEAT)
            late = time.perf_counter() - tick - HEARTBEAT
            if late > self.worst.get(self.phase, (0.0, 0.0, 0.0))[0]:
                self.worst[self.phase] = (late, tick, time.thread_time() - cpu)


class Sampler:
    """Where every thread is, every millisecond (--why): what runs during a stall.

    A main thread that shows few samples in a long stall was not running Python: it waited
    for the GIL or an import lock another thread held (their stacks say which), or the OS
    gave its core to another process."""

    def __init__(self) -> None:
        import threading

        self.samples: list[tuple[float, str, tuple[str, ...]]] = []
        self._main = threading.main_thread().ident
        self._stop = threading.Event()
        self._me = None
        self._thread = threading.Thread(target=self._run, daemon=True, name="bench-sampler")
        self._thread.start()

    @staticmethod
    def _where(filename: str) -> str:
        return filename.split("site-packages/")[1] if "site-packages/" in filename else os.path.relpath(filename)

    def _run(self) -> None:
        import threading
        import traceback

        self._me = threading.get_ident()
        names = {}
        while not self._stop.wait(SAMPLE_EVERY):
            now = time.perf_counter()
            for ident, frame in sys._current_frames().items():
                if ident == self._me:
                    continue
                if ident not in names:
                    names = {t.ident: t.name for t in threading.enumerate()}
                name = "main" if ident == self._main else names.get(ident, "?")
                stack = tuple(f"{self._where(f.filename)}:{f.lineno} {f.name}"
                              for f in traceback.extract_stack(frame))
                self.samples.append((now, name, stack))

    def during(self, start: float, end: float) -> list[str]:
        """Per thread, the frames most samples in [start, end] share (ours and Textual's)."""
        from collections import Counter, defaultdict

        self._stop.set()
        counts: dict[str, Counter] = defaultdict(Counter)
        totals: Counter = Counter()
        for at, name, stack in self.samples:
            if start <= at <= end:
                totals[name] += 1
                for line in set(stack):
                    counts[name][line] += 1
        out = []
        for name in sorted(totals, key=lambda n: (n != "main", n)):
            out.append(f"thread {name}: {totals[name]} samples")
            ours = [(n, line) for line, n in counts[name].items()
                    if line.startswith(("wizard/", "screens/")) or "textual/" in line
                    or "_bootstrap" in line or "tomllib" in line]
            ours.sort(key=lambda item: -item[0])
            out += [f"    {n} {line}" for n, line in ours[:12]]
        return out


def child_wizard(started: float, machine_file: str | None, why: bool = False) -> None:
    from screens.app import make_app
    from screens.step import STEPS

    machine = None
    if machine_file:
        from wizard.machine.recorded import load_machine

        machine = load_machine(machine_file)
    app = make_app("en", machine=machine, ascii_marks=False)
    sampler = Sampler() if why else None

    async def auto(pilot) -> None:
        while app.first_shown_at is None:
            await asyncio.sleep(0.001)
        first = app.first_shown_at - started
        beat = Heartbeat()
        beating = asyncio.ensure_future(beat.run())
        deadline = time.monotonic() + 60
        settled_at = None
        while time.monotonic() < deadline:
            await asyncio.sleep(HEARTBEAT)
            if app.state.live.all_settled and settled_at is None:
                settled_at = time.monotonic()
            if settled_at is not None and time.monotonic() - settled_at > 0.3:
                break   # a little past the last probe, so its panel update is counted
        probes_s = time.time() - started
        beat.phase = "screens"
        for index in range(1, len(STEPS)):    # every screen once: the peak memory
            app.goto(index)
            await pilot.pause()
            await pilot.pause()
        await asyncio.sleep(0.05)
        beating.cancel()
        stall, stall_tick, stall_cpu = beat.worst.get("probes", (0.0, 0.0, 0.0))
        screens_stall = beat.worst.get("screens", (0.0, 0.0, 0.0))[0]
        to_wall = time.time() - time.perf_counter()
        figures = dict(stall_ms=stall * 1000, stall_cpu_ms=stall_cpu * 1000,
                       stall_at_s=stall_tick + to_wall - app.first_shown_at,
                       screens_stall_ms=screens_stall * 1000, rss_mb=_rss_mb(), probes_s=probes_s)
        if sampler is not None:
            for phase, (late, tick, _cpu) in beat.worst.items():
                figures[f"why_{phase}"] = sampler.during(tick, tick + HEARTBEAT + late)
        _emit(started, first=first, **figures)
        app.exit()

    app.run(headless=True, size=(80, 24), auto_pilot=auto)


# --------------------------------------------------------------------------- parent ---

def run_child(kind: str, machine_file: str | None, why: bool = False) -> dict:
    argv = [sys.executable, "-m", "benchmarks.tui_bench", "--child", kind, "--started",
            repr(time.time())]
    if machine_file:
        argv += ["--machine", machine_file]
    if why:
        argv.append("--why")
    env = {k: v for k, v in bench_env().items() if k not in ("NO_COLOR", "TEXTUAL")}
    out = subprocess.run(argv, capture_output=True, text=True, timeout=180, env=env)
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if out.returncode != 0 or not lines:
        raise SystemExit(f"{kind} run failed ({out.returncode}):\n{out.stderr[-2000:]}")
    return json.loads(lines[-1])


def measure(runs: int = 7, machine: str | None = None, why: bool = False) -> list[Figure]:
    run_child("minimal", None)            # warm the file cache before timing anything
    run_child("wizard", machine)
    results: dict[str, list[dict]] = {"minimal": [], "wizard": []}
    for _ in range(runs):
        for kind in results:
            results[kind].append(run_child(kind, machine if kind == "wizard" else None,
                                           why and kind == "wizard"))

    def series(kind: str, key: str) -> list[float]:
        return [r[key] for r in results[kind]]

    def median(values: list[float]) -> float:
        return sorted(values)[len(values) // 2]

    label = "gpu-wizard (recorded machine)" if machine else "gpu-wizard (live probes)"
    first = {"minimal Textual app": Timing("minimal Textual app", series("minimal", "first_screen_s")),
             label: Timing(label, series("wizard", "first_screen_s"))}
    print("Time to the first screen (process start → first screen painted):")
    print_table(first, "minimal Textual app")
    ratio = first[label].median / first["minimal Textual app"].median
    # Issue 13: the stall and memory targets hold on the slowest run, not the median one.
    stall = max(series("wizard", "stall_ms"))
    worst_run = max(results["wizard"], key=lambda r: r["stall_ms"])
    stall_median = median(series("wizard", "stall_ms"))
    screens_stall = max(series("wizard", "screens_stall_ms"))
    rss_min = median(series("minimal", "rss_mb"))
    rss_wiz = max(series("wizard", "rss_mb"))
    rss_wiz_median = median(series("wizard", "rss_mb"))
    print()
    print(f"first screen:   {ratio:.2f}× the minimal app (target ≤ 1.5×)  "
          f"{'ok' if ratio <= 1.5 else 'OVER'}")
    print(f"longest stall:  {stall:.1f} ms, slowest of {runs} runs ({worst_run['stall_at_s']:.2f} s "
          f"after the first screen; the event loop's own CPU work in it: "
          f"{worst_run['stall_cpu_ms']:.1f} ms), median {stall_median:.1f} ms "
          f"(target ≤ 50 ms)  {'ok' if stall <= 50 else 'OVER'}")
    print(f"peak memory:    {rss_wiz:.1f} MB (largest of {runs} runs; median {rss_wiz_median:.1f}) "
          f"vs {rss_min:.1f} MB = {rss_wiz / rss_min:.2f}× (target ≤ 1.5×)  "
          f"{'ok' if rss_wiz / rss_min <= 1.5 else 'OVER'}")
    print(f"screen switches: longest stall {screens_stall:.1f} ms, slowest of {runs} runs "
          f"(showing each step once, not judged)")
    if not machine:
        probes = median(series("wizard", "probes_s"))
        print(f"all probes settled {probes:.2f} s after start (median), the first screen long before")
    if why:
        for phase in ("probes", "screens"):
            run = max(results["wizard"], key=lambda r: r["stall_ms" if phase == "probes" else "screens_stall_ms"])
            print(f"\nwhere the main thread was in the longest {phase} stall (samples sharing each frame):")
            for line in run.get(f"why_{phase}", []):
                print(f"  {line}")
    minimal_first = first["minimal Textual app"].median
    return [
        Figure("TUI first screen / minimal app", ratio,
               f"{first[label].median:.3f} s vs {minimal_first:.3f} s", "<= 1.5×", ratio <= 1.5),
        # The minimal app runs no probes, so it has no stall to compare with: an absolute figure.
        Figure("TUI longest event-loop stall", None,
               f"{stall:.1f} ms slowest of {runs}, median {stall_median:.1f} ms", "<= 50 ms, slowest run",
               stall <= 50),
        Figure("TUI peak memory / minimal app", rss_wiz / rss_min,
               f"{rss_wiz:.1f} MB largest of {runs} vs {rss_min:.1f} MB", "<= 1.5×, largest run",
               rss_wiz / rss_min <= 1.5),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--machine", help="time the wizard on a recorded machine (no probes)")
    parser.add_argument("--why", action="store_true",
                        help="print where the wizard's main thread was during the longest stalls")
    parser.add_argument("--child", choices=("minimal", "wizard"), help=argparse.SUPPRESS)
    parser.add_argument("--started", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        started = args.started or time.time()
        if args.child == "minimal":
            child_minimal(started)
        else:
            child_wizard(started, args.machine, args.why)
        return 0
    figures = measure(args.runs, args.machine, args.why)
    return 1 if any(f.ok is False for f in figures) else 0


if __name__ == "__main__":
    sys.exit(main())
