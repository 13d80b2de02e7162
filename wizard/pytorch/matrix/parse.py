"""Reading content/torch_matrix.toml, strictly.

Every entry is read against its record's declaration (wizard.pytorch.matrix.model, by
wizard.knowledge.entries, as the catalog's entries are): types, forms, ranges, unknown and
missing fields. What one field cannot say alone is checked here: ids that must be defined
elsewhere in the file (sources, variants, arch sets), releases newest first, what each kind of
variant needs, defaults that must be real builds, sizes that must add up. Every problem raises
`KnowledgeError` naming the file, the entry and the field.
"""

from __future__ import annotations

import dataclasses
import re
from functools import cache
from pathlib import Path
from typing import Any

from wizard.knowledge.content import content_dir
from wizard.knowledge.damaged import KnowledgeError
from wizard.knowledge.entries import entry_label, read_entry, read_file, records_of
from wizard.pytorch.matrix.model import (
    ArchSet,
    Build,
    BuildEntry,
    CpuBuilds,
    LegacyCuda,
    MacIntel,
    MatrixHead,
    PythonLast,
    Release,
    SizeFact,
    Source,
    TorchMatrix,
    Variant,
)
from wizard.pytorch.matrix.rules import arch_cc, driver_at_least, version_tuple

FILE = "torch_matrix.toml"
DEFAULT_PLATFORMS = {"cuda": ("linux-x86_64", "windows-x86_64"), "xpu": ("linux-x86_64", "windows-x86_64"),
                     "rocm": ("linux-x86_64",), "cpu": ()}

_TABLES = ("sources", "arch_sets", "variants", "releases", "cpu", "macos_intel", "sizes")
_OPTIONAL_TABLES = ("legacy_cuda", "python_last")
_CUDA_FIELDS = ("cuda", "toolkit", "linux_compat", "windows_compat", "linux_toolkit", "windows_toolkit")


@cache
def _default_matrix() -> TorchMatrix:
    return _load(content_dir() / FILE)


def load_matrix(path: Path | None = None) -> TorchMatrix:
    """The matrix; the default file is read once per process."""
    return _default_matrix() if path is None else _load(Path(path))


def _load(path: Path) -> TorchMatrix:
    return _Reader(path.name).matrix(read_file(path.parent, path.name))


def _sm_order(arch: str) -> tuple[int, ...]:
    """(major, minor) of an sm_XY: every one has matched the arch sets' pattern, so parses."""
    parsed = arch_cc(arch)
    return parsed[1:3] if parsed else ()


