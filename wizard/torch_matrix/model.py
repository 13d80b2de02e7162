"""The matrix's records as read from content/torch_matrix.toml (wizard.torch_matrix.load checks
them): sources, GPU arch sets, variants (cu128, rocm7.2, xpu, cpu), releases and their builds,
install sizes, and the old CUDA versions with exact driver floors."""

from __future__ import annotations

from dataclasses import dataclass, field

from wizard.torch_matrix.rules import driver_tuple, version_tuple

INDEX_BASE = "https://download.pytorch.org/whl/"


@dataclass(frozen=True)
class Source:
    id: str
    title: str
    url: str
    checked: str


@dataclass(frozen=True)
class ArchSet:
    name: str
    sm: tuple[str, ...]
    ptx: tuple[str, ...]
    source: tuple[str, ...]
    note: str = ""

    @property
    def arch_list(self) -> tuple[str, ...]:
        return self.sm + self.ptx


@dataclass(frozen=True)
class Variant:
    name: str
    kind: str
    source: tuple[str, ...]
    cuda: str | None = None
    toolkit: str | None = None
    linux_compat: str | None = None
    windows_compat: str | None = None
    linux_toolkit: str | None = None
    windows_toolkit: str | None = None
    rocm: str | None = None
    gfx: tuple[str, ...] = ()
    note: str = ""
    unconfirmed: tuple[str, ...] = ()

    @property
    def index_url(self) -> str:
        return INDEX_BASE + self.name

    def compat_floor(self, os_name: str) -> str | None:
        return (self.windows_compat if os_name == "windows" else self.linux_compat) or None

    def toolkit_floor(self, os_name: str) -> str | None:
        return (self.windows_toolkit if os_name == "windows" else self.linux_toolkit) or None


@dataclass(frozen=True)
class Build:
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
    version: str
    released: str
    python_min: str
    python_max: str
    pypi_linux_default: str
    builds: tuple[Build, ...]
    source: tuple[str, ...]
    note: str = ""
    unconfirmed: tuple[str, ...] = ()
    macos_min: str | None = None        # the oldest macOS its Mac wheels install on
    mps_macos_min: str | None = None    # the oldest macOS on which it uses the Apple GPU (MPS)
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
    last_version: str
    python_min: str
    python_max: str
    source: tuple[str, ...]
    note: str = ""
    unconfirmed: tuple[str, ...] = ()


@dataclass(frozen=True)
class SizeFact:
    build: str
    torch_version: str
    platform: str
    download_mb: float
    installed_mb: float
    source: tuple[str, ...]
    torch_download_mb: float | None = None
    libraries_download_mb: float | None = None
    torch_installed_mb: float | None = None
    libraries_installed_mb: float | None = None
    largest_libraries: tuple[str, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class LegacyCuda:
    """A CUDA version from before minor-version compatibility: its exact driver floor."""

    cuda: str
    linux: str
    windows: str
    source: tuple[str, ...]


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
