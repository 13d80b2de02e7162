"""Reading content/torch_matrix.toml, strictly: every entry is checked for type, range and
cross-references (a build naming an unknown variant, a source id nobody defined, a release list
out of order); every problem raises `KnowledgeError` naming the file, the entry and the field.
Unknown fields are errors too."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

from wizard.content import ContentError, content_dir, read_toml
from wizard.knowledge import KnowledgeError
from wizard.torch_matrix.model import (
    ArchSet,
    Build,
    LegacyCuda,
    MacIntel,
    Release,
    SizeFact,
    Source,
    TorchMatrix,
    Variant,
)
from wizard.torch_matrix.rules import arch_cc, driver_at_least, version_tuple

FILE = "torch_matrix.toml"
SCHEMA = "gpu-wizard/torch-matrix/1"
PLATFORMS = ("linux-x86_64", "linux-aarch64", "windows-x86_64", "macos-arm64")
VARIANT_KINDS = ("cuda", "rocm", "xpu", "cpu")
DEFAULT_PLATFORMS = {"cuda": ("linux-x86_64", "windows-x86_64"), "xpu": ("linux-x86_64", "windows-x86_64"),
                     "rocm": ("linux-x86_64",), "cpu": ()}

_VERSION = re.compile(r"^\d+\.\d+\.\d+$")
_PY = re.compile(r"^3\.\d{1,2}$")
_DATE = re.compile(r"^\d{4}-\d{2}(-\d{2})?$")
_DRIVER = re.compile(r"^\d{3}(\.\d{1,3}){0,2}$")
_ARCH = re.compile(r"^(sm|compute)_\d{2,3}[af]?$")
_GFX = re.compile(r"^gfx[0-9a-f]{3,4}$")
_CUDA = re.compile(r"^\d{2}\.\d$")
_MACOS = re.compile(r"^\d{2}\.\d$")


@cache
def _default_matrix() -> TorchMatrix:
    return _load(content_dir() / FILE)


def load_matrix(path: Path | None = None) -> TorchMatrix:
    """The matrix; the default file is read once per process."""
    return _default_matrix() if path is None else _load(Path(path))


def _load(path: Path) -> TorchMatrix:
    file = path.name
    try:
        data = read_toml(path, file)
    except ContentError as exc:
        raise KnowledgeError(file, "", "", exc.reason) from None
    return _Reader(file).matrix(data)


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

    # -- field checks ------------------------------------------------------------------------
    def fields(self, entry: str, raw: Any, required: set[str], optional: set[str]) -> dict[str, Any]:
        if not isinstance(raw, dict):
            raise self.fail(entry, "", f"must be a table, not {type(raw).__name__}")
        for key in raw:
            if key not in required | optional:
                raise self.fail(entry, key, "unknown field (a typo?)")
        for key in sorted(required):
            if key not in raw:
                raise self.fail(entry, key, "is missing")
        return raw

    def text(self, entry: str, raw: dict, key: str, pattern: re.Pattern | None = None,
             what: str = "", default: str | None = None, empty_ok: bool = False) -> str | None:
        if key not in raw:
            return default
        value = raw[key]
        if not isinstance(value, str) or (not value.strip() and not empty_ok):
            raise self.fail(entry, key, "must be non-empty text")
        if pattern is not None and value and not pattern.match(value):
            raise self.fail(entry, key, f"{value!r} is not {what}")
        return value

    def required_text(self, entry: str, raw: dict, key: str, pattern: re.Pattern | None = None,
                      what: str = "") -> str:
        """text() of a field that fields() has already found present."""
        value = self.text(entry, raw, key, pattern, what)
        if value is None:
            raise self.fail(entry, key, "is missing")
        return value

    def texts(self, entry: str, raw: dict, key: str, pattern: re.Pattern | None = None,
              what: str = "", non_empty: bool = False) -> tuple[str, ...]:
        value = raw.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise self.fail(entry, key, "must be a list of non-empty texts")
        if non_empty and not value:
            raise self.fail(entry, key, "must not be empty")
        if len(set(value)) != len(value):
            raise self.fail(entry, key, "lists an item twice")
        for item in value:
            if pattern is not None and not pattern.match(item):
                raise self.fail(entry, key, f"{item!r} is not {what}")
        return tuple(value)

    def sources(self, entry: str, raw: dict) -> tuple[str, ...]:
        ids = self.texts(entry, raw, "source", non_empty=True)
        for item in ids:
            if item not in self.source_ids:
                raise self.fail(entry, "source", f"{item!r} is not defined in [sources]")
        return ids

    def flag(self, entry: str, raw: dict, key: str, default: bool) -> bool:
        value = raw.get(key, default)
        if not isinstance(value, bool):
            raise self.fail(entry, key, "must be true or false")
        return value

    def number(self, entry: str, raw: dict, key: str) -> float:
        value = raw.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1e6:
            raise self.fail(entry, key, "must be a number between 0 and 1,000,000")
        return float(value)

    def optional_number(self, entry: str, raw: dict, key: str) -> float | None:
        return self.number(entry, raw, key) if key in raw else None

    def unconfirmed(self, entry: str, raw: dict, allowed: set[str]) -> tuple[str, ...]:
        names = self.texts(entry, raw, "unconfirmed")
        for name in names:
            if name not in allowed:
                raise self.fail(entry, "unconfirmed", f"{name!r} is not a field of this entry")
        return names

    # -- tables ------------------------------------------------------------------------------
    def matrix(self, data: dict) -> TorchMatrix:
        top = self.fields("", data, {"schema", "checked", "newest", "sources", "arch_sets", "variants",
                                     "releases", "cpu", "macos_intel", "sizes"}, {"legacy_cuda", "python_last"})
        if top["schema"] != SCHEMA:
            raise self.fail("", "schema", f"must be {SCHEMA!r}")
        checked = self.required_text("", top, "checked", _DATE, "a date like 2026-11-30")
        newest = self.required_text("", top, "newest", _VERSION, "a version like 2.15.0")
        sources = self.read_sources(top["sources"])
        arch_sets = self.read_arch_sets(top["arch_sets"])
        variants = self.read_variants(top["variants"])
        releases = self.read_releases(top["releases"], variants, arch_sets)
        if not any(r.version == newest for r in releases):
            raise self.fail("", "newest", f"{newest!r} is not one of the [[releases]]")
        cpu = self.fields("[cpu]", top["cpu"], {"platforms", "source"}, set())
        cpu_platforms = self.texts("[cpu]", cpu, "platforms", re.compile("|".join(PLATFORMS)),
                                   "a known platform", non_empty=True)
        return TorchMatrix(
            checked=checked, newest=newest, sources=sources, arch_sets=arch_sets, variants=variants,
            releases=releases, cpu_platforms=cpu_platforms, cpu_source=self.sources("[cpu]", cpu),
            macos_intel=self.read_mac(top["macos_intel"]), sizes=self.read_sizes(top["sizes"]),
            legacy_cuda=self.read_legacy_cuda(top.get("legacy_cuda", [])),
            python_last=self.read_python_last(top.get("python_last", [])),
        )

    def read_python_last(self, raw: Any) -> dict[str, str]:
        if not isinstance(raw, list):
            raise self.fail("", "python_last", "must be a list of [[python_last]] tables")
        out = {}
        for position, entry in enumerate(raw):
            label = f"python_last[{position}]"
            self.fields(label, entry, {"python", "torch", "source"}, set())
            self.sources(label, entry)
            out[self.required_text(label, entry, "python", _PY, "a Python version like 3.8")] = \
                self.required_text(label, entry, "torch", _VERSION, "a version like 2.4.1")
        return out

    def read_legacy_cuda(self, raw: Any) -> tuple[LegacyCuda, ...]:
        if not isinstance(raw, list):
            raise self.fail("", "legacy_cuda", "must be a list of [[legacy_cuda]] tables")
        out = []
        for position, entry in enumerate(raw):
            label = f"legacy_cuda[{position}]"
            self.fields(label, entry, {"cuda", "linux", "windows", "source"}, set())
            out.append(LegacyCuda(
                cuda=self.required_text(label, entry, "cuda", re.compile(r"^\d{1,2}\.\d$"), "a CUDA version like 10.1"),
                linux=self.required_text(label, entry, "linux", _DRIVER, "a driver version like 418.39"),
                windows=self.required_text(label, entry, "windows", _DRIVER, "a driver version like 418.96"),
                source=self.sources(label, entry),
            ))
        return tuple(out)

    def read_sources(self, raw: Any) -> dict[str, Source]:
        if not isinstance(raw, dict) or not raw:
            raise self.fail("[sources]", "", "must be a table of sources")
        out = {}
        for sid, entry in raw.items():
            label = f"sources.{sid}"
            self.fields(label, entry, {"title", "url", "checked"}, set())
            url = self.required_text(label, entry, "url", re.compile(r"^https://\S+$"), "an https:// address")
            out[sid] = Source(sid, self.required_text(label, entry, "title"), url,
                              self.required_text(label, entry, "checked", _DATE, "a date like 2026-11-30"))
        self.source_ids = set(out)
        return out

    def read_arch_sets(self, raw: Any) -> dict[str, ArchSet]:
        if not isinstance(raw, dict) or not raw:
            raise self.fail("[arch_sets]", "", "must be a table of arch sets")
        out = {}
        for name, entry in raw.items():
            label = f"arch_sets.{name}"
            self.fields(label, entry, {"sm", "source"}, {"ptx", "note"})
            sm = self.texts(label, entry, "sm", re.compile(r"^sm_\d{2,3}[af]?$"), "like sm_86", True)
            ptx = self.texts(label, entry, "ptx", re.compile(r"^compute_\d{2,3}$"), "like compute_120")
            ordered = sorted(sm, key=_sm_order)
            if list(sm) != ordered:
                raise self.fail(label, "sm", "must be in ascending order")
            out[name] = ArchSet(name, sm, ptx, self.sources(label, entry), entry.get("note", ""))
        return out

    def read_variants(self, raw: Any) -> dict[str, Variant]:
        if not isinstance(raw, dict) or not raw:
            raise self.fail("[variants]", "", "must be a table of variants")
        out = {}
        cuda_fields = {"cuda", "toolkit", "linux_compat", "windows_compat", "linux_toolkit", "windows_toolkit"}
        for name, entry in raw.items():
            label = f'variants."{name}"'
            self.fields(label, entry, {"kind", "source"}, cuda_fields | {"rocm", "gfx", "note", "unconfirmed"})
            kind = self.text(label, entry, "kind")
            if kind not in VARIANT_KINDS:
                raise self.fail(label, "kind", f"{kind!r} is not one of {', '.join(VARIANT_KINDS)}")
            values: dict[str, Any] = {}
            if kind == "cuda":
                if not re.fullmatch(r"cu\d{3}", name):
                    raise self.fail(label, "", "a CUDA variant is named like cu126")
                for key in sorted(cuda_fields):
                    if key not in entry:
                        raise self.fail(label, key, "is missing (needed for a CUDA variant)")
                values["cuda"] = self.text(label, entry, "cuda", _CUDA, "a CUDA version like 12.6")
                if name != "cu" + values["cuda"].replace(".", ""):
                    raise self.fail(label, "cuda", f"{values['cuda']!r} does not match the name {name!r}")
                values["toolkit"] = self.text(label, entry, "toolkit", _VERSION, "a version like 12.6.3")
                for key in ("linux_compat", "windows_compat", "linux_toolkit", "windows_toolkit"):
                    values[key] = self.text(label, entry, key, _DRIVER, "a driver version like 560.35.05",
                                            empty_ok=key.endswith("toolkit"))
                for os_name in ("linux", "windows"):
                    compat, toolkit = values[f"{os_name}_compat"], values[f"{os_name}_toolkit"]
                    if toolkit and not driver_at_least(toolkit, compat):
                        raise self.fail(label, f"{os_name}_toolkit", f"{toolkit} is below {os_name}_compat {compat}")
            elif kind == "rocm":
                if not re.fullmatch(r"rocm\d+\.\d+(\.\d+)?", name):
                    raise self.fail(label, "", "a ROCm variant is named like rocm7.2")
                values["rocm"] = self.text(label, entry, "rocm")
                if name != "rocm" + values["rocm"]:
                    raise self.fail(label, "rocm", f"{values['rocm']!r} does not match the name {name!r}")
                values["gfx"] = self.texts(label, entry, "gfx", _GFX, "a gfx target like gfx1100", True)
            else:
                extra = (set(entry) & (cuda_fields | {"rocm", "gfx"}))
                if extra:
                    raise self.fail(label, sorted(extra)[0], f"does not apply to a {kind} variant")
                if name != kind:
                    raise self.fail(label, "kind", f"a {kind} variant must be named {kind!r}")
            allowed = set(values) | {"note"}
            out[name] = Variant(name=name, kind=kind, source=self.sources(label, entry),
                                note=entry.get("note", ""),
                                unconfirmed=self.unconfirmed(label, entry, allowed), **values)
        return out

    def read_releases(self, raw: Any, variants: dict[str, Variant],
                      arch_sets: dict[str, ArchSet]) -> tuple[Release, ...]:
        if not isinstance(raw, list) or not raw:
            raise self.fail("", "releases", "needs at least one [[releases]] entry")
        out: list[Release] = []
        for position, entry in enumerate(raw):
            version = entry.get("version") if isinstance(entry, dict) else None
            label = f'releases[{position}] "{version}"'
            self.fields(label, entry, {"version", "released", "python_min", "python_max",
                                       "pypi_linux_default", "source", "builds"},
                        {"note", "unconfirmed", "macos_min", "mps_macos_min", "pypi_aarch64_default"})
            version = self.required_text(label, entry, "version", _VERSION, "a version like 2.13.0")
            python_min = self.required_text(label, entry, "python_min", _PY, "a Python version like 3.10")
            python_max = self.required_text(label, entry, "python_max", _PY, "a Python version like 3.14")
            if version_tuple(python_min) > version_tuple(python_max):
                raise self.fail(label, "python_max", "is below python_min")
            if out and version_tuple(version) >= version_tuple(out[-1].version):
                raise self.fail(label, "version", "releases must be listed newest first, each once")
            builds = self.read_builds(label, version, entry["builds"], variants, arch_sets)
            default = self.required_text(label, entry, "pypi_linux_default")
            if not any(b.variant.name == default and "linux-x86_64" in b.platforms for b in builds):
                raise self.fail(label, "pypi_linux_default", f"{default!r} is not one of this release's Linux builds")
            arm_default = self.text(label, entry, "pypi_aarch64_default")
            if arm_default is not None and arm_default != "cpu" and not any(
                    b.variant.name == arm_default and "linux-aarch64" in b.platforms for b in builds):
                raise self.fail(label, "pypi_aarch64_default",
                                f"{arm_default!r} is neither cpu nor one of this release's Linux aarch64 builds")
            out.append(Release(
                version=version,
                released=self.required_text(label, entry, "released", _DATE, "a date like 2026-07"),
                python_min=python_min, python_max=python_max, pypi_linux_default=default,
                builds=builds, source=self.sources(label, entry), note=entry.get("note", ""),
                unconfirmed=self.unconfirmed(label, entry, {"released", "python_min", "python_max",
                                                            "pypi_linux_default", "macos_min", "mps_macos_min",
                                                            "pypi_aarch64_default"}),
                macos_min=self.text(label, entry, "macos_min", _MACOS, "a macOS version like 14.0"),
                mps_macos_min=self.text(label, entry, "mps_macos_min", _MACOS, "a macOS version like 14.0"),
                pypi_aarch64_default=arm_default,
            ))
        return tuple(out)

    def read_builds(self, release_label: str, version: str, raw: Any, variants: dict[str, Variant],
                    arch_sets: dict[str, ArchSet]) -> tuple[Build, ...]:
        if not isinstance(raw, list) or not raw:
            raise self.fail(release_label, "builds", "needs at least one [[releases.builds]] entry")
        out = []
        seen: set[tuple[str, str]] = set()
        for position, entry in enumerate(raw):
            name = entry.get("variant") if isinstance(entry, dict) else None
            label = f"{release_label} builds[{position}] \"{name}\""
            self.fields(label, entry, {"variant", "source"},
                        {"arch", "platforms", "experimental", "confirmed", "note"})
            variant = variants.get(self.required_text(label, entry, "variant"))
            if variant is None:
                raise self.fail(label, "variant", f"{name!r} is not defined in [variants]")
            arch = None
            if variant.kind == "cuda":
                arch_name = self.text(label, entry, "arch")
                if arch_name is None:
                    raise self.fail(label, "arch", "is missing (needed for a CUDA build)")
                arch = arch_sets.get(arch_name)
                if arch is None:
                    raise self.fail(label, "arch", f"{arch_name!r} is not defined in [arch_sets]")
            elif "arch" in entry:
                raise self.fail(label, "arch", f"does not apply to a {variant.kind} build")
            platforms = self.texts(label, entry, "platforms", re.compile("^(" + "|".join(PLATFORMS) + ")$"),
                                   "one of " + ", ".join(PLATFORMS)) or DEFAULT_PLATFORMS[variant.kind]
            for platform in platforms:
                if (variant.name, platform) in seen:
                    raise self.fail(label, "platforms", f"{variant.name} on {platform} is listed twice")
                seen.add((variant.name, platform))
            out.append(Build(
                release=version, variant=variant, arch=arch, platforms=platforms,
                source=self.sources(label, entry),
                experimental=self.flag(label, entry, "experimental", False),
                confirmed=self.flag(label, entry, "confirmed", True),
                note=entry.get("note", ""),
            ))
        return tuple(out)

    def read_mac(self, raw: Any) -> MacIntel:
        label = "[macos_intel]"
        self.fields(label, raw, {"last_version", "python_min", "python_max", "source"}, {"note", "unconfirmed"})
        return MacIntel(
            last_version=self.required_text(label, raw, "last_version", _VERSION, "a version like 2.2.2"),
            python_min=self.required_text(label, raw, "python_min", _PY, "a Python version like 3.8"),
            python_max=self.required_text(label, raw, "python_max", _PY, "a Python version like 3.12"),
            source=self.sources(label, raw), note=raw.get("note", ""),
            unconfirmed=self.unconfirmed(label, raw, {"python_min", "python_max", "last_version"}),
        )

    def read_sizes(self, raw: Any) -> tuple[SizeFact, ...]:
        if not isinstance(raw, list) or not raw:
            raise self.fail("", "sizes", "needs at least one [[sizes]] entry")
        out = []
        for position, entry in enumerate(raw):
            label = f"sizes[{position}]"
            self.fields(label, entry, {"build", "torch_version", "platform", "download_mb", "installed_mb", "source"},
                        {"torch_download_mb", "libraries_download_mb", "torch_installed_mb",
                         "libraries_installed_mb", "largest_libraries", "note"})
            fact = SizeFact(
                build=self.required_text(label, entry, "build"),
                torch_version=self.required_text(label, entry, "torch_version"),
                platform=self.required_text(label, entry, "platform"),
                download_mb=self.number(label, entry, "download_mb"),
                installed_mb=self.number(label, entry, "installed_mb"),
                source=self.sources(label, entry),
                torch_download_mb=self.optional_number(label, entry, "torch_download_mb"),
                libraries_download_mb=self.optional_number(label, entry, "libraries_download_mb"),
                torch_installed_mb=self.optional_number(label, entry, "torch_installed_mb"),
                libraries_installed_mb=self.optional_number(label, entry, "libraries_installed_mb"),
                largest_libraries=self.texts(label, entry, "largest_libraries"),
                note=entry.get("note", ""),
            )
            for total, parts in (("download_mb", ("torch_download_mb", "libraries_download_mb")),
                                 ("installed_mb", ("torch_installed_mb", "libraries_installed_mb"))):
                values = [getattr(fact, p) for p in parts]
                if all(v is not None for v in values) and abs(sum(values) - getattr(fact, total)) > 1.0:
                    raise self.fail(label, total, f"is not the sum of {parts[0]} and {parts[1]}")
            out.append(fact)
        return tuple(out)