class _Reader:
    def __init__(self, file: str):
        self.file = file
        self.source_ids: set[str] = set()

    def fail(self, entry: str, field_name: str, reason: str) -> KnowledgeError:
        return KnowledgeError(self.file, entry, field_name, reason)

    def entry(self, cls: type, label: str, raw: Any, **given: Any) -> Any:
        """`raw` read as `cls` (its declaration's rules), its sources checked as defined."""
        record = read_entry(cls, self.file, label, raw, **given)
        for item in getattr(record, "source", ()):
            if item not in self.source_ids:
                raise self.fail(label, "source", f"{item!r} is not defined in [sources]")
        return record

    def table(self, raw: Any, name: str, what: str) -> dict[str, Any]:
        if not isinstance(raw, dict) or not raw:
            raise self.fail(f"[{name}]", "", f"must be a table of {what}")
        return raw

    def unconfirmed(self, label: str, record: Any, allowed: set[str]) -> None:
        for name in record.unconfirmed:
            if name not in allowed:
                raise self.fail(label, "unconfirmed", f"{name!r} is not a field of this entry")

    # -- the file ----------------------------------------------------------------------------
    def matrix(self, data: dict[str, Any]) -> TorchMatrix:
        # The file's own keys as declared; any other key that is not one of its tables is a typo.
        head = read_entry(MatrixHead, self.file, "",
                          {k: v for k, v in data.items() if k not in _TABLES + _OPTIONAL_TABLES})
        for key in _TABLES:
            if key not in data:
                raise self.fail("", key, "is missing")
        checked, newest = head.checked, head.newest
        sources = {sid: read_entry(Source, self.file, f"sources.{sid}", entry, id=sid)
                   for sid, entry in self.table(data["sources"], "sources", "sources").items()}
        self.source_ids = set(sources)
        arch_sets = self.read_arch_sets(data["arch_sets"])
        variants = self.read_variants(data["variants"])
        releases = self.read_releases(records_of(self.file, data, "releases"), variants, arch_sets)
        if not any(r.version == newest for r in releases):
            raise self.fail("", "newest", f"{newest!r} is not one of the [[releases]]")
        cpu = self.entry(CpuBuilds, "[cpu]", data["cpu"])
        mac = self.entry(MacIntel, "[macos_intel]", data["macos_intel"])
        self.unconfirmed("[macos_intel]", mac, {"python_min", "python_max", "last_version"})
        return TorchMatrix(
            checked=checked, newest=newest, sources=sources, arch_sets=arch_sets, variants=variants,
            releases=releases, cpu_platforms=cpu.platforms, cpu_source=cpu.source, macos_intel=mac,
            sizes=self.read_sizes(records_of(self.file, data, "sizes")),
            legacy_cuda=tuple(self.entry(LegacyCuda, f"legacy_cuda[{i}]", entry)
                              for i, entry in enumerate(self.listed(data, "legacy_cuda"))),
            python_last=self.read_python_last(self.listed(data, "python_last")),
        )

    def listed(self, data: dict[str, Any], name: str) -> list[Any]:
        raw = data.get(name, [])
        if not isinstance(raw, list):
            raise self.fail("", name, f"must be a list of [[{name}]] tables")
        return raw

    def read_python_last(self, raw: list[Any]) -> dict[str, str]:
        entries = [self.entry(PythonLast, f"python_last[{i}]", entry) for i, entry in enumerate(raw)]
        return {entry.python: entry.torch for entry in entries}

    def read_arch_sets(self, raw: Any) -> dict[str, ArchSet]:
        out = {}
        for name, entry in self.table(raw, "arch_sets", "arch sets").items():
            label = f"arch_sets.{name}"
            arch_set = self.entry(ArchSet, label, entry, name=name)
            if list(arch_set.sm) != sorted(arch_set.sm, key=_sm_order):
                raise self.fail(label, "sm", "must be in ascending order")
            out[name] = arch_set
        return out

    def read_variants(self, raw: Any) -> dict[str, Variant]:
        out = {}
        for name, entry in self.table(raw, "variants", "variants").items():
            label = f'variants."{name}"'
            variant = self.entry(Variant, label, entry, name=name)
            self.check_variant(label, variant, entry)
            allowed = {key for key in (*_CUDA_FIELDS, "rocm", "gfx") if key in entry} | {"note"}
            self.unconfirmed(label, variant, allowed)
            out[name] = variant
        return out

    def check_variant(self, label: str, variant: Variant, entry: dict[str, Any]) -> None:
        """What a variant of its kind needs: its name says its version, its fields its kind's."""
        name, kind = variant.name, variant.kind
        if kind == "cuda":
            if not re.fullmatch(r"cu\d{3}", name):
                raise self.fail(label, "", "a CUDA variant is named like cu126")
            for key in _CUDA_FIELDS:
                if key not in entry:
                    raise self.fail(label, key, "is missing (needed for a CUDA variant)")
            assert variant.cuda is not None  # present, as just checked
            if name != "cu" + variant.cuda.replace(".", ""):
                raise self.fail(label, "cuda", f"{variant.cuda!r} does not match the name {name!r}")
            for os_name in ("linux", "windows"):
                compat, toolkit = variant.compat_floor(os_name), variant.toolkit_floor(os_name)
                if toolkit and compat and not driver_at_least(toolkit, compat):
                    raise self.fail(label, f"{os_name}_toolkit", f"{toolkit} is below {os_name}_compat {compat}")
            extra = sorted(set(entry) & {"rocm", "gfx"})
        elif kind == "rocm":
            if not re.fullmatch(r"rocm\d+\.\d+(\.\d+)?", name):
                raise self.fail(label, "", "a ROCm variant is named like rocm7.2")
            for key in ("rocm", "gfx"):
                if key not in entry:
                    raise self.fail(label, key, "is missing (needed for a ROCm variant)")
            if name != f"rocm{variant.rocm}":
                raise self.fail(label, "rocm", f"{variant.rocm!r} does not match the name {name!r}")
            extra = sorted(set(entry) & set(_CUDA_FIELDS))
        else:
            if name != kind:
                raise self.fail(label, "kind", f"a {kind} variant must be named {kind!r}")
            extra = sorted(set(entry) & {*_CUDA_FIELDS, "rocm", "gfx"})
        if extra:
            raise self.fail(label, extra[0], f"does not apply to a {kind} variant")

    def read_releases(self, raw: list[Any], variants: dict[str, Variant],
                      arch_sets: dict[str, ArchSet]) -> tuple[Release, ...]:
        out: list[Release] = []
        for position, entry in enumerate(raw):
            label = entry_label("releases", position, entry, "version")
            # Its builds are read on their own (they name variants and arch sets), once the
            # release itself has been read as declared.
            fields = dict(entry) if isinstance(entry, dict) else entry
            builds_raw = fields.pop("builds", None) if isinstance(fields, dict) else None
            release = self.entry(Release, label, fields, builds=())
            if builds_raw is None:
                raise self.fail(label, "builds", "is missing")
            if version_tuple(release.python_min) > version_tuple(release.python_max):
                raise self.fail(label, "python_max", "is below python_min")
            if out and version_tuple(release.version) >= version_tuple(out[-1].version):
                raise self.fail(label, "version", "releases must be listed newest first, each once")
            builds = self.read_builds(label, release.version, builds_raw, variants, arch_sets)
            default = release.pypi_linux_default
            if not any(b.variant.name == default and "linux-x86_64" in b.platforms for b in builds):
                raise self.fail(label, "pypi_linux_default", f"{default!r} is not one of this release's Linux builds")
            arm_default = release.pypi_aarch64_default
            if arm_default is not None and arm_default != "cpu" and not any(
                    b.variant.name == arm_default and "linux-aarch64" in b.platforms for b in builds):
                raise self.fail(label, "pypi_aarch64_default",
                                f"{arm_default!r} is neither cpu nor one of this release's Linux aarch64 builds")
            self.unconfirmed(label, release, {"released", "python_min", "python_max", "pypi_linux_default",
                                              "macos_min", "mps_macos_min", "pypi_aarch64_default"})
            out.append(dataclasses.replace(release, builds=builds))
        return tuple(out)

    def read_builds(self, release_label: str, version: str, raw: Any, variants: dict[str, Variant],
                    arch_sets: dict[str, ArchSet]) -> tuple[Build, ...]:
        if not isinstance(raw, list) or not raw:
            raise self.fail(release_label, "builds", "needs at least one [[releases.builds]] entry")
        out = []
        seen: set[tuple[str, str]] = set()
        for position, entry in enumerate(raw):
            label = f"{release_label} {entry_label('builds', position, entry, 'variant')}"
            build = self.entry(BuildEntry, label, entry)
            variant = variants.get(build.variant)
            if variant is None:
                raise self.fail(label, "variant", f"{build.variant!r} is not defined in [variants]")
            arch = None
            if variant.kind == "cuda":
                if build.arch is None:
                    raise self.fail(label, "arch", "is missing (needed for a CUDA build)")
                arch = arch_sets.get(build.arch)
                if arch is None:
                    raise self.fail(label, "arch", f"{build.arch!r} is not defined in [arch_sets]")
            elif build.arch is not None:
                raise self.fail(label, "arch", f"does not apply to a {variant.kind} build")
            platforms = build.platforms or DEFAULT_PLATFORMS[variant.kind]
            for platform in platforms:
                if (variant.name, platform) in seen:
                    raise self.fail(label, "platforms", f"{variant.name} on {platform} is listed twice")
                seen.add((variant.name, platform))
            out.append(Build(release=version, variant=variant, arch=arch, platforms=platforms,
                             source=build.source, experimental=build.experimental,
                             confirmed=build.confirmed, note=build.note))
        return tuple(out)

    def read_sizes(self, raw: list[Any]) -> tuple[SizeFact, ...]:
        out = []
        for position, entry in enumerate(raw):
            label = f"sizes[{position}]"
            fact = self.entry(SizeFact, label, entry)
            for total, parts in (("download_mb", ("torch_download_mb", "libraries_download_mb")),
                                 ("installed_mb", ("torch_installed_mb", "libraries_installed_mb"))):
                values = [getattr(fact, p) for p in parts]
                if all(v is not None for v in values) and abs(sum(values) - getattr(fact, total)) > 1.0:
                    raise self.fail(label, total, f"is not the sum of {parts[0]} and {parts[1]}")
            out.append(fact)
        return tuple(out)
