"""What the interpreter's path says about torch, without importing it.

Finds torch's `*.dist-info` on the path `import torch` would search, reads `torch/version.py`
with `ast`, and adds up the installed sizes of torch and of the GPU runtime packages it brought
from their RECORD files. These facts survive a child that never answers.
"""

from __future__ import annotations

import ast
import csv
import json
import os
import re
import sys
from dataclasses import dataclass, replace

from wizard.bounded_read import FileRefused, open_text, read_head, read_text
from wizard.probe.runner import neutral_cwd, python_child_env, run_bounded
from wizard.probe.system import machine
from wizard.pytorch.probe.child import last_line

PATH_QUERY_TIMEOUT = 5.0
MB = 1_000_000  # what pip shows; the data in content/torch_matrix.toml uses the same
# Packages built against one exact torch release: installed from the same index, in step with it.
COMPANIONS = ("torchvision", "torchaudio")
# The packages a PyTorch bug report lists (what `python -m torch.utils.collect_env` calls the
# relevant libraries): torch and its kin, NVIDIA's runtime wheels, triton, numpy.
_REPORTED = re.compile(r"^(torch.*|pytorch.*|libtorch|nvidia-.*|triton|numpy|cudatoolkit|cuda-version|cudnn|nccl)$")
MAX_PACKAGES = 40

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

# Caps on the files read from an environment, which anyone who can write there may have made a
# FIFO, a link to /dev/zero or a huge file. Real ones are far smaller: METADATA's headers are a
# few kB (its long description, after them, is never read), torch's version.py under 1 kB, and
# a CUDA build's RECORD a few MB.
METADATA_HEAD_BYTES = 256 * 1024
VERSION_PY_BYTES = 256 * 1024
RECORD_BYTES = 64 * 1024 * 1024


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
    # "name==version" of the packages a bug report lists (_REPORTED); conda's as "conda:name==version".
    packages: tuple[str, ...] = ()

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
        except (OSError, ValueError):  # zip files, missing folders; a NUL in a child's answer
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
            head = read_head(os.path.join(meta_dir, file_name), METADATA_HEAD_BYTES)
        except FileRefused:
            continue
        return _headers(head.decode("utf-8", "replace"))
    return []


def _headers(text: str) -> list[tuple[str, str]]:
    headers = []
    # Split as a text file's lines are (universal newlines), not at every str.splitlines() break.
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if not line.strip():
            break  # the long description follows; it can be megabytes
        key, sep, value = line.partition(":")
        if sep and not line[0].isspace():
            headers.append((key.strip(), value.strip()))
    return headers


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
    """Installed size from RECORD: the recorded size, or the file's own for rows without one.
    None when there is no RECORD that can be read (refused, too big, not CSV)."""
    total = 0
    try:
        with open_text(os.path.join(dist.meta_dir, "RECORD"), RECORD_BYTES) as lines:
            for row in csv.reader(lines):
                if not row:
                    continue
                size = _recorded_size(row)
                if size is not None:
                    total += size
                    continue
                try:  # .pyc files and RECORD itself are listed without a size
                    total += os.stat(os.path.join(dist.site, row[0])).st_size
                except (OSError, ValueError):  # ValueError: a NUL in the name
                    pass
    except (FileRefused, csv.Error):
        return None
    return total


# A size as pip writes it. str.isdigit() alone also passes "²", which int() refuses, and a
# thousand digits, which Python 3.11 refuses to convert.
_SIZE = re.compile(r"[0-9]{1,18}")


def _recorded_size(row: list[str]) -> int | None:
    return int(row[2]) if len(row) >= 3 and _SIZE.fullmatch(row[2]) else None


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
        source = read_text(os.path.join(torch_dir, "version.py"), VERSION_PY_BYTES)
        tree = ast.parse(source)
    except (FileRefused, SyntaxError, ValueError, RecursionError, MemoryError):
        # RecursionError, MemoryError: a file nested thousands deep, not a generated one.
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
            except (ValueError, TypeError, RecursionError, MemoryError):
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
        packages=reported_packages(dists),
    )


