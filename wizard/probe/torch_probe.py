"""Is PyTorch installed in the chosen interpreter, which build is it, and does it work?

Two halves run side by side, because `import torch` alone takes one to three seconds:

* the live half imports torch in a child process of the chosen interpreter (`_torch_child.py`,
  sent as `-c` source so nothing of gpu-wizard lands on that interpreter's path), with a hard
  time bound: a torch that hangs, segfaults or fails to load becomes a status, never a hang;
* the static half needs no import: it finds torch's `*.dist-info` on the interpreter's path,
  reads `torch/version.py` with `ast`, and adds up the installed sizes of torch and of the GPU
  runtime packages it brought from their RECORD files. Those facts survive a child that never
  answers.

`start_torch_probe` starts the child at once and returns a job to join later, so the
orchestrator can run every other probe while torch loads.
"""

from __future__ import annotations

import ast
import csv
import json
import math
import os
import platform
import re
import sys
import threading
import time
from dataclasses import dataclass, replace
from functools import cache
from typing import Any
from pathlib import Path

from wizard.evidence import run_text
from wizard.i18n import t
from wizard.probe import _torch_child
from wizard.probe.model import Benchmark, GpuTest, OtherPython, ProbeNote, TorchDevice, TorchInfo
from wizard.schema import MAX_ITEMS, fits
from wizard.probe.runner import RunResult, neutral_cwd, run_bounded

DEFAULT_TIMEOUT = 25.0
PATH_QUERY_TIMEOUT = 5.0
# Discovery waits at most for one interpreter's answer plus a conda listing (wizard.probe.discover).
DISCOVERY_BOUND = 15.0
MB = 1_000_000  # what pip shows; the data in content/torch_matrix.toml uses the same
# Packages built against one exact torch release: installed from the same index, in step with it.
COMPANIONS = ("torchvision", "torchaudio")

# Packages that are torch's GPU runtime rather than Python helpers: CUDA (nvidia-*, cuda-*),
# triton, and the oneAPI pieces of XPU builds. Only these are followed from torch's
# Requires-Dist, so sympy, jinja2 & co. never count as "the CUDA part".
_GPU_RUNTIME = re.compile(
    r"^(nvidia-|cuda-|triton$|pytorch-triton|intel-|onemkl-|oneccl|tcmlib$|umf$|impi-rt$|dpcpp-cpp-rt$|mkl$)"
)
_NOT_RUNTIME = {"nvidia-ml-py", "nvidia-ml-py3"}  # monitoring bindings, never brought by torch
_REQUIREMENT_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_NORMALIZE = re.compile(r"[-_.]+")

_PATH_QUERY = (
    "import sys, json, platform;"
    "print(json.dumps([sys.path, '%d.%d.%d' % tuple(sys.version_info[:3]), platform.machine(),"
    " sys.prefix]))"
)


# ---------------------------------------------------------------------------------------------
# Static facts: no import of torch


@dataclass(frozen=True)
class StaticFacts:
    installed: bool
    python_version: str | None = None
    python_arch: str | None = None
    version: str | None = None
    build: str | None = None
    cuda_version: str | None = None
    hip_version: str | None = None
    xpu_version: str | None = None
    location: str | None = None          # the torch package folder
    torch_size_mb: float | None = None
    libraries: tuple[tuple[str, float], ...] = ()   # (package, MB), largest first
    detail: str | None = None            # why the interpreter could not be asked
    prefix: str | None = None            # sys.prefix: the environment's folder
    # torchvision / torchaudio installed beside torch: a new torch must bring matching ones.
    companions: tuple[str, ...] = ()
    # A torch.py, or a torch folder that is not PyTorch, that `import torch` would find first.
    shadow: str | None = None

    @property
    def libraries_size_mb(self) -> float | None:
        if self.torch_size_mb is None:
            return None
        return round(sum(size for _, size in self.libraries), 1)

    @property
    def install_size_mb(self) -> float | None:
        if self.torch_size_mb is None:
            return None
        return round(self.torch_size_mb + (self.libraries_size_mb or 0.0), 1)


@dataclass(frozen=True)
class _Dist:
    name: str       # normalised project name
    version: str
    meta_dir: str   # the .dist-info / .egg-info folder
    site: str       # the folder it sits in


def _normalize(name: str) -> str:
    return _NORMALIZE.sub("-", name).lower()


