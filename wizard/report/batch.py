"""A class's reports read into roster rows, several files at once where the machine allows it.

Reading a report is mostly TOML parsing, which is pure Python: one process reads about a
thousand small reports a second. A teacher's folder of hundreds is therefore shared among worker
processes, one per core (up to MAX_JOBS), this one included. On Linux they are forked, so each
starts with everything already imported; each reads and checks its share of the files and hands
back only the rows and the text that identifies a file sent twice, in the order given. Where forking is not the safe
way to start a process (macOS, Windows, a process that runs threads) or for a few files, the
files are read here, one after another: the answer is the same either way.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

# At the top, not in load_one: forked workers start with them imported.
from wizard.i18n import t
from wizard.report.errors import ReportError
from wizard.report.reading import read_report
from wizard.report.roster import row_of, unusable_row
from wizard.report.validate import validate_report

PARALLEL_FROM = 48   # fewer files than this: starting the workers costs more than it saves
CHUNK = 24           # at least this many files for each process
MAX_JOBS = 8


@dataclass(frozen=True)
class Loaded:
    """One file as the roster shows it."""

    name: str
    row: dict[str, str]
    identity: str | None = None   # the same for one report sent twice (wizard.report.roster)
    skipped: str = ""             # why it is not a valid report, in the reader's language


def load_one(name: str, knowledge: Any = None, lang: str = "en") -> Loaded:
    """`name` read, checked and turned into its roster row; never raises for a bad file."""
    try:
        data = read_report(name)
    except ReportError as exc:
        return Loaded(name, unusable_row(name, "unreadable"), skipped=exc.detail(lang))
    problems = validate_report(data, knowledge)
    if problems:
        # The student stays on the roster, with what the file can show.
        return Loaded(name, unusable_row(name, "invalid", data),
                      skipped=t("roster.invalid", lang, count=len(problems)))
    return Loaded(name, *row_of(name, data))


def default_jobs(count: int) -> int:
    """How many processes read `count` files: 1 unless there are many files, several cores,
    and forking is safe here."""
    if count < PARALLEL_FROM or not sys.platform.startswith("linux") or threading.active_count() > 1:
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_JOBS, count // CHUNK))


def load_all(names: Sequence[str], knowledge: Any = None, lang: str = "en",
             jobs: int | None = None) -> Iterator[Loaded]:
    """Every file's Loaded, in the order of `names`. `jobs`: processes to use, this one
    included (default: see default_jobs); 1 reads them all here."""
    jobs = default_jobs(len(names)) if jobs is None else jobs
    read = partial(load_chunk, knowledge=knowledge, lang=lang)
    if jobs <= 1 or len(names) < jobs:
        yield from read(names)
        return
    import multiprocessing

    # One contiguous share per process; this process reads the last share itself meanwhile.
    size = -(-len(names) // jobs)
    shares = [names[i:i + size] for i in range(0, len(names), size)]
    context = multiprocessing.get_context("fork")
    # Leaving the block early (Ctrl+C, a closed pipe) terminates the workers.
    with context.Pool(len(shares) - 1, initializer=_worker_signals) as pool:
        theirs = pool.map_async(read, shares[:-1], chunksize=1)
        ours = read(shares[-1])
        for share in theirs.get():
            yield from share
        yield from ours


def load_chunk(names: Sequence[str], knowledge: Any = None, lang: str = "en") -> list[Loaded]:
    return [load_one(name, knowledge, lang) for name in names]


def _worker_signals() -> None:
    # Ctrl+C reaches the whole terminal's process group: the parent alone handles it and ends
    # the workers, which then just stop (the parent's handlers would turn that into tracebacks).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
