"""The one snapshot of a machine that probes produce and everything else reads.

Frozen dataclasses mirror the report's `[machine]` table (README.md, "The report format"). `to_dict` drops
unknown values (None) so absent facts stay absent in TOML; `from_dict` checks types and enum
values and names the key path of every problem, so a hand-edited or hostile `--machine`
file fails with a clear message instead of a traceback deep inside the advice code.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Union

OS_NAMES = ("Linux", "Windows", "Darwin")
CHASSIS = ("desktop", "laptop", "server", "vm", "container", "wsl", "unknown")
NVIDIA_STATUSES = (
    "ok", "no-library", "no-driver", "no-device", "version-mismatch",
    "no-permission", "timeout", "error",
)
GPU_VENDORS = ("nvidia", "amd", "intel", "apple", "other")
GPU_SOURCES = ("nvml", "pci", "wmi", "system_profiler", "torch")
TORCH_STATUSES = ("ok", "not-installed", "import-error", "crashed", "timeout")
TORCH_BUILDS = ("cuda", "rocm", "xpu", "mps", "cpu")
# How the interpreter whose torch was checked was found (wizard.probe.discover).
INTERPRETER_SOURCES = ("--python", "virtualenv", "conda", "project-venv", "path", "conda-env",
                       "py-launcher", "picked", "own")
GPU_TEST_STATUSES = ("ok", "failed", "timeout")
PROBE_STATUSES = ("ok", "unavailable", "timeout", "error", "skipped")


def _enum(values: tuple[str, ...]) -> dict[str, Any]:
    return {"enum": values}


def _like(pattern: str, example: str) -> dict[str, Any]:
    """A text field with a form (a compute capability "8.6"): what reads it relies on that form,
    so a file that breaks it fails validation, naming the key, instead of crashing a reader."""
    return {"pattern": pattern, "example": example}


def fits(cls: type, name: str, value: Any) -> bool:
    """Whether `value` has the form field `name` of `cls` requires (its pattern), for data from
    a child process, which the same rules as a file must hold."""
    pattern = next(f for f in dataclasses.fields(cls) if f.name == name).metadata.get("pattern")
    return not pattern or (isinstance(value, str) and re.fullmatch(pattern, value) is not None)


_CC = r"\d{1,2}\.\d"
_VERSION = r"\d{1,4}(\.\d{1,4}){0,3}"
_PYTHON = r"\d{1,2}\.\d{1,3}(\.\d{1,3})?[a-z0-9+]*"


@dataclass(frozen=True)
class NvidiaInfo:
    status: str = field(metadata=_enum(NVIDIA_STATUSES))
    driver_version: str | None = field(default=None, metadata=_like(_VERSION, "550.54.14"))
    cuda_driver_version: str | None = field(default=None, metadata=_like(_VERSION, "12.4"))
    message: str | None = None
    # A finer cause than `status` (e.g. "gpu-lost", "container-no-gpu"): the key for the
    # explanation text, so a report re-opened in another language can be explained again.
    reason: str | None = None
    nvml_version: str | None = None
    error_code: int | None = None
    kernel_module: str | None = None  # "open" | "proprietary", from /proc/driver/nvidia/version


@dataclass(frozen=True)
class Gpu:
    vendor: str = field(metadata=_enum(GPU_VENDORS))
    name: str
    source: str = field(metadata=_enum(GPU_SOURCES))
    vram_gb: float | None = None
    vram_free_gb: float | None = None
    compute_capability: str | None = field(default=None, metadata=_like(_CC, "8.6"))
    pci_id: str | None = field(default=None, metadata=_like(r"[0-9a-fA-F]{4}:[0-9a-fA-F]{4}", "10de:2684"))
    kernel_driver: str | None = None
    bus_id: str | None = None
    uuid: str | None = None  # identifying: removed from redacted reports
    laptop: bool | None = None  # a mobile part (Laptop GPU, Max-Q, ...M)
    unified_memory: bool | None = None  # Apple Silicon / iGPU: shares system RAM
    gpu_cores: int | None = None
    gfx_target: str | None = field(default=None, metadata=_like(r"gfx[0-9a-f]{3,4}", "gfx1030"))  # AMD: the ISA ROCm compiles for ("gfx1031"), as the driver reports it


@dataclass(frozen=True)
class TorchDevice:
    name: str
    capability: str | None = field(default=None, metadata=_like(_CC + r"|gfx[0-9a-f]{3,4}", "8.6"))
    memory_gb: float | None = None


@dataclass(frozen=True)
class GpuTest:
    """A tiny kernel (allocate, add, synchronize) run on one device: the ground truth."""

    device: str                      # "cuda:0" (also ROCm), "xpu:0", "mps"
    status: str = field(metadata=_enum(GPU_TEST_STATUSES))
    name: str | None = None
    error_line: str | None = None    # the key line when it failed
    seconds: float | None = None


@dataclass(frozen=True)
class OtherPython:
    """Another interpreter with torch that discovery found (not the one checked)."""

    interpreter: str
    source: str = field(metadata=_enum(INTERPRETER_SOURCES))
    torch_version: str | None = None


@dataclass(frozen=True)
class TorchInfo:
    status: str = field(metadata=_enum(TORCH_STATUSES))
    interpreter: str | None = None
    version: str | None = None
    build: str | None = field(default=None, metadata=_enum(TORCH_BUILDS))
    cuda_version: str | None = field(default=None, metadata=_like(_VERSION, "12.8"))
    hip_version: str | None = None
    xpu_version: str | None = None
    cuda_available: bool | None = None
    mps_available: bool | None = None
    device_count: int | None = None
    devices: tuple[TorchDevice, ...] = ()
    arch_list: tuple[str, ...] = ()
    install_size_mb: float | None = None
    torch_size_mb: float | None = None
    libraries_size_mb: float | None = None
    message: str | None = None
    # The probed interpreter may not be the one running gpu-wizard (`--python`).
    python_version: str | None = field(default=None, metadata=_like(_PYTHON, "3.12.4"))
    python_arch: str | None = None    # "x86_64" under Rosetta on an arm64 Mac: no MPS
    mps_built: bool | None = None
    xpu_available: bool | None = None
    cpu_capability: str | None = None  # torch's CPU kernels: "AVX2", "AVX512", "DEFAULT"
    error_line: str | None = None      # the key line of an import error, or the signal
    torch_warnings: tuple[str, ...] = ()  # e.g. "... sm_120 is not compatible ..." (first lines)
    # The GPU runtime packages torch brought (nvidia-*, cuda-*, triton), largest first;
    # `library_sizes_mb[i]` belongs to `libraries[i]`.
    libraries: tuple[str, ...] = ()
    library_sizes_mb: tuple[float, ...] = ()
    interpreter_source: str | None = field(default=None, metadata=_enum(INTERPRETER_SOURCES))
    other_pythons: tuple[OtherPython, ...] = ()
    gpu_tests: tuple[GpuTest, ...] = ()
    # "CUDA_VISIBLE_DEVICES=-1" and the like, as the checked interpreter saw them: they hide GPUs.
    visible_devices_env: tuple[str, ...] = ()
    # torchvision / torchaudio installed beside torch: an install command must keep them in step.
    companions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Benchmark:
    cpu_gflops: float
    matrix_size: int
    dtype: str
    gpu_tflops: float | None = None
    gpu_matrix_size: int | None = None
    gpu_backend: str | None = None     # "cuda" (also ROCm) | "mps" | "xpu"
    gpu_name: str | None = None
    gpu_error: str | None = None       # why the GPU run failed, e.g. "no kernel image is available"
    cpu_threads: int | None = None
    seconds: float | None = None


@dataclass(frozen=True)
class ProbeNote:
    """How one probe went, so the UI can say "unknown — why" instead of guessing."""

    name: str
    status: str = field(metadata=_enum(PROBE_STATUSES))
    seconds: float | None = None
    detail: str | None = None


@dataclass(frozen=True)
class Machine:
    os: str = field(metadata=_enum(OS_NAMES))
    os_version: str
    arch: str
    python_version: str
    cpu_model: str
    cpu_cores: int | None
    cpu_threads: int | None
    ram_gb: float | None
    disk_free_gb: float | None
    chassis: str = field(metadata=_enum(CHASSIS))
    nvidia: NvidiaInfo
    chassis_evidence: tuple[str, ...] = ()
    hostname: str | None = None  # identifying: removed from redacted reports
    gpus: tuple[Gpu, ...] = ()
    torch: TorchInfo | None = None
    benchmark: Benchmark | None = None
    probes: tuple[ProbeNote, ...] = ()

    def nvidia_gpus(self) -> tuple[Gpu, ...]:
        return tuple(g for g in self.gpus if g.vendor == "nvidia")


class MachineFormatError(ValueError):
    """A `[machine]` table that does not fit the schema; `problems` names each key path."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))