def find_distributions(path_entries: list[str]) -> dict[str, _Dist]:
    """Installed distributions on a path, first one wins (the one `import` would see)."""
    found: dict[str, _Dist] = {}
    for entry in path_entries:
        folder = entry or os.curdir
        try:
            names = os.listdir(folder)
        except OSError:  # zip files, missing folders
            continue
        for file_name in names:
            if file_name.endswith(".dist-info"):
                stem = file_name[: -len(".dist-info")]
            elif file_name.endswith(".egg-info"):
                stem = file_name[: -len(".egg-info")]
            else:
                continue
            name, _, version = stem.partition("-")
            version = version.split("-py")[0]
            found.setdefault(_normalize(name), _Dist(_normalize(name), version,
                                                     os.path.join(folder, file_name), folder))
    return found


def _metadata_headers(meta_dir: str) -> list[tuple[str, str]]:
    for file_name in ("METADATA", "PKG-INFO"):
        try:
            with open(os.path.join(meta_dir, file_name), encoding="utf-8", errors="replace") as fh:
                headers = []
                for line in fh:
                    if not line.strip():
                        break  # the long description follows; it can be megabytes
                    key, sep, value = line.partition(":")
                    if sep and not line[0].isspace():
                        headers.append((key.strip(), value.strip()))
                return headers
        except OSError:
            continue
    return []


def requirement_names(meta_dir: str) -> list[str]:
    """Every name in Requires-Dist, extras and markers ignored: only installed ones count later."""
    names = []
    for key, value in _metadata_headers(meta_dir):
        if key.lower() == "requires-dist":
            match = _REQUIREMENT_NAME.match(value)
            if match:
                names.append(_normalize(match.group(1)))
    return names


def record_bytes(dist: _Dist) -> int | None:
    """Installed size from RECORD: the recorded size, or the file's own for rows without one."""
    record = os.path.join(dist.meta_dir, "RECORD")
    total = 0
    try:
        with open(record, newline="", encoding="utf-8", errors="replace") as fh:
            for row in csv.reader(fh):
                if not row:
                    continue
                if len(row) >= 3 and row[2].isdigit():
                    total += int(row[2])
                    continue
                try:  # .pyc files and RECORD itself are listed without a size
                    total += os.stat(os.path.join(dist.site, row[0])).st_size
                except OSError:
                    pass
    except (OSError, csv.Error):
        return None
    return total


def _walk_bytes(folder: str) -> int:
    total = 0
    for root, _dirs, files in os.walk(folder):
        for file_name in files:
            try:
                total += os.lstat(os.path.join(root, file_name)).st_size
            except OSError:
                pass
    return total


def gpu_runtime_packages(dists: dict[str, _Dist], torch_dist: _Dist) -> list[_Dist]:
    """The installed GPU runtime packages reachable from torch's requirements."""
    seen: set[str] = set()
    todo = [n for n in requirement_names(torch_dist.meta_dir)]
    out = []
    while todo:
        name = todo.pop()
        if name in seen or name in _NOT_RUNTIME or not _GPU_RUNTIME.match(name):
            continue
        seen.add(name)
        dist = dists.get(name)
        if dist is None:
            continue
        out.append(dist)
        todo.extend(requirement_names(dist.meta_dir))
    return out


def read_version_py(torch_dir: str) -> dict[str, str | None]:
    """`torch/version.py` values without importing torch (it is generated: plain assignments)."""
    try:
        source = Path(torch_dir, "version.py").read_text(encoding="utf-8", errors="replace")
        tree = ast.parse(source)
    except (OSError, SyntaxError, ValueError):
        return {}
    values: dict[str, str | None] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name):
            try:
                literal = ast.literal_eval(value)
            except ValueError:
                continue
            if literal is None or isinstance(literal, (str, bool)):
                values[target.id] = literal if not isinstance(literal, bool) else str(literal)
    return values


def build_of(version: str | None, cuda: str | None, hip: str | None, xpu: str | None,
             mps_built: bool | None = None, apple_silicon: bool = False) -> str:
    local = (version or "").partition("+")[2]
    if hip or local.startswith("rocm"):
        return "rocm"
    if cuda or re.match(r"cu\d", local):
        return "cuda"
    if xpu or local.startswith("xpu"):
        return "xpu"
    if mps_built or (mps_built is None and apple_silicon and not local):
        return "mps"
    return "cpu"


