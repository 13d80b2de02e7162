"""The matrix's records as content/torch_matrix.toml holds them: sources, GPU arch sets, variants
(cu128, rocm7.2, xpu, cpu), releases and their builds, install sizes, and the old CUDA versions
with exact driver floors. Each field's type and rule is declared here once (wizard.schema);
wizard.pytorch.matrix.parse reads every entry against it and checks what no single field can say
(names that refer to other entries, the order of releases, what each kind of variant needs)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from wizard.pytorch.matrix.rules import driver_tuple, version_tuple
from wizard.schema import rule

INDEX_BASE = "https://download.pytorch.org/whl/"
SCHEMA = "gpu-wizard/torch-matrix/1"
PLATFORMS = ("linux-x86_64", "linux-aarch64", "windows-x86_64", "macos-arm64")
VARIANT_KINDS = ("cuda", "rocm", "xpu", "cpu")

_VERSION = r"\d+\.\d+\.\d+"
_PYTHON = r"3\.\d{1,2}"
_DRIVER = r"\d{3}(\.\d{1,3}){0,2}"
_MACOS = r"\d{2}\.\d"
_SOURCES = rule(unique=True)    # ids of [sources]: the loader checks each is defined


def _version(example: str) -> dict[str, Any]:
    return rule(pattern=_VERSION, what=f"a version like {example}")


def _python(example: str) -> dict[str, Any]:
    return rule(pattern=_PYTHON, what=f"a Python version like {example}")


def _date(example: str) -> dict[str, Any]:
    return rule(pattern=r"\d{4}-\d{2}(-\d{2})?", what=f"a date like {example}")


def _driver(example: str, blank: bool = False) -> dict[str, Any]:
    return rule(pattern=_DRIVER, what=f"a driver version like {example}", blank=blank)


@dataclass(frozen=True)
class Source:
    id: str = field(metadata=rule(read=False))      # its key in [sources]
    title: str
    url: str = field(metadata=rule(pattern=r"https://\S+", what="an https:// address"))
    checked: str = field(metadata=_date("2026-11-30"))


@dataclass(frozen=True)
class ArchSet:
    name: str = field(metadata=rule(read=False))    # its key in [arch_sets]
    sm: tuple[str, ...] = field(metadata=rule(items=rule(pattern=r"sm_\d{2,3}[af]?", what="like sm_86"),
                                              unique=True))
    source: tuple[str, ...] = field(metadata=_SOURCES)
    ptx: tuple[str, ...] = field(default=(), metadata=rule(
        items=rule(pattern=r"compute_\d{2,3}", what="like compute_120"), unique=True))
    note: str = ""

    @property
    def arch_list(self) -> tuple[str, ...]:
        return self.sm + self.ptx


@dataclass(frozen=True)
class Variant:
    name: str = field(metadata=rule(read=False))    # its key in [variants]
    kind: str = field(metadata=rule(choices=VARIANT_KINDS))
    source: tuple[str, ...] = field(metadata=_SOURCES)
    # A CUDA variant's: which CUDA, and the oldest drivers that run it (compat: minor-version
    # compatibility; toolkit: everything, where it is higher).
    cuda: str | None = field(default=None, metadata=rule(pattern=r"\d{2}\.\d", what="a CUDA version like 12.6"))
    toolkit: str | None = field(default=None, metadata=_version("12.6.3"))
    linux_compat: str | None = field(default=None, metadata=_driver("560.35.05"))
    windows_compat: str | None = field(default=None, metadata=_driver("560.94"))
    linux_toolkit: str | None = field(default=None, metadata=_driver("560.35.05", blank=True))
    windows_toolkit: str | None = field(default=None, metadata=_driver("560.94", blank=True))
    # A ROCm variant's: which ROCm, and the GPU targets its kernels are built for.
    rocm: str | None = None
    gfx: tuple[str, ...] = field(default=(), metadata=rule(
        items=rule(pattern=r"gfx[0-9a-f]{3,4}", what="a gfx target like gfx1100"), unique=True))
    note: str = ""
    unconfirmed: tuple[str, ...] = field(default=(), metadata=rule(unique=True))

    @property
    def index_url(self) -> str:
        return INDEX_BASE + self.name

    def compat_floor(self, os_name: str) -> str | None:
        return (self.windows_compat if os_name == "windows" else self.linux_compat) or None

    def toolkit_floor(self, os_name: str) -> str | None:
        return (self.windows_toolkit if os_name == "windows" else self.linux_toolkit) or None


@dataclass(frozen=True)
class Build:
    """A [[releases.builds]] entry, its names resolved: what the file holds is BuildEntry."""

    release: str
    variant: Variant
    arch: ArchSet | None
    platforms: tuple[str, ...]
    source: tuple[str, ...]
    experimental: bool = False
    confirmed: bool = True
    note: str = ""

    @property
    def arch_list(self) -> tuple[str, ...]:
        return self.arch.arch_list if self.arch else ()


@dataclass(frozen=True)
class Release:
    version: str = field(metadata=_version("2.13.0"))
    released: str = field(metadata=_date("2026-07"))
    python_min: str = field(metadata=_python("3.10"))
    python_max: str = field(metadata=_python("3.14"))
    pypi_linux_default: str
    builds: tuple[Build, ...] = field(metadata=rule(read=False))   # read as BuildEntry, then resolved
    source: tuple[str, ...] = field(metadata=_SOURCES)
    note: str = ""
    unconfirmed: tuple[str, ...] = field(default=(), metadata=rule(unique=True))
    # The oldest macOS its Mac wheels install on, and the oldest on which it uses the GPU (MPS).
    macos_min: str | None = field(default=None, metadata=rule(pattern=_MACOS, what="a macOS version like 14.0"))
    mps_macos_min: str | None = field(default=None, metadata=rule(pattern=_MACOS,
                                                                  what="a macOS version like 14.0"))
    pypi_aarch64_default: str | None = None  # what plain PyPI gives on Linux aarch64 ("cpu", "cu130")

    def pypi_default(self, platform: str) -> str | None:
        """The build a plain `pip install torch==X` (PyPI or a PyPI mirror) takes on `platform`:
        a CUDA variant on Linux (x86_64; aarch64 from 2.11), "cpu" on Windows, "mps" on a Mac;
        None where the table does not say."""
        if platform == "linux-x86_64":
            return self.pypi_linux_default
        if platform == "linux-aarch64":
            return self.pypi_aarch64_default
        if platform == "windows-x86_64":
            return "cpu"
        if platform == "macos-arm64":
            return "mps"
        return None

    @property
    def series(self) -> str:
        return ".".join(self.version.split(".")[:2])

    def supports_python(self, python: str) -> bool:
        have = version_tuple(python)[:2]
        return version_tuple(self.python_min)[:2] <= have <= version_tuple(self.python_max)[:2]


@dataclass(frozen=True)
class MacIntel:
    last_version: str = field(metadata=_version("2.2.2"))
    python_min: str = field(metadata=_python("3.8"))
    python_max: str = field(metadata=_python("3.12"))
    source: tuple[str, ...] = field(metadata=_SOURCES)
    note: str = ""
    unconfirmed: tuple[str, ...] = field(default=(), metadata=rule(unique=True))


_MEGABYTES = rule(low=0, high=999_999)


@dataclass(frozen=True)
class SizeFact:
    build: str
    torch_version: str
    platform: str
    download_mb: float = field(metadata=_MEGABYTES)
    installed_mb: float = field(metadata=_MEGABYTES)
    source: tuple[str, ...] = field(metadata=_SOURCES)
    torch_download_mb: float | None = field(default=None, metadata=_MEGABYTES)
    libraries_download_mb: float | None = field(default=None, metadata=_MEGABYTES)
    torch_installed_mb: float | None = field(default=None, metadata=_MEGABYTES)
    libraries_installed_mb: float | None = field(default=None, metadata=_MEGABYTES)
    largest_libraries: tuple[str, ...] = field(default=(), metadata=rule(unique=True))
    note: str = ""


@dataclass(frozen=True)
class LegacyCuda:
    """A CUDA version from before minor-version compatibility: its exact driver floor."""

    cuda: str = field(metadata=rule(pattern=r"\d{1,2}\.\d", what="a CUDA version like 10.1"))
    linux: str = field(metadata=_driver("418.39"))
    windows: str = field(metadata=_driver("418.96"))
    source: tuple[str, ...] = field(metadata=_SOURCES)


@dataclass(frozen=True)
class MatrixHead:
    """The file's own keys; its tables ([sources], [[releases]], …) are read entry by entry."""

    schema: str = field(metadata=rule(choices=(SCHEMA,)))
    checked: str = field(metadata=_date("2026-11-30"))
    newest: str = field(metadata=_version("2.15.0"))