def to_dict(obj: Any) -> Any:
    """Dataclass → plain TOML/JSON-ready data; None values are left out, tuples become lists."""
    if dataclasses.is_dataclass(obj):
        out = {}
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            if value is None:
                continue
            out[f.name] = to_dict(value)
        return out
    if isinstance(obj, (tuple, list)):
        return [to_dict(v) for v in obj]
    return obj


def machine_from_dict(data: Any, path: str = "machine") -> Machine:
    problems: list[str] = []
    machine = _build(Machine, data, path, problems)
    if problems:
        raise MachineFormatError(problems)
    return machine


_MISSING = object()


def _build(cls: type, data: Any, path: str, problems: list[str]) -> Any:
    if not isinstance(data, dict):
        problems.append(f"{path}: expected a table, got {type_name(data)}")
        return None
    hints = _type_hints(cls)
    kwargs = {}
    for f in dataclasses.fields(cls):
        key_path = f"{path}.{f.name}"
        raw = data.get(f.name, _MISSING)
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        if raw is _MISSING:
            if required and not _allows_none(hints[f.name]):
                problems.append(f"{key_path}: missing")
            elif required:
                kwargs[f.name] = None
            continue
        before = len(problems)
        value = _convert(hints[f.name], raw, key_path, problems)
        if len(problems) > before:  # one problem per value: a wrong type is enough said
            continue
        allowed = f.metadata.get("enum")
        pattern = f.metadata.get("pattern")
        if allowed and value is not None and value not in allowed:
            problems.append(f"{key_path}: {value!r} is not one of {', '.join(allowed)}")
        elif pattern and isinstance(value, str) and not re.fullmatch(pattern, value):
            shown = value if len(value) <= 24 else value[:20] + "…"
            problems.append(f"{key_path}: {shown!r} is not like {f.metadata['example']!r}")
        elif isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0 \
                and f.name.endswith(_NEVER_NEGATIVE):
            problems.append(f"{key_path}: {value!r} is negative")
        kwargs[f.name] = value
    if problems:
        return None
    return cls(**kwargs)


