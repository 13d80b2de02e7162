"""Time whole commands against a baseline measured in the same run, and print ratios.

Absolute seconds depend on the machine; a ratio against a floor measured moments before on
the same machine does not (much). Runs alternate between the candidate and its baseline so a
noisy neighbour slows both alike. Not a test: nothing here asserts.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass


@dataclass
class Figure:
    """One headline figure, for the summary `python -m benchmarks` prints at the end."""

    name: str
    ratio: float | None     # against the baseline measured in the same run; None when absolute
    measured: str           # the numbers behind it, in words
    target: str
    ok: bool | None         # None: no target to meet (or not measured)


@dataclass
class Timing:
    name: str
    samples: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.samples)


def bench_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment timed commands run in: `env` (default: this one) writing bytecode.

    An installed gpu-wizard runs from bytecode (pip compiles it at install time). With
    PYTHONDONTWRITEBYTECODE set, as in some CI and dev shells, a checkout recompiles every
    module on every run and the figures time the compiler; the warm-up round writes the
    __pycache__ folders the timed runs then use, as an installation's would be used.
    """
    env = dict(os.environ if env is None else env)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def time_once(argv: list[str], env: dict[str, str] | None = None, cwd: str | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False, cwd=cwd)
    return time.perf_counter() - start


def compare(
    cases: dict[str, list[str]],
    runs: int = 7,
    warmup: int = 1,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
) -> dict[str, Timing]:
    """Run every case `runs` times, interleaved, after `warmup` untimed rounds."""
    env = bench_env(env)
    for _ in range(warmup):
        for argv in cases.values():
            time_once(argv, env, cwd)
    timings = {name: Timing(name, []) for name in cases}
    for _ in range(runs):
        for name, argv in cases.items():
            timings[name].samples.append(time_once(argv, env, cwd))
    return timings


def print_table(timings: dict[str, Timing], baseline: str, file=sys.stdout) -> None:
    base = timings[baseline].median
    print(f"{'case':40} {'median s':>9} {'ratio':>7} {'delta s':>8}", file=file)
    for t in timings.values():
        print(f"{t.name:40} {t.median:9.3f} {t.median / base:7.2f} {t.median - base:+8.3f}", file=file)