@dataclass(frozen=True)
class BuildEntry:
    """A [[releases.builds]] entry as the file holds it: the variant and arch set by name."""

    variant: str
    source: tuple[str, ...] = field(metadata=_SOURCES)
    arch: str | None = None               # a CUDA build's [arch_sets] entry
    platforms: tuple[str, ...] = field(default=(), metadata=rule(
        items=rule(choices=PLATFORMS), unique=True))   # none: the variant kind's usual ones
    experimental: bool = False
    confirmed: bool = True
    note: str = ""


@dataclass(frozen=True)
class PythonLast:
    """A [[python_last]] entry: the last torch release for an old Python."""

    python: str = field(metadata=_python("3.8"))
    torch: str = field(metadata=_version("2.4.1"))
    source: tuple[str, ...] = field(metadata=_SOURCES)


@dataclass(frozen=True)
class CpuBuilds:
    """[cpu]: where the CPU-only builds exist."""

    platforms: tuple[str, ...] = field(metadata=rule(items=rule(choices=PLATFORMS), unique=True))
    source: tuple[str, ...] = field(metadata=_SOURCES)


@dataclass(frozen=True)
class TorchMatrix:
    checked: str
    newest: str
    sources: dict[str, Source]
    arch_sets: dict[str, ArchSet]
    variants: dict[str, Variant]
    releases: tuple[Release, ...]          # newest first
    cpu_platforms: tuple[str, ...]
    cpu_source: tuple[str, ...]
    macos_intel: MacIntel
    sizes: tuple[SizeFact, ...]
    legacy_cuda: tuple[LegacyCuda, ...] = ()
    python_last: dict[str, str] = field(default_factory=dict)   # Python "3.8" → last torch "2.4.1"

    def release(self, version: str) -> Release | None:
        wanted = version_tuple(version)[:2]
        return next((r for r in self.releases if version_tuple(r.version)[:2] == wanted), None)

    @property
    def choosable(self) -> tuple[Release, ...]:
        newest = version_tuple(self.newest)
        return tuple(r for r in self.releases if version_tuple(r.version) <= newest)

    def size(self, build: str) -> SizeFact | None:
        return next((s for s in self.sizes if s.build == build), None)

    def driver_floor(self, cuda_version: str | None, os_name: str) -> str | None:
        """The oldest NVIDIA driver that runs a torch built with `cuda_version` ("12.8").

        A variant in the matrix knows its own floor; CUDA 11.1 and newer otherwise share their
        major's minor-version-compatibility floor; older CUDA needs its exact version's driver.
        """
        if not cuda_version:
            return None
        variant = self.variants.get("cu" + cuda_version.replace(".", ""))
        if variant is not None and variant.kind == "cuda":
            return variant.compat_floor(os_name)
        legacy = next((c for c in self.legacy_cuda if c.cuda == cuda_version), None)
        if legacy is not None:
            return legacy.windows if os_name == "windows" else legacy.linux
        major = version_tuple(cuda_version)[0]
        same_major = [v for v in self.variants.values()
                      if v.kind == "cuda" and v.cuda and version_tuple(v.cuda)[0] == major]
        floors = [floor for v in same_major if (floor := v.compat_floor(os_name))]
        # The matrix's floors are checked driver versions at load: each parses.
        return min(floors, key=lambda floor: driver_tuple(floor) or ()) if floors else None

    @property
    def python_range(self) -> tuple[str, str]:
        lows = [r.python_min for r in self.choosable]
        highs = [r.python_max for r in self.choosable]
        return min(lows, key=version_tuple), max(highs, key=version_tuple)
