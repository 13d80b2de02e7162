"""Which Python's PyTorch does the user mean? Find it where people keep it, and run only what
may be run.

gpu-wizard usually runs from its own virtualenv (or pipx, or uv tool), which has no torch: checking
that interpreter would tell every student "PyTorch is not installed". So the interpreters a user
works with are looked for in this order, and the first one that has torch is checked:

  `--python` · `$VIRTUAL_ENV` · `$CONDA_PREFIX` · `.venv`/`venv` in the current folder (and, inside
  the home folder, its parents up to home) · `python3`/`python` on PATH (a pyenv shim as pyenv
  resolves it for the current folder) · conda's environments (`conda env list --json`, only when
  conda is on PATH) · the Windows `py` launcher (`py -0p`) · gpu-wizard's own.

Asking a candidate runs it, so each passes the `Gate` first (README, "What gpu-wizard runs"): what
the user chose (`--python`, the activated environment, gpu-wizard's own) runs; anything else only
when wizard.probe.trust finds it is the user's own and nobody else can change it; and a folder's
own `.venv` only once the user allowed it (asked in the wizard, remembered in their settings), as
a cloned repository may carry one. What was found and not run is kept with the reason, and the
PyTorch its files show (read, not run).

When none has torch, the first working one is checked (the environment the user would install
into). Candidates are asked alongside each other, each in its own bounded child
(`wizard.pytorch.probe.static_torch_facts`: `sys.path`, version, prefix — never `import torch`); a
virtualenv whose site-packages holds a torch folder is taken without waiting for any child.
`no_discover` runs nothing but `--python` or gpu-wizard's own.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from wizard.background import Background
from wizard.probe import trust
from wizard.probe.facts import NotRunPython
from wizard.probe.runner import neutral_cwd, run_bounded

QUERY_TIMEOUT = 5.0        # one interpreter's answer (sys.path, version)
LISTING_TIMEOUT = 8.0      # `conda env list --json` (conda starts slowly), `py -0p`
SHIM_TIMEOUT = 5.0         # `pyenv which python3`
# Chosen by the user (named, activated, or this very program): run without asking.
CHOSEN_SOURCES = frozenset({"--python", "picked", "virtualenv", "conda", "own"})
_POSIX = os.name != "nt"


@dataclass(frozen=True)
class Candidate:
    path: str      # the interpreter, as it would be run
    source: str    # wizard.probe.facts.INTERPRETER_SOURCES


@dataclass(frozen=True)
class Answer:
    """What one candidate said about itself (no torch import)."""

    candidate: Candidate
    works: bool                       # it ran and answered like a Python
    has_torch: bool
    torch_version: str | None = None
    prefix: str | None = None         # sys.prefix: two names for one environment share it
    detail: str | None = None         # why it does not work


@dataclass
class Discovery:
    """The interpreter to check, why, and (asked for later) the other Pythons with torch."""

    chosen: Candidate
    finder: _Finder | None = None

    @property
    def order(self) -> list[Candidate]:
        return self.finder.order if self.finder else [self.chosen]

    def others_with_torch(self, timeout: float = 0.0) -> list[Answer]:
        """Other interpreters (other environments) that have torch; waits at most `timeout`.

        They are asked only now: while the chosen one's torch loads, the processor is its (and
        the wizard's screen's)."""
        if self.finder is not None:
            self.finder.ask_rest()
        deadline = time.monotonic() + timeout
        seen_prefixes: set[str] = set()
        chosen_answer = self._answer(self.chosen.path, timeout)
        if chosen_answer is not None and chosen_answer.prefix:
            seen_prefixes.add(_norm(chosen_answer.prefix))
        out = []
        for candidate in self.order:
            if _norm(candidate.path) == _norm(self.chosen.path):
                continue
            answer = self._answer(candidate.path, max(0.0, deadline - time.monotonic()))
            if answer is None or not answer.has_torch:
                continue
            key = _norm(answer.prefix) if answer.prefix else _norm(candidate.path)
            if key in seen_prefixes:
                continue
            seen_prefixes.add(key)
            out.append(answer)
        return out

    def install_target(self, timeout: float = QUERY_TIMEOUT) -> Candidate:
        """Where PyTorch should be installed: the Python that was checked, unless that is
        gpu-wizard's own (no environment of the user's had torch); then the user's first
        environment that runs (the activated one, the project's .venv, …), in the same order."""
        if self.chosen.source != "own":
            return self.chosen
        if self.finder is not None:
            self.finder.ask_rest()
        for candidate in self.order:
            if candidate.source == "own":
                continue
            answer = self._answer(candidate.path, timeout)
            if answer is not None and answer.works:
                return candidate
        return self.chosen

    def not_run(self) -> list[NotRunPython]:
        """Every interpreter found and not run, with why, and the PyTorch its files show."""
        if self.finder is None:
            return []
        self.finder.gate.undecided(self.finder.order)
        return [NotRunPython(candidate.path, candidate.source, reason, torch_version_in(candidate.path))
                for candidate, reason in self.finder.gate.not_run()]

    def asked(self) -> list[str]:
        """The interpreters run besides the chosen one (to learn which has PyTorch)."""
        if self.finder is None:
            return []
        chosen = _norm(self.chosen.path)
        with self.finder.lock:
            return [p for p in dict.fromkeys(self.finder.started) if _norm(p) != chosen]

    def _answer(self, path: str, timeout: float) -> Answer | None:
        future = self.finder.answers.get(_norm(path)) if self.finder else None
        if future is None:
            return None
        try:
            return future.result(timeout=timeout)
        except Exception:  # not answered in time, or the query itself failed
            return None


class PythonArgError(ValueError):
    """`--python PATH` names no usable interpreter; the message names the path."""

    def __init__(self, path: str, key: str, detail: str = ""):
        self.path = path
        self.key = key          # "missing" | "not-python" | "python2"
        self.detail = detail
        super().__init__(f"{path}: {key}" + (f" ({detail})" if detail else ""))


def _norm(path: str) -> str:
    return os.path.normcase(os.path.abspath(path))


# ------------------------------------------------------------------------- candidates ---

def interpreter_in(env_dir: str | os.PathLike) -> str | None:
    """The Python of a virtualenv or conda environment folder, if it has one."""
    base = Path(env_dir)
    names = (("bin/python3", "bin/python") if _POSIX else
             ("Scripts/python.exe", "python.exe", "bin/python3", "bin/python"))
    for name in names:
        path = base / name
        if path.is_file():
            return str(path)
    return None


def _home_folder(home: Path | None) -> Path | None:
    """The home folder as a boundary; None where there is none to speak of ("/" in some
    containers, or a home that cannot be resolved)."""
    if home is None:
        return None
    try:
        home = home.resolve()
    except OSError:
        return None
    return home if home.parent != home else None


def project_venvs(cwd: Path, home: Path | None) -> list[str]:
    """`.venv`/`venv` in the current folder and, inside home, its parents up to home, nearest
    first. Outside home (/srv/lab, /tmp) only the current folder: a folder above it is shared,
    and what lies there is anybody's."""
    found: list[str] = []
    try:
        folder = cwd.resolve()
    except OSError:
        return found
    home = _home_folder(home)
    stop = folder  # outside home: this folder only
    if home is not None and (folder == home or home in folder.parents):
        stop = home
    while True:
        for name in (".venv", "venv"):
            env = folder / name
            if (env / "pyvenv.cfg").is_file():
                python = interpreter_in(env)
                if python:
                    found.append(python)
        if folder == stop or folder.parent == folder:
            break
        folder = folder.parent
    return found


def path_pythons(which: Callable[[str], str | None] = shutil.which, cwd: Path | None = None) -> list[str]:
    names = ("python3", "python") if _POSIX else ("python", "python3")
    found = []
    for name in names:
        path = which(name)
        # Windows' App Execution Alias opens the Microsoft Store instead of running Python.
        if path and "WindowsApps" not in path:
            found.append(path)
    # pyenv answers in ~60 ms: both shims are asked at once, as the shims themselves were.
    shims = {path: Background(pyenv_resolved, path, cwd, name="discover")
             for path in found if pyenv_root_of(path)}
    return [_resolved(shims[path]) or path if path in shims else path for path in found]


def _resolved(job: Background) -> str | None:
    try:
        return job.result(timeout=SHIM_TIMEOUT + 1.0)
    except Exception:  # pyenv did not answer: the shim itself is the candidate
        return None


def pyenv_root_of(path: str) -> str | None:
    """The pyenv installation a shim (`~/.pyenv/shims/python3`) belongs to, if it is one."""
    shims = os.path.dirname(path)
    if os.path.basename(shims) != "shims":
        return None
    root = os.path.dirname(shims)
    return root if os.path.isfile(os.path.join(root, "libexec", "pyenv")) else None


def pyenv_resolved(path: str, cwd: Path | None) -> str | None:
    """The interpreter a pyenv shim runs in the user's folder (its `.python-version`), asked of
    pyenv itself: a shim started from anywhere else picks another version. pyenv is told the
    folder (PYENV_DIR) instead of being started in it, so nothing of that folder runs."""
    root = pyenv_root_of(path)
    if root is None:
        return None
    pyenv = os.path.join(root, "libexec", "pyenv")
    if trust.refusal(pyenv) is not None:
        return None  # the shim is judged, and refused, as the candidate itself
    env = dict(os.environ, PYENV_ROOT=root)
    env.pop("PYENV_DIR", None)
    if cwd is not None:
        env["PYENV_DIR"] = str(cwd)
    result = run_bounded([pyenv, "which", os.path.basename(path)], SHIM_TIMEOUT, env=env, cwd=neutral_cwd())
    lines = result.stdout.strip().splitlines() if result.ok else []
    resolved = lines[-1].strip() if lines else ""
    return resolved if os.path.isabs(resolved) and os.path.isfile(resolved) else None


def own_interpreter() -> str:
    return sys.executable or "python3"


def fixed_candidates(env: dict[str, str], cwd: Path, home: Path | None,
                     which: Callable[[str], str | None] = shutil.which) -> list[Candidate]:
    """Every candidate that needs no slow listing, in order (without `--python` and own)."""
    out: list[Candidate] = []
    if env.get("VIRTUAL_ENV"):
        python = interpreter_in(env["VIRTUAL_ENV"])
        if python:
            out.append(Candidate(python, "virtualenv"))
    if env.get("CONDA_PREFIX"):
        python = interpreter_in(env["CONDA_PREFIX"])
        if python:
            out.append(Candidate(python, "conda"))
    out += [Candidate(p, "project-venv") for p in project_venvs(cwd, home)]
    out += [Candidate(p, "path") for p in path_pythons(which, cwd)]
    return out


def conda_envs(which: Callable[[str], str | None] = shutil.which,
               timeout: float = LISTING_TIMEOUT, env: dict[str, str] | None = None) -> list[str]:
    """Pythons of `conda env list --json`, when conda is on PATH; [] when it is not or fails."""
    conda = which("conda") or (env or {}).get("CONDA_EXE")
    if not conda or trust.refusal(conda) is not None:
        return []  # another user's conda would run as this user
    result = run_bounded([conda, "env", "list", "--json"], timeout, background=True)
    if not result.ok:
        return []
    try:
        envs = json.loads(result.stdout).get("envs", [])
    except (ValueError, AttributeError):
        return []
    found = []
    for folder in envs if isinstance(envs, list) else []:
        python = interpreter_in(folder) if isinstance(folder, str) else None
        if python:
            found.append(python)
    return found


def py_launcher(which: Callable[[str], str | None] = shutil.which,
                timeout: float = LISTING_TIMEOUT) -> list[str]:
    """Windows: the interpreters `py -0p` lists (any line ending in a python.exe path)."""
    if _POSIX:
        return []
    py = which("py")
    if not py:
        return []
    result = run_bounded([py, "-0p"], timeout, background=True)
    return parse_py_list(result.stdout) if result.ok else []


def parse_py_list(text: str) -> list[str]:
    """` -V:3.12 *        C:\\Python312\\python.exe` (py 3.11+) or ` -3.9-64  C:\\...` → paths."""
    found = []
    for line in text.splitlines():
        index = line.lower().find(":\\")
        if index < 1 or not line.strip().lower().endswith(".exe"):
            continue
        found.append(line[index - 1:].strip())
    return found


# --------------------------------------------------------------------------- answers ---

def fast_has_torch(python: str) -> bool:
    """A virtualenv/conda environment whose own site-packages holds torch: no child needed.

    Only positive evidence counts: a venv may still see torch through the system site-packages
    or the user site, which only asking the interpreter reveals.
    """
    prefix = Path(python).parent
    if prefix.name.lower() in ("bin", "scripts"):
        prefix = prefix.parent
    if not (prefix / "pyvenv.cfg").is_file() and not (prefix / "conda-meta").is_dir():
        return False
    patterns = (str(prefix / "lib" / "python3*" / "site-packages" / "torch" / "__init__.py"),
                str(prefix / "Lib" / "site-packages" / "torch" / "__init__.py"))
    return any(glob.glob(pattern) for pattern in patterns)


def ask(candidate: Candidate, timeout: float = QUERY_TIMEOUT) -> Answer:
    # The torch probe's static half, and psutil with it: +16 ms on every command (the CLI imports
    # this module), most of which never ask a Python (measured 2026-12-04).
    from wizard.pytorch.probe.static import static_torch_facts

    facts = static_torch_facts(candidate.path, timeout=timeout, sizes=False, background=True)
    if not facts.python_version:
        return Answer(candidate, works=False, has_torch=False, detail=facts.detail)
    return Answer(candidate, works=True, has_torch=facts.installed, torch_version=facts.version,
                  prefix=facts.prefix)


def check_python_arg(path: str, timeout: float = QUERY_TIMEOUT) -> str:
    """The interpreter `--python PATH` means, or PythonArgError (exit 2, path named).

    A virtualenv or conda folder is accepted for its interpreter, since that is what people
    type (`--python .venv`).
    """
    expanded = os.path.expanduser(path)
    if os.path.isdir(expanded):
        inner = interpreter_in(expanded)
        if inner is None:
            raise PythonArgError(path, "not-python", "a folder without a Python inside")
        expanded = inner
    if not os.path.exists(expanded):
        raise PythonArgError(path, "missing")
    try:
        here: Path | None = Path.cwd()
    except OSError:
        here = None
    expanded = pyenv_resolved(expanded, here) or expanded  # a shim: the Python it means here
    answer = ask(Candidate(expanded, "--python"), timeout)
    if not answer.works:
        version = run_bounded([expanded, "-c", "import sys; print(sys.version_info[0])"], timeout)
        if version.ok and version.stdout.strip() == "2":
            raise PythonArgError(path, "python2")
        raise PythonArgError(path, "not-python", answer.detail or "")
    return expanded


# ------------------------------------------------------------------------------ the gate ---

Consent = Callable[["Candidate"], bool]


def _same_environment(python: str, prefix: str) -> bool:
    env = trust.environment_of(python)
    return env is not None and os.path.normcase(os.path.realpath(env)) == \
        os.path.normcase(os.path.realpath(prefix))


def torch_version_in(python: str) -> str | None:
    """The PyTorch version an environment's own files show, read without running anything."""
    from wizard.pytorch.probe.static import find_distributions  # +16 ms, see ask

    env = trust.environment_of(python)
    if env is None:
        return None
    sites = glob.glob(os.path.join(glob.escape(env), "lib", "python*", "site-packages"))
    sites.append(os.path.join(env, "Lib", "site-packages"))
    dist = find_distributions(sites).get("torch")
    return dist.version if dist is not None and dist.version else None


# What the user answered in this run, remembered or not: the install plan made later asks again
# through a Gate of its own, and must neither ask twice nor forget a "yes".
_ANSWERED: dict[str, str] = {}


class Gate:
    """Which candidates may run (README, "What gpu-wizard runs"), each decided once.

    `consent(candidate)` asks the user about a folder's own environment (the wizard's dialog);
    without it (check, torch-command) such an environment runs only if the user allowed it
    before. `remembered(env)` reads that answer ("run" / "skip" / None)."""

    def __init__(self, consent: Consent | None = None, *, policy: trust.Policy | None = None,
                 remembered: Callable[[str], str | None] | None = None, own_prefix: str | None = None):
        self.consent = consent
        self.policy = policy  # None: this process's (wizard.probe.trust.current_policy)
        if remembered is None:
            # The user's settings (tempfile and tomli_w with them): +3 ms on every command at the
            # top, since the CLI imports this module (measured 2026-12-04).
            from wizard.user_settings import environment_answer

            remembered = environment_answer
        self.remembered: Callable[[str], str | None] = remembered
        self.own_prefix = own_prefix if own_prefix is not None else sys.prefix
        self._lock = threading.Lock()
        self._decided: dict[str, str | None] = {}      # path → None (runs) or the reason it does not
        self._refused: dict[str, tuple[Candidate, str]] = {}   # path → (the candidate, why not)

    def allows(self, candidate: Candidate, ask: bool = True) -> bool:
        """Whether `candidate` may run. `ask=False`: never ask the user now (a candidate that
        would need asking stays undecided, and is not run)."""
        key = _norm(candidate.path)
        with self._lock:
            if key in self._decided:
                return self._decided[key] is None
        reason = self._reason(candidate, ask)
        if reason == "undecided":
            return False
        return self._decide(key, candidate, reason)

    def _decide(self, key: str, candidate: Candidate, reason: str | None) -> bool:
        """The first decision for a path stands (another thread may have made it meanwhile)."""
        with self._lock:
            decided = self._decided.setdefault(key, reason)
            if decided is not None:
                self._refused.setdefault(key, (candidate, decided))
            return decided is None

    def _reason(self, candidate: Candidate, ask: bool) -> str | None:
        if candidate.source in CHOSEN_SOURCES:
            return None
        programs = [candidate.path]
        shim_root = pyenv_root_of(candidate.path)
        if shim_root:  # a shim pyenv could not resolve runs pyenv itself: judged too
            programs.append(os.path.join(shim_root, "libexec", "pyenv"))
        for program in programs:
            refused = trust.refusal(program, self.policy)
            if refused is not None:
                return refused.reason
        if candidate.source != "project-venv" or _same_environment(candidate.path, self.own_prefix):
            return None
        env = trust.environment_of(candidate.path) or candidate.path
        answer = _ANSWERED.get(_norm(env)) or self.remembered(env)
        if answer is not None:
            return None if answer == "run" else "declined"
        if self.consent is None:
            return "ask-first"
        if not ask:
            return "undecided"
        run = self.consent(candidate)
        _ANSWERED[_norm(env)] = "run" if run else "skip"
        return None if run else "declined"

    def undecided(self, candidates: Iterable[Candidate]) -> None:
        """Candidates nobody asked about are recorded as needing to be allowed first."""
        for candidate in candidates:
            key = _norm(candidate.path)
            with self._lock:
                if key in self._decided:
                    continue
            if self._reason(candidate, ask=False) == "undecided":
                self._decide(key, candidate, "ask-first")

    def not_run(self) -> list[tuple[Candidate, str]]:
        """Every candidate found and not run, with why, in the order they were decided."""
        with self._lock:
            return list(self._refused.values())


# ------------------------------------------------------------------------- discovery ---

class _Finder:
    """The candidates, each asked (in its own bounded child) only once somebody needs it, and
    only when the gate lets it run."""

    def __init__(self, env: dict[str, str], cwd: Path, home: Path | None,
                 which: Callable[[str], str | None], timeout: float, gate: Gate,
                 listings: Iterable[tuple[str, Callable[[], list[str]]]] | None = None,
                 no_discover: bool = False):
        self.timeout = timeout
        self.gate = gate
        self.answers: dict[str, Background] = {}
        self.order: list[Candidate] = []
        self.started: list[str] = []     # every interpreter run, in order
        self.lock = threading.Lock()
        self.fixed = [] if no_discover else fixed_candidates(env, cwd, home, which)
        if no_discover:
            listings = ()
        elif listings is None:
            listings = (("conda-env", lambda: conda_envs(which, env=env)),
                        ("py-launcher", lambda: py_launcher(which)))
        self._listing_calls = list(listings)
        self._listings: list[tuple[str, Background]] | None = None
        self.own: Candidate | None = None

    @property
    def listings(self) -> list[tuple[str, Background]]:
        """The slow listings (conda, py), started on first use."""
        with self.lock:
            if self._listings is None:
                self._listings = [(source, Background(call, name="discover")) for source, call in self._listing_calls]
            return self._listings

    def add(self, candidate: Candidate, ask_now: bool = True) -> Candidate | None:
        key = _norm(candidate.path)
        with self.lock:
            known = any(_norm(c.path) == key for c in self.order)
            if not known:
                self.order.append(candidate)
        if ask_now:
            self.ask(candidate)
        return None if known else candidate

    def ask(self, candidate: Candidate) -> None:
        """Start asking `candidate`, if the gate lets it run without asking the user."""
        if not self.gate.allows(candidate, ask=False):
            return
        key = _norm(candidate.path)
        with self.lock:
            if key not in self.answers:
                self.answers[key] = Background(ask, candidate, self.timeout, name="discover")
                self.started.append(candidate.path)

    def ask_rest(self) -> None:
        """Every candidate not asked yet, the listed ones and gpu-wizard's own included."""
        for candidate in list(self.order):
            self.ask(candidate)
        for source, future in self.listings:
            Background(self.listed, source, future, name="discover")
        if self.own is not None:
            self.add(self.own)

    def listed(self, source: str, future: Background) -> list[Candidate]:
        try:
            paths = future.result(timeout=LISTING_TIMEOUT + 1.0)
        except Exception:
            paths = []
        return [c for c in (self.add(Candidate(p, source)) for p in paths) if c is not None]

    def answer(self, candidate: Candidate) -> Answer | None:
        try:
            return self.answers[_norm(candidate.path)].result(timeout=self.timeout + 1.0)
        except Exception:
            return None


def discover(python: str | None = None, *, env: dict[str, str] | None = None,
             cwd: Path | None = None, home: Path | None = None,
             which: Callable[[str], str | None] = shutil.which,
             own: str | None = None, timeout: float = QUERY_TIMEOUT,
             listings: Iterable[tuple[str, Callable[[], list[str]]]] | None = None,
             consent: Consent | None = None, gate: Gate | None = None,
             no_discover: bool = False) -> Discovery:
    """The interpreter whose torch to check (`python` when given) and the others found.

    `consent` asks the user whether a folder's own environment may run (the wizard); `gate`
    replaces the whole rule (tests); `no_discover`: nothing but `python` or gpu-wizard's own.
    Never raises for a candidate that is missing, broken, slow or not allowed: it is passed over.
    """
    env = dict(os.environ) if env is None else env
    try:
        cwd = cwd or Path.cwd()
    except OSError:  # the current folder was deleted under us
        cwd = Path(os.sep)
    if home is None:
        try:
            home = Path.home()
        except (RuntimeError, KeyError, OSError):
            home = None
    own_candidate = Candidate(own or own_interpreter(), "own")
    gate = gate or Gate(consent)
    finder = _Finder(env, cwd, home, which, timeout, gate, listings, no_discover)
    finder.own = own_candidate
    first = [Candidate(python, "--python")] if python else []
    fixed = [c for c in (finder.add(c, ask_now=False) for c in first + finder.fixed) if c is not None]
    chosen = fixed[0] if python else _walk(finder, fixed, own_candidate)
    return Discovery(chosen, finder)


def _walk(finder: _Finder, fixed: list[Candidate], own: Candidate) -> Candidate:
    first_working: Candidate | None = None

    def consider(candidate: Candidate, rest: list[Candidate]) -> bool:
        nonlocal first_working
        if not finder.gate.allows(candidate, ask=True):
            return False
        if fast_has_torch(candidate.path):
            return True  # no child needed: the usual case (an environment with torch in it)
        for later in [candidate, *rest]:
            finder.ask(later)  # a child is needed: ask the rest alongside, they may be next
        answer = finder.answer(candidate)
        if answer is None or not answer.works:
            return False
        if first_working is None:
            first_working = candidate
        return answer.has_torch

    for index, candidate in enumerate(fixed):
        if consider(candidate, fixed[index + 1:]):
            return candidate
    for source, future in finder.listings:
        listed = finder.listed(source, future)
        for index, candidate in enumerate(listed):
            if consider(candidate, listed[index + 1:]):
                return candidate
    # gpu-wizard's own interpreter comes last, and only when it is not one of the above.
    if finder.add(own, ask_now=False) is not None and consider(own, []):
        return own
    return first_working or own