def field_kind(cls: type, name: str) -> tuple[str, type | None]:
    """What field `name` of `cls` holds, for code that treats values by meaning (redaction):
    ("fixed", None) for a closed set or a form (os, vendor, "8.6"), ("table", Gpu) for a table
    or list of tables, ("value", None) for other data, ("unknown", None) for no such field."""
    for f in dataclasses.fields(cls):
        if f.name != name:
            continue
        if "enum" in f.metadata or "pattern" in f.metadata:
            return "fixed", None
        tp = _type_hints(cls)[name]
        for candidate in (tp, *typing.get_args(tp)):
            for inner in (candidate, *typing.get_args(candidate)):
                if dataclasses.is_dataclass(inner):
                    return "table", inner
        return "value", None
    return "unknown", None


def schema_words() -> frozenset[str]:
    """Every word of the closed sets (os names, vendors, builds, statuses…), lower case."""
    words = set()
    for cls in (Machine, NvidiaInfo, Gpu, TorchInfo, TorchDevice, GpuTest, OtherPython, ProbeNote):
        for f in dataclasses.fields(cls):
            words.update(str(v).lower() for v in f.metadata.get("enum", ()))
    return frozenset(words)


@functools.cache
def _type_hints(cls: type) -> dict[str, Any]:
    # Resolving the string annotations compiles each one: once per class, not once per table
    # read (summarizing a class of 200 reports spent most of its time here).
    return {f.name: _resolve(f.type) if isinstance(f.type, str) else f.type for f in dataclasses.fields(cls)}


