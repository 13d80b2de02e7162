"""A class's reports read into roster rows, several files at once where the machine allows it.

Reading a report is mostly TOML parsing, which is pure Python: one process reads about a
thousand small reports a second. A teacher's folder of hundreds is therefore shared among
processes, one per core (up to MAX_JOBS), this one included. The others are forked, so each
starts with everything already imported, reads and checks its contiguous share of the files,
and sends back through a pipe only the rows and the text that identifies a file sent twice.
Plain os.fork and pickle, not multiprocessing: its import and pool cost about 40 ms here, a
third of the work a second core takes over. A worker that fails is not trusted: its share is
read here instead. Where forking is not the safe way to start a process (macOS, Windows, a
process that runs threads) or for a few files, every file is read here, one after another: the
answer is the same either way.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

# At the top, not in load_one: forked workers start with them imported.
from wizard.i18n import t
from wizard.report.errors import ReportError
from wizard.report.reading import read_report
from wizard.report.roster import row_of, unusable_row
from wizard.report.validate import validate_report

PARALLEL_FROM = 48   # fewer files than this: starting the workers costs more than it saves
CHUNK = 24           # at least this many files for each process
# Files fewer than a worker this process reads itself: the time it then spends putting the
# roster together and drawing it, while the workers are done (about 25 ms here).
OWN_SHARE_LESS = 24
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
    if jobs <= 1 or len(names) < jobs:
        yield from load_chunk(names, knowledge, lang)
        return
    size = -(-(len(names) + OWN_SHARE_LESS) // jobs)
    theirs = [names[i:i + size] for i in range(0, min(size * (jobs - 1), len(names)), size)]
    mine = names[size * len(theirs):]
    workers: list[_Worker] = []
    try:
        for share in theirs:
            workers.append(_Worker(share, knowledge, lang))
        ours = load_chunk(mine, knowledge, lang)   # while the workers read theirs
        for worker in workers:
            yield from worker.answer()
        yield from ours
    finally:
        for worker in workers:   # an interrupt, a closed pipe, an error: none outlives the roster
            worker.end()


def load_chunk(names: Sequence[str], knowledge: Any = None, lang: str = "en") -> list[Loaded]:
    return [load_one(name, knowledge, lang) for name in names]


class _Worker:
    """A forked process reading `share`, its answer pickled into a pipe."""

    def __init__(self, share: Sequence[str], knowledge: Any, lang: str) -> None:
        self.share, self.knowledge, self.lang = share, knowledge, lang
        read_end, write_end = os.pipe()
        self.pid: int | None = os.fork()
        if self.pid == 0:
            status = 1
            try:
                os.close(read_end)
                _worker_signals()
                answer = pickle.dumps(load_chunk(share, knowledge, lang), pickle.HIGHEST_PROTOCOL)
                with os.fdopen(write_end, "wb") as pipe:
                    pipe.write(answer)
                status = 0
            finally:
                os._exit(status)   # no atexit, no flushing of buffers that are the parent's
        os.close(write_end)
        self.pipe: int | None = read_end

    def answer(self) -> list[Loaded]:
        """Its rows; its share read here instead when it failed or answered nonsense."""
        assert self.pipe is not None and self.pid is not None
        with os.fdopen(self.pipe, "rb") as pipe:
            self.pipe = None
            data = pipe.read()
        _, status = os.waitpid(self.pid, 0)
        self.pid = None
        if status == 0:
            try:
                loaded = pickle.loads(data)
            except Exception:  # cut short: read the share here
                loaded = None
            if isinstance(loaded, list) and len(loaded) == len(self.share) and \
                    all(isinstance(item, Loaded) for item in loaded):
                return loaded
        return load_chunk(self.share, self.knowledge, self.lang)

    def end(self) -> None:
        """Stop it, unless its answer was collected (its pid and pipe are no longer its own)."""
        if self.pipe is not None:
            os.close(self.pipe)
            self.pipe = None
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except OSError:
                pass
            self.pid = None


def _worker_signals() -> None:
    # Ctrl+C reaches the whole terminal's process group: the parent alone handles it and ends
    # the workers, which then just stop (the parent's handlers would turn that into tracebacks).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