def import_location(path_entries: list[str]) -> str | None:
    """The path entry `import torch` would load from (a regular package or a torch.py)."""
    for entry in path_entries:
        folder = entry or os.curdir
        if os.path.isfile(os.path.join(folder, "torch", "__init__.py")) or \
                os.path.isfile(os.path.join(folder, "torch.py")):
            return folder
    return None


def facts_from_path(path_entries: list[str], python_version: str | None,
                    python_arch: str | None, sizes: bool = True) -> StaticFacts:
    """What the path says about torch; `sizes=False` skips adding up install records (tens of
    thousands of lines for a CUDA build), which discovery does not need."""
    dists = find_distributions(path_entries)
    torch_dist = dists.get("torch")
    winner = import_location(path_entries)
    if winner is not None and (torch_dist is None or
                               os.path.normcase(torch_dist.site) != os.path.normcase(winner)):
        # Whatever sits earlier on the path is what imports; its own dist-info, if any.
        torch_dist = find_distributions([winner]).get("torch")
        if torch_dist is None:
            return _facts_without_record(winner, python_version, python_arch)
    if torch_dist is None:
        return StaticFacts(False, python_version, python_arch)
    torch_dir = os.path.join(torch_dist.site, "torch")
    values = read_version_py(torch_dir)
    version = values.get("__version__") or torch_dist.version
    torch_bytes = record_bytes(torch_dist) if sizes else None
    if sizes and torch_bytes is None and os.path.isdir(torch_dir):
        torch_bytes = _walk_bytes(torch_dir)  # conda or egg installs without a RECORD
    libraries = []
    for dist in gpu_runtime_packages(dists, torch_dist) if sizes else ():
        size = record_bytes(dist)
        if size is not None:
            libraries.append((dist.name, round(size / MB, 1)))
    libraries.sort(key=lambda item: (-item[1], item[0]))
    return StaticFacts(
        installed=True,
        python_version=python_version,
        python_arch=python_arch,
        version=version,
        build=build_of(version, values.get("cuda"), values.get("hip"), values.get("xpu"),
                       apple_silicon=_apple_silicon(python_arch)),
        cuda_version=values.get("cuda"),
        hip_version=values.get("hip"),
        xpu_version=values.get("xpu"),
        location=torch_dir if os.path.isdir(torch_dir) else None,
        torch_size_mb=round(torch_bytes / MB, 1) if torch_bytes is not None else None,
        libraries=tuple(libraries),
        companions=tuple(name for name in COMPANIONS if name in dists),
    )


def _apple_silicon(python_arch: str | None) -> bool:
    return sys.platform == "darwin" and (python_arch or platform.machine()) == "arm64"


def _facts_without_record(folder: str, python_version: str | None, python_arch: str | None) -> StaticFacts:
    """A torch with no install record (a source checkout, a stray folder or torch.py)."""
    torch_dir = os.path.join(folder, "torch")
    if not os.path.isdir(torch_dir):  # a torch.py: not PyTorch
        return StaticFacts(True, python_version, python_arch, shadow=os.path.join(folder, "torch.py"))
    values = read_version_py(torch_dir)
    version = values.get("__version__")
    build = build_of(version, values.get("cuda"), values.get("hip"), values.get("xpu"),
                     apple_silicon=_apple_silicon(python_arch)) if version else None
    return StaticFacts(True, python_version, python_arch, version=version, build=build,
                       cuda_version=values.get("cuda"), hip_version=values.get("hip"),
                       xpu_version=values.get("xpu"), location=torch_dir,
                       torch_size_mb=round(_walk_bytes(torch_dir) / MB, 1))


def _current_folder() -> str | None:
    """The user's folder, where `import torch` looks first; None if it was deleted under us
    (os.getcwd() then raises)."""
    try:
        return os.getcwd()
    except OSError:
        return None


def _is_running_interpreter(python: str | None) -> bool:
    # Not samefile(): every venv's python is a symlink to the same binary, yet each venv has
    # its own site-packages (found through the pyvenv.cfg beside the link).
    return python is None or os.path.normcase(os.path.abspath(python)) == \
        os.path.normcase(os.path.abspath(sys.executable))


