"""A running torch probe: the child starts at once, the static scan beside it, and the caller
joins both later, so every other probe runs while torch loads."""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import replace

from wizard.probe.discover import Candidate, Consent, Discovery
from wizard.probe.discover import discover as find
from wizard.probe.facts import Benchmark, NotRunPython, OtherPython, ProbeNote, TorchInfo
from wizard.probe.runner import RunResult, neutral_cwd, python_child_env, run_bounded
from wizard.pytorch.probe.assemble import assemble
from wizard.pytorch.probe.child import child_source
from wizard.pytorch.probe.static import PATH_QUERY_TIMEOUT, StaticFacts, static_torch_facts

DEFAULT_TIMEOUT = 25.0
# Discovery waits at most for one interpreter's answer plus a conda listing (wizard.probe.discover).
DISCOVERY_BOUND = 15.0


class TorchProbeJob:
    """A running torch probe: `.result()` joins it, `.static()` gives the no-import facts.

    With `discover=True` the interpreter is found first (wizard.probe.discover: `python` when
    given, else where users keep torch); without, it is `python` or this interpreter.
    `consent` asks the user before a folder's own environment runs (the wizard); the time the
    user takes to answer does not count against the probe's time bounds.
    """

    def __init__(self, python: str | None, timeout: float, benchmark: bool,
                 extra_path: list[str] | None, *, discover: bool = False,
                 gpu_test: bool = True, source: str | None = None, others_early: bool = False,
                 consent: Consent | None = None, no_discover: bool = False):
        self.interpreter = python or sys.executable
        self.source = source or ("--python" if python else "own")
        self.discovery: Discovery | None = None
        self.timeout = timeout
        self._started = time.monotonic()
        self._run: RunResult | None = None
        self._static: StaticFacts | None = None
        self._final: tuple[TorchInfo, Benchmark | None, ProbeNote] | None = None
        self._lock = threading.Lock()
        self._chosen = threading.Event()
        self._consent = consent
        self._no_discover = no_discover
        self._asking = False          # the user is being asked whether a Python may run
        self._waited = 0.0            # seconds spent waiting for the user's answers
        flags = (["--gpu-test"] if gpu_test else []) + (["--benchmark"] if benchmark else [])
        # Daemon threads: an abandoned probe must never keep gpu-wizard from exiting.
        self._others_early = others_early
        self._live = threading.Thread(target=self._run_child,
                                      args=(python, discover, flags, extra_path),
                                      daemon=True, name="torch-probe")
        self._live.start()
        self._quiet = threading.Thread(target=self._read_static, args=(extra_path,),
                                       daemon=True, name="torch-static")
        self._quiet.start()

    def _run_child(self, python: str | None, discover: bool, flags: list[str],
                   extra_path: list[str] | None) -> None:
        try:
            if discover:
                self.discovery = find(python, consent=self._ask_user if self._consent else None,
                                      no_discover=self._no_discover)
                self.interpreter = self.discovery.chosen.path
                if python is None:  # given (--python, picked): its source was set above
                    self.source = self.discovery.chosen.source
                if self._others_early and self.discovery.finder is not None:
                    # No screen to keep smooth (check): ask the others now, at a lower priority.
                    self.discovery.finder.ask_rest()
        except Exception:  # discovery never raises by design; if it does, check this Python
            pass
        finally:
            self._chosen.set()
        argv = [self.interpreter, "-c", child_source()] + flags
        try:
            self._run = run_bounded(argv, self.timeout, env=python_child_env(extra_path), cwd=neutral_cwd())
        except Exception as exc:  # run_bounded should not raise; this is the last net
            self._run = RunResult("error", detail=f"{type(exc).__name__}: {exc}")

    def _ask_user(self, candidate: Candidate) -> bool:
        assert self._consent is not None
        started = time.monotonic()
        self._asking = True
        try:
            return self._consent(candidate)
        finally:
            self._asking = False
            self._waited += time.monotonic() - started

    def _wait(self, thread: threading.Thread | None, bound: float) -> None:
        """Wait for `thread` (or the choice of interpreter) until `bound` seconds after the
        start, not counting the time the user takes to answer a question."""
        while not (self._chosen.is_set() if thread is None else not thread.is_alive()):
            if self._asking:
                self._chosen.wait(0.25)
                continue
            left = self._started + self._waited + bound - time.monotonic()
            if left <= 0:
                return
            if thread is None:
                self._chosen.wait(min(left, 0.5))
            else:
                thread.join(min(left, 0.5))

    def _read_static(self, extra_path: list[str] | None) -> None:
        self._wait(None, DISCOVERY_BOUND)
        self._static = static_torch_facts(self.interpreter, extra_path,
                                          min(PATH_QUERY_TIMEOUT, self.timeout))

    def done(self) -> bool:
        return not self._live.is_alive() and not self._quiet.is_alive()

    def static(self, timeout: float | None = None) -> StaticFacts | None:
        """The no-import facts, usually ready long before torch has loaded; None if not yet."""
        self._quiet.join(timeout)
        return self._static

    def result(self) -> tuple[TorchInfo, Benchmark | None, ProbeNote]:
        with self._lock:
            if self._final is None:
                bound = DISCOVERY_BOUND + self.timeout + 1.5
                self._wait(self._live, bound)
                self._quiet.join(max(0.05, self._started + self._waited + bound - time.monotonic()))
                run = self._run or RunResult("timeout", detail=f"no answer within {self.timeout:g} s")
                info, bench, note = assemble(run, self._static, self.interpreter, self.timeout)
                info = replace(info, interpreter_source=self.source, other_pythons=self._others(),
                               not_run=self._not_run(), asked=self._asked())
                self._final = info, bench, note
            return self._final

    def _others(self) -> tuple[OtherPython, ...]:
        if self.discovery is None:
            return ()
        # Asked only now that torch has loaded (the processor was its); a slow one is not waited for.
        return tuple(OtherPython(a.candidate.path, a.candidate.source, a.torch_version)
                     for a in self.discovery.others_with_torch(timeout=0.5))

    def _not_run(self) -> tuple[NotRunPython, ...]:
        return tuple(self.discovery.not_run()) if self.discovery is not None else ()

    def _asked(self) -> tuple[str, ...]:
        return tuple(self.discovery.asked()) if self.discovery is not None else ()



def start_torch_probe(python: str | None = None, timeout: float = DEFAULT_TIMEOUT,
                      benchmark: bool = False, extra_path: list[str] | None = None,
                      *, discover: bool = False,
                      gpu_test: bool = True, source: str | None = None,
                      others_early: bool = False, consent: Consent | None = None,
                      no_discover: bool = False) -> TorchProbeJob:
    """Start the torch child now; join with `.result()` when everything else is done."""
    return TorchProbeJob(python, timeout, benchmark, extra_path, discover=discover,
                         gpu_test=gpu_test, source=source, others_early=others_early,
                         consent=consent, no_discover=no_discover)


def probe_torch(python: str | None = None, timeout: float = DEFAULT_TIMEOUT,
                benchmark: bool = False, extra_path: list[str] | None = None,
                *, discover: bool = False, gpu_test: bool = True,
                source: str | None = None, no_discover: bool = False,
                ) -> tuple[TorchInfo, Benchmark | None, ProbeNote]:
    """Torch in `python` (default: this interpreter, or the discovered one with `discover`).

    Never raises; returns within its time bounds."""
    return start_torch_probe(python, timeout, benchmark, extra_path, discover=discover,
                             gpu_test=gpu_test, source=source, no_discover=no_discover).result()
