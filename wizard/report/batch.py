"""A class's reports read into roster rows, several files at once where the machine allows it.

Reading a report is mostly TOML parsing, which is pure Python: one process reads about a
thousand small reports a second. A teacher's folder of hundreds is therefore shared among
processes, one per core (up to MAX_JOBS), this one included.

The others are forked before anything that checks a report is imported, and only read: each
parses its own run of the files from the front and sends each file's data through a pipe as
soon as it has it. Meanwhile this process imports the checker and the answers' rules (tens
of milliseconds a worker would otherwise wait for), then checks every report and builds its
row: the workers' as they arrive, and its own, read from the back of whichever run has the
most files left, until every file has been read by one side or the other. So no process waits
for a slower one: a worker that a busy machine slows down (or that dies) leaves more files to
this process, never a gap. Checking is about a fifth of reading, so beyond a few workers this
process is the one that limits (MAX_JOBS).

It pays (issue 25's rule): on this 2-core VM, 200 reports took 1.35× the tomllib floor with
the workers and 2.05× without (target 2.0×), 1,000 reports 1.08 s with and 1.87 s without
(target under 2 s; 7 runs each, interleaved, 2026-12-04).

Plain os.fork and pickle, not multiprocessing: its import and pool cost about 40 ms here, a
third of the work a second core takes over. Where forking is not the safe way to start a
process (macOS, Windows, a process that runs threads) or for a few files, every file is read
here, one after another: the answer is the same either way.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

# What a worker needs, at the top: it starts with them imported. What checks a report is
# imported by the first check, in this process only.
from wizard.report.errors import ReportError
from wizard.report.reading import read_report
from wizard.text.i18n import t

PARALLEL_FROM = 48   # fewer files than this: starting the workers costs more than it saves
CHUNK = 24           # at least this many files for each process
MAX_JOBS = 4         # more workers would wait for this process's checking


class Loaded(NamedTuple):
    """One file as the roster shows it."""

    name: str
    row: dict[str, str]
    identity: str | None = None   # the same for one report sent twice (wizard.report.roster)
    skipped: str = ""             # why it is not a valid report, in the reader's language
    created: float | None = None  # when the report was saved: the first of two copies is kept
    student: Any = None           # wizard.report.roster.Student: the groups' and the page's


def load_one(name: str, knowledge: Any = None, lang: str = "en") -> Loaded:
    """`name` read, checked and turned into its roster row; never raises for a bad file."""
    try:
        data = read_report(name)
    except ReportError as exc:
        return unreadable(name, exc.detail(lang))
    return judged(name, data, knowledge, lang)


def unreadable(name: str, why: str) -> Loaded:
    """The row of a file that is not a report at all (`why`: in the reader's language)."""
    # The roster and the checker load after the readers are forked, not before: +13-35 ms
    # before a worker could start (-X importtime, 2026-12-04).
    from wizard.report.roster import unusable_row

    return Loaded(name, unusable_row(name, "unreadable"), skipped=why)


def judged(name: str, data: dict[str, Any], knowledge: Any = None, lang: str = "en") -> Loaded:
    """A file's data, read, checked against the format and turned into its row."""
    # After the readers are forked, as in `unreadable`.
    from wizard.report.roster import entry_of, unusable_row
    from wizard.report.validate import validate_report

    problems = validate_report(data, knowledge)
    if problems:
        # The student stays on the roster, with what the file can show.
        return Loaded(name, unusable_row(name, "invalid", data),
                      skipped=t("roster.invalid", lang, count=len(problems)))
    entry = entry_of(name, data, lang)
    return Loaded(name, entry.row, entry.identity, created=entry.created, student=entry.student)


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
             jobs: int | None = None, *,
             knowledge_from: Callable[[], Any] | None = None) -> Iterator[Loaded]:
    """Every file's Loaded, in the order of `names`. `jobs`: processes to use, this one
    included (default: see default_jobs); 1 reads them all here. `knowledge_from`, instead of
    `knowledge`: how to get it, called once the workers have started."""
    jobs = default_jobs(len(names)) if jobs is None else jobs
    if jobs <= 1 or len(names) < jobs:
        if knowledge_from is not None:
            knowledge = knowledge_from()
        for name in names:
            yield load_one(name, knowledge, lang)
        return
    loaded: list[Loaded | None] = [None] * len(names)
    size = -(-len(names) // (jobs - 1))
    # Each run is listed before its worker is forked, so that whatever happens next (Ctrl+C,
    # an error) the finally below ends every process started. A run whose worker cannot start
    # (too many processes, no memory) is read here like any other.
    workers = [_Worker(start, min(start + size, len(names))) for start in range(0, len(names), size)]
    try:
        for position, worker in enumerate(workers):
            if not worker.start(names, lang, workers[:position]):
                break
        if knowledge_from is not None:
            knowledge = knowledge_from()
        _read_with(workers, names, loaded, knowledge, lang)
    finally:
        for worker in workers:   # an interrupt, an error, or done: none outlives the roster
            worker.end()
    for item in loaded:
        assert item is not None   # every run was read to its end, by a worker or here
        yield item


def _read_with(workers: list[_Worker], names: Sequence[str], loaded: list[Loaded | None],
               knowledge: Any, lang: str) -> None:
    """Check the workers' files as they come, and read from the back of the run with the
    most files left, until every run is read."""
    while True:
        for worker in workers:
            for position, data, why in worker.collect():
                name = names[position]
                loaded[position] = unreadable(name, why) if data is None else \
                    judged(name, data, knowledge, lang)
        left = [worker for worker in workers if worker.done < worker.stop]
        if not left:
            return
        behind = max(left, key=lambda worker: worker.stop - worker.done)
        behind.stop -= 1   # from here on, this process reads that run
        loaded[behind.stop] = load_one(names[behind.stop], knowledge, lang)


_LENGTH = 4   # each file goes through the pipe as its pickle's length, then the pickle


class _Worker:
    """A forked process reading names[start:end] from the front, each file's data (or why it
    cannot be read) sent through a pipe as soon as it is read.

    `done`: the files it has answered for run up to here; `stop`: the files from here to the
    run's end are read by the parent. A worker that dies or sends what is not a file's data
    is no longer listened to: `done` stays where it was, and the parent reads the rest."""

    def __init__(self, start: int, end: int) -> None:
        self.done, self.stop = start, end
        self.buffer = bytearray()
        self.pid: int | None = None    # not started: the parent reads the whole run
        self.pipe: int | None = None

    def start(self, names: Sequence[str], lang: str, earlier: list[_Worker]) -> bool:
        """Fork it; False when the system cannot (the parent then reads its run)."""
        try:
            read_end, write_end = os.pipe()
        except OSError:
            return False
        # Ctrl+C between the fork and the child's own handlers would run the parent's (an
        # "interrupted" message, the parent's cleanup) in the child: held until both are ready.
        held = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
        try:
            pid = os.fork()
            if pid == 0:
                # The earlier workers' pipes are the parent's to close, not this one's.
                _work(names[self.done:self.stop], lang, write_end,
                      [read_end, *(other.pipe for other in earlier if other.pipe is not None)], held)
        except OSError:
            os.close(read_end)
            os.close(write_end)
            return False
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
        self.pid = pid
        os.close(write_end)
        os.set_blocking(read_end, False)
        self.pipe = read_end
        return True

    def collect(self) -> list[tuple[int, dict[str, Any] | None, str]]:
        """(position, data, why) of each file it has sent since last asked, without waiting
        for more; data is None for a file that cannot be read, and `why` says why."""
        if self.pipe is None:
            return []
        try:
            while chunk := os.read(self.pipe, 1 << 16):
                self.buffer += chunk
            self._close()   # the end of the pipe: it has finished or died
        except BlockingIOError:
            pass
        answers = []
        while len(self.buffer) >= _LENGTH:
            size = int.from_bytes(self.buffer[:_LENGTH], "little")
            if len(self.buffer) < _LENGTH + size:
                break
            frame = bytes(self.buffer[_LENGTH:_LENGTH + size])
            del self.buffer[:_LENGTH + size]
            try:
                data, why = pickle.loads(frame)
            except Exception:  # cut short or garbled: the parent reads the rest
                data, why = None, None
            if not (isinstance(data, dict) or isinstance(why, str)):
                self._close()
                self.buffer.clear()
                break
            if self.done < self.stop:   # a file the parent has not taken over
                answers.append((self.done, data, why or ""))
            self.done += 1
        return answers

    def _close(self) -> None:
        if self.pipe is not None:
            os.close(self.pipe)
            self.pipe = None

    def end(self) -> None:
        """Stop it, if it still runs, and reap it."""
        self._close()
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except OSError:
                pass
            try:
                os.waitpid(self.pid, 0)
            except OSError:
                pass
            self.pid = None


_HELD = {getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)}


def _work(names: Sequence[str], lang: str, pipe: int, not_ours: list[int], held: Any) -> None:
    """A worker's life, in the forked child: each file read and sent, then the process ends.
    Never returns, whatever happens: the parent's code must not go on running here."""
    status = 1
    try:
        for fd in not_ours:
            os.close(fd)
        _worker_signals()
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        for name in names:
            answer = pickle.dumps(_read_one(name, lang), pickle.HIGHEST_PROTOCOL)
            _write_all(pipe, len(answer).to_bytes(_LENGTH, "little") + answer)
        status = 0
    except BrokenPipeError:   # the parent has every file it needs
        status = 0
    finally:
        os._exit(status)   # no atexit, no flushing of buffers that are the parent's


def _read_one(name: str, lang: str) -> tuple[dict[str, Any] | None, str | None]:
    """In a worker: a file's data, or why it cannot be read."""
    try:
        return read_report(name), None
    except ReportError as exc:
        return None, exc.detail(lang)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _worker_signals() -> None:
    # Ctrl+C reaches the whole terminal's process group: the parent alone handles it and ends
    # the workers, which then just stop (the parent's handlers would turn that into tracebacks).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