def _resolve(annotation: str) -> Any:
    """ "int | None" → Optional[int], evaluated in this module.

    `typing.get_type_hints` evaluates "X | None" with the `|` operator, which types only have
    from Python 3.10 on; lab servers run 3.9. Each side of a top-level `|` is evaluated alone."""
    parts = [part.strip() for part in annotation.split("|")]
    if any(part.count("[") != part.count("]") for part in parts):
        parts = [annotation]  # a `|` inside brackets: not ours to split
    resolved = tuple(eval(part, globals()) for part in parts)  # our own annotations, never input
    return resolved[0] if len(resolved) == 1 else Union[resolved]


# Sizes, counts and speeds: a negative one is a hand-edited (or broken) file.
_NEVER_NEGATIVE = ("_gb", "_gflops", "_tflops", "_count", "_cores", "_threads", "_mb", "seconds",
                   "matrix_size")


def _allows_none(tp: Any) -> bool:
    return _is_union(tp) and type(None) in typing.get_args(tp)


# `int | None` made at run time is types.UnionType from Python 3.10 on; before, only Union exists.
_UNIONS = (Union, getattr(types, "UnionType", Union))


def _is_union(tp: Any) -> bool:
    return typing.get_origin(tp) in _UNIONS


# No machine has more GPUs, probes or warnings than this; a file with thousands is not one we
# wrote, and every reader would have to draw them all.
MAX_ITEMS = 64


def _convert(tp: Any, raw: Any, path: str, problems: list[str]) -> Any:
    if _is_union(tp):
        inner = [a for a in typing.get_args(tp) if a is not type(None)]
        if raw is None:
            return None
        return _convert(inner[0], raw, path, problems)
    origin = typing.get_origin(tp)
    if origin is tuple:
        if not isinstance(raw, list):
            problems.append(f"{path}: expected a list, got {type_name(raw)}")
            return ()
        if len(raw) > MAX_ITEMS:
            problems.append(f"{path}: {len(raw)} entries, more than any machine has (at most {MAX_ITEMS})")
            return ()
        item_type = typing.get_args(tp)[0]
        return tuple(_convert(item_type, v, f"{path}[{i}]", problems) for i, v in enumerate(raw))
    if dataclasses.is_dataclass(tp):
        return _build(tp, raw, path, problems)
    if tp in (bool, int, float, str):
        problem = scalar_problem(tp, raw, path)
        if problem:
            problems.append(problem)
            return raw
        return float(raw) if tp is float else raw
    raise TypeError(f"unsupported field type {tp!r} at {path}")  # a bug in this module, not input


def scalar_problem(kind: type, raw: Any, path: str) -> str | None:
    """What is wrong with one TOML value that should be `kind` (bool/int/float/str), or None.

    One set of rules for every file we read: no true/false where a number belongs, no
    infinite or absurd numbers, no megabyte of text in one field.
    """
    if kind is bool:
        return None if isinstance(raw, bool) else f"{path}: expected true or false, got {type_name(raw)}"
    if kind in (int, float):
        allowed = (int,) if kind is int else (int, float)
        if isinstance(raw, bool) or not isinstance(raw, allowed):
            expected = "a whole number" if kind is int else "a number"
            return f"{path}: expected {expected}, got {type_name(raw)}"
        limit = 2**53 if kind is int else 1e15
        # A whole number with hundreds of digits cannot even become a float: check its size first.
        if (isinstance(raw, int) and abs(raw) >= limit) or (isinstance(raw, float) and not math.isfinite(raw)) \
                or abs(raw) >= limit:
            shown = str(raw) if len(str(raw)) <= 24 else str(raw)[:20] + "…"
            return f"{path}: number {shown} is out of range"
        return None
    if kind is str:
        if not isinstance(raw, str):
            return f"{path}: expected text, got {type_name(raw)}"
        if len(raw) > 10_000:
            return f"{path}: text is {len(raw)} characters long (at most 10000)"
        return None
    raise TypeError(f"no scalar rule for {kind!r}")  # a bug in the caller, not input


def type_name(raw: Any) -> str:
    """How a TOML value's type reads in an error message for a person."""
    import datetime as dt

    return {
        dict: "a table", list: "a list", str: "text", bool: "true/false", int: "a whole number",
        float: "a number", dt.datetime: "a date-time", dt.date: "a date", dt.time: "a time",
    }.get(type(raw), type(raw).__name__)