def static_torch_facts(python: str | None = None, extra_path: list[str] | None = None,
                       timeout: float = PATH_QUERY_TIMEOUT, sizes: bool = True,
                       background: bool = False) -> StaticFacts:
    """What can be known about torch in `python` without importing it. Never raises."""
    try:
        return _static_torch_facts(python, extra_path, timeout, sizes, background)
    except Exception as exc:  # a strange site-packages must not take the probe down
        return StaticFacts(False, detail=f"{type(exc).__name__}: {exc}")


def _static_torch_facts(python: str | None, extra_path: list[str] | None,
                        timeout: float, sizes: bool = True, background: bool = False) -> StaticFacts:
    extra = list(extra_path or [])
    here = _current_folder()
    if _is_running_interpreter(python):
        # What `python` typed here would see: this folder first, then the interpreter's path
        # (our own sys.path[0] is where gpu-wizard was started from, not the user's folder).
        entries = extra + [here] + [p for p in sys.path[1:] if p]
        facts = facts_from_path([e for e in entries if e], platform.python_version(), platform.machine(), sizes)
        return _own_folder_shadow(replace(facts, prefix=sys.prefix), here)
    result = run_bounded([python, "-c", _PATH_QUERY], timeout, env=child_env(extra), cwd=neutral_cwd(),
                         background=background)
    if not result.ok:
        return StaticFacts(False, detail=result.detail or _last_line(result.stderr) or result.status)
    try:
        path, version, arch, prefix = json.loads(result.stdout.strip().splitlines()[-1])
        if not isinstance(path, list) or not isinstance(version, str):
            raise TypeError
    except (ValueError, IndexError, TypeError):
        return StaticFacts(False, detail="its answer was not a Python's")
    # Its "" entry is the folder it was started in: for the user, this folder.
    entries = [str(p) if p else here for p in path]
    facts = facts_from_path([e for e in entries if e], version, arch, sizes)
    return _own_folder_shadow(replace(facts, prefix=prefix if isinstance(prefix, str) else None), here)


def _own_folder_shadow(facts: StaticFacts, here: str | None) -> StaticFacts:
    """A torch folder without a version in the user's folder is their own package, not PyTorch.

    The child that imports torch runs elsewhere and cannot see it, so it is named here. (One
    elsewhere on the path is a broken PyTorch, and the child reports how it fails.)"""
    if here and facts.version is None and facts.location and \
            os.path.normcase(facts.location) == os.path.normcase(os.path.join(here, "torch")):
        return replace(facts, shadow=facts.location)
    return facts


# ---------------------------------------------------------------------------------------------
# The live half: a child process of the chosen interpreter


@cache
def child_source() -> str:
    return Path(_torch_child.__file__).read_text(encoding="utf-8")


def child_env(extra_path: list[str] | None = None) -> dict[str, str]:
    """The user's own environment, so the child sees the torch they would see; plus test paths."""
    env = dict(os.environ)
    if extra_path:
        parts = list(extra_path) + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
        env["PYTHONPATH"] = os.pathsep.join(parts)
    env["PYTHONIOENCODING"] = "utf-8"
    env.pop("PYTHONSTARTUP", None)
    # macOS framework builds leak this into children, which then believe they are the venv.
    env.pop("__PYVENV_LAUNCHER__", None)
    return env


def parse_child_output(stdout: str) -> dict | None:
    for line in reversed(stdout.splitlines()):
        if line.startswith(_torch_child.MARKER):
            try:
                data = json.loads(line[len(_torch_child.MARKER):])
            except (ValueError, RecursionError):
                return None
            return _sane(data) if isinstance(data, dict) else None
    return None


# What each key of the child's answer must be. Anything can print a line that starts with our
# marker (a wrapper script, a tampered sitecustomize): a value of another type is dropped, so
# nothing downstream meets a number where it expects text.
_CHILD_TYPES: dict[str, Any] = {
    "status": str, "error_line": str, "describe_error": str, "version": str, "cuda": str,
    "hip": str, "xpu": str, "mps_built": bool, "cuda_available": bool, "mps_available": bool,
    "xpu_available": bool, "device_count": int, "devices": list, "arch_list": list,
    "python_version": str, "machine": str, "cpu_capability": str, "warnings": list,
    "gpu_tests": list, "visible_devices": dict, "location": str, "import_seconds": (int, float),
    "benchmark": dict, "threads": int, "stopped": str,
}
_CHILD_TEXT_LIMIT = 2000