def reported_packages(dists: dict[str, _Dist]) -> tuple[str, ...]:
    """The pip packages a bug report lists, "name==version", by name."""
    return tuple(f"{name}=={dists[name].version}" for name in sorted(dists)
                 if _REPORTED.match(name))[:MAX_PACKAGES]


def conda_packages(prefix: str | None) -> tuple[str, ...]:
    """The same packages as conda installed them in the environment at `prefix` (its
    conda-meta/NAME-VERSION-BUILD.json files), "conda:name==version"; () outside conda."""
    if not prefix:
        return ()
    try:
        names = os.listdir(os.path.join(prefix, "conda-meta"))
    except (OSError, ValueError):
        return ()
    found = []
    for file_name in sorted(names):
        parts = file_name[:-len(".json")].rsplit("-", 2) if file_name.endswith(".json") else []
        if len(parts) == 3 and _REPORTED.match(parts[0]):
            found.append(f"conda:{parts[0]}=={parts[1]}")
    return tuple(found)[:MAX_PACKAGES]


def _apple_silicon(python_arch: str | None) -> bool:
    return sys.platform == "darwin" and (python_arch or machine()) == "arm64"


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
        version = ".".join(map(str, sys.version_info[:3]))   # as _PATH_QUERY's child says it
        facts = facts_from_path([e for e in entries if e], version, machine(), sizes)
        return _own_folder_shadow(_with_conda(replace(facts, prefix=sys.prefix)), here)
    assert python is not None  # None is the running interpreter, answered above
    result = run_bounded([python, "-c", _PATH_QUERY], timeout, env=python_child_env(extra), cwd=neutral_cwd(),
                         background=background)
    if not result.ok:
        return StaticFacts(False, detail=result.detail or last_line(result.stderr) or result.status)
    answer = _path_answer(result.stdout)
    if answer is None:
        return StaticFacts(False, detail="its answer was not a Python's")
    path, version, arch, prefix = answer
    # Its "" entry is the folder it was started in: for the user, this folder.
    entries = [p or here for p in path]
    facts = facts_from_path([e for e in entries if e], version, arch, sizes)
    return _own_folder_shadow(_with_conda(replace(facts, prefix=prefix)), here)


def _with_conda(facts: StaticFacts) -> StaticFacts:
    extra = conda_packages(facts.prefix) if facts.installed else ()
    return replace(facts, packages=facts.packages + extra) if extra else facts


def _path_answer(stdout: str) -> tuple[list[str], str, str | None, str | None] | None:
    """_PATH_QUERY's answer, every part of the type it must be. Anything can sit at a path
    given as a Python: a value of another type is dropped (a path entry, the architecture, the
    prefix) or, for the version (which the query prints as three numbers), makes the whole
    answer not a Python's."""
    try:
        answer = json.loads(stdout.strip().splitlines()[-1])
    except (ValueError, IndexError, RecursionError):
        return None
    if not isinstance(answer, list) or len(answer) != 4:
        return None
    path, version, arch, prefix = answer
    if not isinstance(path, list) or not isinstance(version, str) or not _VERSION.fullmatch(version):
        return None
    # A NUL cannot be in a real path; os.listdir() would raise ValueError on it.
    entries = [p for p in path if isinstance(p, str) and "\0" not in p]
    arch = arch if isinstance(arch, str) and _ARCH.fullmatch(arch) else None
    return entries, version, arch, _text_or_none(prefix)


_VERSION = re.compile(r"[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}")
# platform.machine() everywhere: x86_64, AMD64, arm64, aarch64, ppc64le, armv7l, i686...
_ARCH = re.compile(r"[A-Za-z0-9_.-]{1,40}")


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) and value and "\0" not in value else None


def _own_folder_shadow(facts: StaticFacts, here: str | None) -> StaticFacts:
    """A torch folder without a version in the user's folder is their own package, not PyTorch.

    The child that imports torch runs elsewhere and cannot see it, so it is named here. (One
    elsewhere on the path is a broken PyTorch, and the child reports how it fails.)"""
    if here and facts.version is None and facts.location and \
            os.path.normcase(facts.location) == os.path.normcase(os.path.join(here, "torch")):
        return replace(facts, shadow=facts.location)
    return facts

