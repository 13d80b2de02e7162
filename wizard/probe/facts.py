"""The one snapshot of a machine that probes produce and everything else reads.

Frozen dataclasses mirror the report's `[machine]` table (README.md, "The report format"). `to_dict` drops
unknown values (None) so absent facts stay absent in TOML. Each field's rules (closed sets,
forms like "8.6", never-negative sizes) sit in its metadata, and `machine_from_dict` reads a
table through wizard.schema, naming the key path of every problem: a hand-edited or hostile
`--machine` file fails where it is read, with a clear message, instead of a traceback deep
inside the advice code.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from typing import Any

from wizard.schema import SHARED, RecordError, read_record, record_types, rule

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
# Why discovery found an interpreter and did not run it (wizard.probe.trust, README "What
# gpu-wizard runs"): a folder's own environment not allowed yet, or refused by the user; owned by
# another user; writable by others; found through a relative PATH entry (the current folder).
NOT_RUN_REASONS = ("ask-first", "declined", "other-owner", "writable-by-others", "relative-path")
GPU_TEST_STATUSES = ("ok", "failed", "timeout")
PROBE_STATUSES = ("ok", "unavailable", "timeout", "error", "skipped")
# Environment variables that change which CUDA libraries a Python loads: only whether each is
# set is kept, never its value (a path names a user's folders).
LIBRARY_ENV_VARS = ("LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "LD_PRELOAD")


def _enum(values: tuple[str, ...]) -> dict[str, Any]:
    return rule(choices=values)


def _like(pattern: str, example: str) -> dict[str, Any]:
    """A text field with a form (a compute capability "8.6"): what reads it relies on that form,
    so a file that breaks it fails validation, naming the key, instead of crashing a reader."""
    return rule(pattern=pattern, like=example)


# Sizes, counts and speeds: a negative one is a hand-edited (or broken) file.
_SIZE = rule(low=0)
_SIZES = rule(items=rule(low=0))


_CC = r"\d{1,2}\.\d"
_VERSION = r"\d{1,4}(\.\d{1,4}){0,3}"
_PYTHON = r"\d{1,2}\.\d{1,3}(\.\d{1,3})?[a-z0-9+]*"


@dataclass(frozen=True)
class NvidiaInfo:
    status: str = field(metadata=_enum(NVIDIA_STATUSES))
    driver_version: str | None = field(default=None, metadata=_like(_VERSION, "550.54.14"))
    cuda_driver_version: str | None = field(default=None, metadata=_like(_VERSION, "12.4"))
    # The report's sentence (README, "The report format"): written with the report, in its
    # language (wizard.report.building.machine_table). A Machine holds one only when read from a
    # report whose sentence quotes its run and nothing else records it (wizard.diagnosis.
    # nvidia_cause.recorded); probes never set it, and `nvidia_message` words the status.
    message: str | None = None
    # A finer cause than `status` (e.g. "gpu-lost", "container-no-gpu"): the key for the
    # explanation text, so a report re-opened in another language can be explained again.
    reason: str | None = None
    nvml_version: str | None = None
    error_code: int | None = None
    kernel_module: str | None = None  # "open" | "proprietary", from /proc/driver/nvidia/version
    # UEFI Secure Boot on (Linux): a driver whose module is not signed by an enrolled key stays
    # unloaded however often the computer reboots.
    secure_boot: bool | None = None


@dataclass(frozen=True)
class Gpu:
    vendor: str = field(metadata=_enum(GPU_VENDORS))
    name: str
    source: str = field(metadata=_enum(GPU_SOURCES))
    vram_gb: float | None = field(default=None, metadata=_SIZE)
    vram_free_gb: float | None = field(default=None, metadata=_SIZE)
    compute_capability: str | None = field(default=None, metadata=_like(_CC, "8.6"))
    pci_id: str | None = field(default=None, metadata=_like(r"[0-9a-fA-F]{4}:[0-9a-fA-F]{4}", "10de:2684"))
    kernel_driver: str | None = None
    bus_id: str | None = None
    uuid: str | None = None  # identifying: removed from redacted reports
    laptop: bool | None = None  # a mobile part (Laptop GPU, Max-Q, ...M)
    unified_memory: bool | None = None  # Apple Silicon / iGPU: shares system RAM
    gpu_cores: int | None = field(default=None, metadata=_SIZE)
    # AMD: the ISA ROCm compiles for ("gfx1031"), as the driver reports it
    gfx_target: str | None = field(default=None, metadata=_like(r"gfx[0-9a-f]{3,4}", "gfx1030"))
    # Windows: the device's Device Manager problem code when it has one (ConfigManagerErrorCode:
    # 22 = disabled, 43 = stopped after reporting problems, 28 = no driver installed).
    config_error: int | None = field(default=None, metadata=_SIZE)
    # NVIDIA Multi-Instance GPU (A100, H100...): MIG mode on, and the MIG devices' UUIDs ("MIG-…",
    # what CUDA_VISIBLE_DEVICES selects one by; identifying like `uuid`: written MIG-<uuid> when shared).
    mig_mode: bool | None = None
    mig_devices: tuple[str, ...] = ()


@dataclass(frozen=True)
class TorchDevice:
    name: str
    capability: str | None = field(default=None, metadata=_like(_CC + r"|gfx[0-9a-f]{3,4}", "8.6"))
    memory_gb: float | None = field(default=None, metadata=_SIZE)


@dataclass(frozen=True)
class GpuTest:
    """A tiny kernel (allocate, add, synchronize) run on one device: the ground truth."""

    device: str                      # "cuda:0" (also ROCm), "xpu:0", "mps"
    status: str = field(metadata=_enum(GPU_TEST_STATUSES))
    name: str | None = None
    error_line: str | None = None    # the key line when it failed
    seconds: float | None = field(default=None, metadata=_SIZE)


@dataclass(frozen=True)
class OtherPython:
    """Another interpreter with torch that discovery found (not the one checked)."""

    interpreter: str
    source: str = field(metadata=_enum(INTERPRETER_SOURCES))
    torch_version: str | None = None


@dataclass(frozen=True)
class NotRunPython:
    """An interpreter discovery found and did not run, and why (NOT_RUN_REASONS); the PyTorch
    its files show, read without running it."""

    interpreter: str
    source: str = field(metadata=_enum(INTERPRETER_SOURCES))
    reason: str = field(metadata=_enum(NOT_RUN_REASONS))
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
    device_count: int | None = field(default=None, metadata=_SIZE)
    devices: tuple[TorchDevice, ...] = ()
    arch_list: tuple[str, ...] = ()
    install_size_mb: float | None = field(default=None, metadata=_SIZE)
    torch_size_mb: float | None = field(default=None, metadata=_SIZE)
    libraries_size_mb: float | None = field(default=None, metadata=_SIZE)
    # The report's sentence, written with the report (wizard.report.building.machine_table);
    # never on a Machine: wizard.pytorch.wording.torch_message words the facts when shown.
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
    library_sizes_mb: tuple[float, ...] = field(default=(), metadata=_SIZES)
    interpreter_source: str | None = field(default=None, metadata=_enum(INTERPRETER_SOURCES))
    other_pythons: tuple[OtherPython, ...] = ()
    # Interpreters found and not run (another user's, one this folder holds and nobody allowed).
    not_run: tuple[NotRunPython, ...] = ()
    # Interpreters run besides the checked one, to learn which has PyTorch (sys.path only).
    asked: tuple[str, ...] = ()
    gpu_tests: tuple[GpuTest, ...] = ()
    # "CUDA_VISIBLE_DEVICES=-1" and the like, as the checked interpreter saw them: they hide GPUs.
    visible_devices_env: tuple[str, ...] = ()
    # torchvision / torchaudio installed beside torch: an install command must keep them in step.
    companions: tuple[str, ...] = ()
    # Which of LIBRARY_ENV_VARS the checked interpreter saw set (names only, never the values),
    # and whether LD_LIBRARY_PATH holds a folder with CUDA libraries (libcudart, libcudnn...):
    # those are loaded before the ones torch brought.
    env_vars: tuple[str, ...] = field(default=(), metadata=rule(items=rule(choices=LIBRARY_ENV_VARS)))
    ld_library_path_cuda: bool | None = None
    # The C library the interpreter runs on ("2.17"; Linux wheels state the oldest they need).
    glibc_version: str | None = field(default=None, metadata=_like(_VERSION, "2.35"))
    cudnn_version: str | None = field(default=None, metadata=_like(_VERSION, "9.1.0"))
    # The packages a bug report asks for, as installed beside torch: "torchvision==0.21.0",
    # "nvidia-cudnn-cu12==9.1.0.70", "triton==3.2.0", "numpy==2.2.3"; conda's, in a conda
    # environment, as "conda:pytorch==2.5.1".
    packages: tuple[str, ...] = ()


@dataclass(frozen=True)
class Benchmark:
    cpu_gflops: float = field(metadata=_SIZE)
    matrix_size: int = field(metadata=_SIZE)
    dtype: str
    gpu_tflops: float | None = field(default=None, metadata=_SIZE)
    gpu_matrix_size: int | None = field(default=None, metadata=_SIZE)
    gpu_backend: str | None = None     # "cuda" (also ROCm) | "mps" | "xpu"
    gpu_name: str | None = None
    gpu_error: str | None = None       # why the GPU run failed, e.g. "no kernel image is available"
    cpu_threads: int | None = field(default=None, metadata=_SIZE)
    seconds: float | None = field(default=None, metadata=_SIZE)


@dataclass(frozen=True)
class ProbeNote:
    """How one probe went, so the UI can say "unknown — why" instead of guessing."""

    name: str
    status: str = field(metadata=_enum(PROBE_STATUSES))
    seconds: float | None = field(default=None, metadata=_SIZE)
    detail: str | None = None


@dataclass(frozen=True)
class Machine:
    os: str = field(metadata=_enum(OS_NAMES))
    os_version: str
    arch: str
    python_version: str
    cpu_model: str
    cpu_cores: int | None = field(metadata=_SIZE)
    cpu_threads: int | None = field(metadata=_SIZE)
    ram_gb: float | None = field(metadata=_SIZE)
    disk_free_gb: float | None = field(metadata=_SIZE)
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
    """A `[machine]` table as a Machine; MachineFormatError naming every bad key otherwise."""
    try:
        return read_record(Machine, data, SHARED, (path,))
    except RecordError as exc:
        raise MachineFormatError([problem.dotted() for problem in exc.problems]) from None


def field_kind(cls: type, name: str) -> tuple[str, type | None]:
    """What field `name` of `cls` holds, for code that treats values by meaning (redaction):
    ("fixed", None) for a closed set or a form (os, vendor, "8.6"), ("table", Gpu) for a table
    or list of tables, ("value", None) for other data, ("unknown", None) for no such field."""
    for f in dataclasses.fields(cls):
        if f.name != name:
            continue
        if "choices" in f.metadata or "pattern" in f.metadata:
            return "fixed", None
        tp = record_types(cls)[name]
        for candidate in (tp, *typing.get_args(tp)):
            for inner in (candidate, *typing.get_args(candidate)):
                if isinstance(inner, type) and dataclasses.is_dataclass(inner):
                    return "table", inner
        return "value", None
    return "unknown", None


def schema_words() -> frozenset[str]:
    """Every word of the closed sets (os names, vendors, builds, statuses…), lower case."""
    words: set[str] = set()
    for cls in (Machine, NvidiaInfo, Gpu, TorchInfo, TorchDevice, GpuTest, OtherPython, NotRunPython, ProbeNote):
        for f in dataclasses.fields(cls):
            words.update(str(v).lower() for v in f.metadata.get("choices", ()))
    return frozenset(words)