def _sane(data: dict) -> dict | None:
    if data.get("status") not in ("ok", "not-installed", "import-error"):
        return None
    out: dict[str, Any] = {}
    for key, value in data.items():
        kind = _CHILD_TYPES.get(key)
        if kind is None or isinstance(value, bool) != (kind is bool) or not isinstance(value, kind):
            continue
        if isinstance(value, float) and not math.isfinite(value):
            continue
        if isinstance(value, int) and not isinstance(value, bool) and not 0 <= value < 2**31:
            continue
        out[key] = value[:_CHILD_TEXT_LIMIT] if isinstance(value, str) else value
    for key in ("cuda", "hip", "xpu"):
        if key in out and not fits(TorchInfo, "cuda_version", out[key]):
            del out[key]
    if "python_version" in out and not fits(TorchInfo, "python_version", out["python_version"]):
        del out["python_version"]
    for key in ("arch_list", "warnings"):
        if key in out:
            out[key] = [v[:200] for v in out[key] if isinstance(v, str)][:MAX_ITEMS]
    for key in ("devices", "gpu_tests"):
        if key in out:
            out[key] = [v for v in out[key] if isinstance(v, dict)][:MAX_ITEMS]
    if "visible_devices" in out:
        out["visible_devices"] = {k: v[:200] for k, v in out["visible_devices"].items()
                                  if isinstance(k, str) and isinstance(v, str)}
    return out


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


# Windows reports a crash as an exit code, not a signal.
_WINDOWS_CRASHES = {
    0xC0000005: "access violation (0xC0000005)",
    0xC000001D: "illegal instruction (0xC000001D)",
    0xC0000409: "stack buffer overrun (0xC0000409)",
    0xC0000374: "heap corruption (0xC0000374)",
}


class TorchProbeJob:
    """A running torch probe: `.result()` joins it, `.static()` gives the no-import facts.

    With `discover=True` the interpreter is found first (wizard.probe.discover: `python` when
    given, else where users keep torch); without, it is `python` or this interpreter.
    """

    def __init__(self, python: str | None, timeout: float, benchmark: bool,
                 extra_path: list[str] | None, lang: str, *, discover: bool = False,
                 gpu_test: bool = True, source: str | None = None, others_early: bool = False):
        self.interpreter = python or sys.executable
        self.source = source or ("--python" if python else "own")
        self.discovery = None
        self.timeout = timeout
        self.lang = lang
        self._started = time.monotonic()
        self._run: RunResult | None = None
        self._static: StaticFacts | None = None
        self._final: tuple[TorchInfo, Benchmark | None, ProbeNote] | None = None
        self._lock = threading.Lock()
        self._chosen = threading.Event()
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
                from wizard.probe.discover import discover as find

                self.discovery = find(python)
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
            self._run = run_bounded(argv, self.timeout, env=child_env(extra_path), cwd=neutral_cwd())
        except Exception as exc:  # run_bounded should not raise; this is the last net
            self._run = RunResult("error", detail=f"{type(exc).__name__}: {exc}")

    def _read_static(self, extra_path: list[str] | None) -> None:
        self._chosen.wait(DISCOVERY_BOUND)
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
                deadline = self._started + DISCOVERY_BOUND + self.timeout + 1.5
                self._live.join(max(0.0, deadline - time.monotonic()))
                self._quiet.join(max(0.05, deadline - time.monotonic()))
                run = self._run or RunResult("timeout", detail=f"no answer within {self.timeout:g} s")
                info, bench, note = assemble(run, self._static, self.interpreter, self.timeout,
                                             self.lang)
                info = replace(info, interpreter_source=self.source, other_pythons=self._others())
                self._final = info, bench, note
            return self._final

    def _others(self) -> tuple[OtherPython, ...]:
        if self.discovery is None:
            return ()
        # Asked only now that torch has loaded (the processor was its); a slow one is not waited for.
        return tuple(OtherPython(a.candidate.path, a.candidate.source, a.torch_version)
                     for a in self.discovery.others_with_torch(timeout=0.5))



def start_torch_probe(python: str | None = None, timeout: float = DEFAULT_TIMEOUT,
                      benchmark: bool = False, extra_path: list[str] | None = None,
                      lang: str = "en", *, discover: bool = False,
                      gpu_test: bool = True, source: str | None = None,
                      others_early: bool = False) -> TorchProbeJob:
    """Start the torch child now; join with `.result()` when everything else is done."""
    return TorchProbeJob(python, timeout, benchmark, extra_path, lang, discover=discover,
                         gpu_test=gpu_test, source=source, others_early=others_early)


def probe_torch(python: str | None = None, timeout: float = DEFAULT_TIMEOUT,
                benchmark: bool = False, extra_path: list[str] | None = None,
                lang: str = "en", *, discover: bool = False, gpu_test: bool = True,
                source: str | None = None) -> tuple[TorchInfo, Benchmark | None, ProbeNote]:
    """Torch in `python` (default: this interpreter, or the discovered one with `discover`).

    Never raises; returns within its time bounds."""
    return start_torch_probe(python, timeout, benchmark, extra_path, lang, discover=discover,
                             gpu_test=gpu_test, source=source).result()


# ---------------------------------------------------------------------------------------------
# Child answer + static facts → model


def assemble(run: RunResult, static: StaticFacts | None, interpreter: str, timeout: float,
             lang: str = "en") -> tuple[TorchInfo, Benchmark | None, ProbeNote]:
    static = static or StaticFacts(False)
    data = parse_child_output(run.stdout) if run.status in ("ok", "timeout", "crashed") else None
    seconds = round(run.seconds, 3)
    error_line = None
    bench = None
    if data is not None and run.status != "ok":
        if data.get("status") == "ok":
            # torch loaded and answered; what hung or died was a GPU test or the benchmark.
            data = _stopped_during_tests(data, run, timeout)
        else:
            data = None
    if data is not None and data.get("status") == "ok":
        status = "ok"
    elif run.status == "timeout":
        status = "timeout"
        error_line = f"no answer within {timeout:g} s"
    elif run.status in ("not-found", "error"):
        status = "not-installed"
        error_line = run.detail
    elif run.status == "crashed":
        status = "crashed"
        error_line = run.detail.removeprefix("killed by ") or "crashed"
    elif data is None and run.returncode == 0:
        # Python running our child always answers or fails; a clean exit without an answer is
        # a program that only looks like Python (a wrapper, a stub, something else entirely).
        status = "not-installed"
        error_line = NOT_PYTHON
        static = replace(static, installed=False, python_version=None)
    elif data is None:
        code = run.returncode if run.returncode is not None else -1
        crash = _WINDOWS_CRASHES.get(code & 0xFFFFFFFF)
        status = "crashed" if crash or code not in (0, 1) else "import-error"
        error_line = crash or _last_line(run.stderr) or f"exit status {code}"
    else:
        status = data.get("status", "import-error")
        error_line = data.get("error_line")
        if status == "not-installed" and static.installed:
            # pip's record says torch is there, Python cannot find it: a broken install.
            status = "import-error"
    if static.shadow and status in ("ok", "not-installed", "import-error"):
        # The check ran in a neutral folder; in the user's, their torch.py is what imports.
        status, error_line = "import-error", f"'torch' here{SHADOW_MARK}{static.shadow}"
        data = {k: v for k, v in (data or {}).items() if k in ("python_version", "machine")}
    if data and data.get("location") and static.location and \
            os.path.normcase(data["location"]) != os.path.normcase(static.location):
        # The static scan looked at another copy than the one that imported: measure that one.
        site = os.path.dirname(data["location"])
        static = replace(facts_from_path([site], static.python_version, static.python_arch),
                         python_version=static.python_version or data.get("python_version"))

    info = _torch_info(status, data or {}, static, interpreter, error_line)
    info = replace(info, message=torch_message(info, lang, seconds=timeout))
    if data and isinstance(data.get("benchmark"), dict):
        bench = _benchmark(data["benchmark"])
    note_status = "error" if run.status in ("not-found", "error") else _NOTE_STATUS[status]
    if status == "ok" and run.status != "ok":
        note_status = "timeout" if run.status == "timeout" else "error"
    note = ProbeNote("torch", note_status, seconds, _note_detail(info, data))
    return info, bench, note


def _stopped_during_tests(data: dict, run: RunResult, timeout: float) -> dict:
    """The child's last line, with the test it was running marked as what happened to it."""
    if run.status == "timeout":
        status, why = "timeout", f"did not finish within {timeout:g} s"
    else:
        status, why = "failed", f"the process was {run.detail or 'killed'} while testing this device"
    tests = []
    for test in data.get("gpu_tests") or []:
        if isinstance(test, dict) and test.get("status") == "running":
            test = {**test, "status": status, "error_line": why}
        tests.append(test)
    return {**data, "gpu_tests": tests, "stopped": why}


NOT_PYTHON = "it ran but did not answer like Python"

# How the child (and the static scan) word a torch that is not PyTorch; findings key on it.
SHADOW_MARK = " is not PyTorch: "

_NOTE_STATUS = {"ok": "ok", "not-installed": "unavailable", "import-error": "error",
                "crashed": "error", "timeout": "timeout"}


def _torch_info(status: str, data: dict, static: StaticFacts, interpreter: str,
                error_line: str | None) -> TorchInfo:
    live = status == "ok"
    version = data.get("version") if live else None
    version = version or static.version
    cuda = data.get("cuda") if live else static.cuda_version
    hip = data.get("hip") if live else static.hip_version
    xpu = data.get("xpu") if live else static.xpu_version
    mps_built = data.get("mps_built") if live else None
    apple_silicon = sys.platform == "darwin" and (static.python_arch or data.get("machine")) == "arm64"
    if live:
        build = build_of(version, cuda, hip, xpu, mps_built, apple_silicon)
    else:
        build = static.build if static.installed else None
    devices = tuple(
        TorchDevice(name=str(d.get("name") or "GPU")[:200],
                    capability=d.get("capability") if fits(TorchDevice, "capability", d.get("capability"))
                    else None,
                    memory_gb=_number(d.get("memory_gb")))
        for d in data.get("devices", []) if isinstance(d, dict)
    ) if live else ()
    has_sizes = static.installed and static.torch_size_mb is not None
    return TorchInfo(
        status=status,
        interpreter=interpreter,
        version=version if (live or static.installed) else None,
        build=build,
        cuda_version=cuda,
        hip_version=hip,
        xpu_version=xpu,
        cuda_available=data.get("cuda_available") if live else None,
        mps_available=data.get("mps_available") if live else None,
        device_count=data.get("device_count") if live else None,
        devices=devices,
        arch_list=tuple(str(a) for a in data.get("arch_list", [])) if live else (),
        install_size_mb=static.install_size_mb if has_sizes else None,
        torch_size_mb=static.torch_size_mb if has_sizes else None,
        libraries_size_mb=static.libraries_size_mb if has_sizes else None,
        python_version=data.get("python_version") or static.python_version,
        python_arch=data.get("machine") or static.python_arch,
        mps_built=mps_built,
        xpu_available=data.get("xpu_available") if live else None,
        cpu_capability=data.get("cpu_capability") if live else None,
        error_line=error_line,
        torch_warnings=tuple(str(w) for w in data.get("warnings", []))[:8],
        libraries=tuple(name for name, _ in static.libraries) if has_sizes else (),
        companions=static.companions if static.installed else (),
        library_sizes_mb=tuple(size for _, size in static.libraries) if has_sizes else (),
        gpu_tests=_gpu_tests(data.get("gpu_tests")) if live else (),
        visible_devices_env=tuple(f"{k}={v}" for k, v in sorted((data.get("visible_devices") or {}).items())
                                  if isinstance(k, str) and isinstance(v, str)) if live else (),
    )


def _number(value: Any) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) \
        and 0 <= value < 1e6
    return float(value) if ok else None


def _gpu_tests(raw: object) -> tuple[GpuTest, ...]:
    tests = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, dict) or item.get("status") not in ("ok", "failed", "timeout"):
            continue  # "running" never survives _stopped_during_tests; anything else is garbage
        seconds = item.get("seconds")
        tests.append(GpuTest(
            device=str(item.get("device") or "gpu")[:40], status=item["status"],
            name=str(item["name"])[:200] if item.get("name") else None,
            error_line=str(item["error_line"])[:400] if item.get("error_line") else None,
            seconds=_number(seconds),
        ))
    return tuple(tests)


def _benchmark(raw: dict) -> Benchmark | None:
    def whole(value: Any) -> int | None:
        number = _number(value)
        return int(number) if number is not None and number == int(number) else None

    def text(value: Any) -> str | None:
        return value[:400] if isinstance(value, str) else None

    cpu, size = _number(raw.get("cpu_gflops")), whole(raw.get("matrix_size"))
    if cpu is None or size is None:
        return None
    return Benchmark(
        cpu_gflops=cpu, matrix_size=size, dtype=text(raw.get("dtype")) or "float32",
        gpu_tflops=_number(raw.get("gpu_tflops")), gpu_matrix_size=whole(raw.get("gpu_matrix_size")),
        gpu_backend=text(raw.get("gpu_backend")), gpu_name=text(raw.get("gpu_name")),
        gpu_error=text(raw.get("gpu_error")), cpu_threads=whole(raw.get("threads")),
        seconds=_number(raw.get("seconds")),
    )


def _note_detail(info: TorchInfo, data: dict | None) -> str | None:
    if info.status == "ok":
        took = (data or {}).get("import_seconds")
        return f"torch {info.version} ({info.build})" + (f", import {took:g} s" if took else "")
    return info.error_line


# ---------------------------------------------------------------------------------------------
# Words


def _lacks_kernels(info: TorchInfo) -> bool:
    """A device the build has neither SASS nor PTX for: "available", yet every kernel fails."""
    from wizard.torch_matrix import arch_support

    return bool(info.arch_list) and any(
        d.capability and arch_support(info.arch_list, d.capability) is None for d in info.devices
    )


def _waited(error_line: str) -> str | None:
    """The seconds in "no answer within 25 s": a recorded timeout keeps them only there."""
    match = re.search(r"within ([\d.]+) s\b", error_line)
    return match.group(1) if match else None


def torch_message(info: TorchInfo, lang: str = "en", seconds: float | None = None) -> str:
    """One plain sentence or two about the torch in this interpreter, for a beginner."""
    raw = info.error_line or ""  # what the rules below read; the reader gets it framed in `lang`
    values = {
        "version": info.version or t("torch.findings.version-unknown", lang),
        "interpreter": info.interpreter or "python",
        "error": run_text(raw, lang) or t("evidence.message.none", lang),
        "seconds": f"{seconds:g}" if seconds else _waited(raw) or "?",
        "devices": ", ".join(d.name for d in info.devices) or t("check.unknown", lang),
    }
    if info.status == "not-installed":
        if info.error_line == NOT_PYTHON:
            return t("torch.probe.not-python", lang, **values)
        if info.error_line and not info.python_version:
            return t("torch.probe.interpreter-missing", lang, **values)
        return t("torch.probe.not-installed", lang, **values)
    if info.status == "import-error" and SHADOW_MARK in raw:
        return t("torch.probe.shadowed", lang, path=raw.split(SHADOW_MARK, 1)[1])
    if info.status == "import-error":
        key = "import-error-library" if re.search(r"\.so|\.dll|shared object|DLL", raw) \
            else "import-error"
        return t(f"torch.probe.{key}", lang, **values)
    if info.status == "crashed":
        key = "crashed-sigill" if "SIGILL" in raw or "illegal" in raw else "crashed"
        return t(f"torch.probe.{key}", lang, **values)
    if info.status == "timeout":
        return t("torch.probe.timeout", lang, **values)
    failed = next((test for test in info.gpu_tests if test.status != "ok"), None)
    if failed is not None:
        return t("torch.probe.gpu-test-failed", lang, device=failed.device,
                 failure=run_text(failed.error_line or "", lang) or t("evidence.message.none", lang),
                 **values)
    if info.cuda_available:
        if info.build == "cuda" and _lacks_kernels(info):
            return t("torch.probe.ok-cuda-no-kernels", lang, **values)
        return t("torch.probe.ok-rocm" if info.build == "rocm" else "torch.probe.ok-cuda", lang, **values)
    if info.mps_available:
        return t("torch.probe.ok-mps", lang, **values)
    if info.xpu_available:
        return t("torch.probe.ok-xpu", lang, **values)
    if info.build in ("cuda", "rocm", "xpu"):
        return t("torch.probe.ok-no-gpu", lang, build=info.build.upper() if info.build != "rocm"
                 else "ROCm", **values)
    if info.build == "mps":
        return t("torch.probe.ok-mps-unavailable", lang, **values)
    return t("torch.probe.ok-cpu", lang, **values)
