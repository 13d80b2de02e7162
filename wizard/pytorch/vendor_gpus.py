"""AMD and Intel GPUs as PyTorch sees them: which ROCm target an AMD card is, which Intel GPUs the
XPU builds use. Facts from content/amd_gpus.toml and content/intel_gpus.toml, looked up by PCI id.

NVIDIA needs no such table (NVML and torch report the compute capability). An AMD card's ISA
("gfx1031") decides whether a ROCm build has kernels for it, and the driver reports it only where
ROCm's kernel side is loaded; the PCI id is always there. Intel's discrete Arc cards and the Arc
graphics of Core Ultra chips run the XPU builds; older integrated graphics do not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from wizard.knowledge.content import ContentError, content_dir, read_toml
from wizard.knowledge.damaged import KnowledgeError
from wizard.probe.facts import Gpu, Machine

AMD_FILE = "amd_gpus.toml"
INTEL_FILE = "intel_gpus.toml"
_GFX = re.compile(r"^gfx[0-9a-f]{3,4}$")
_PCI_DEVICE = re.compile(r"^0x[0-9a-f]{4}$")
_OVERRIDE = re.compile(r"^\d{1,2}\.\d\.\d$")
AMD_KINDS = ("discrete", "apu", "datacenter")
INTEL_KINDS = ("discrete", "integrated", "datacenter")


@dataclass(frozen=True)
class AmdTarget:
    gfx: str
    family: str
    chip: str
    kind: str
    examples: tuple[str, ...]
    pci_device_ids: tuple[str, ...]


@dataclass(frozen=True)
class IntelFamily:
    name: str
    kind: str
    xpu: bool
    since_torch: str | None
    examples: tuple[str, ...]
    pci_device_ids: tuple[str, ...]


@dataclass(frozen=True)
class VendorTables:
    amd_by_pci: dict[str, AmdTarget]
    amd_by_gfx: dict[str, AmdTarget]
    overrides: dict[str, str]          # gfx → HSA_OVERRIDE_GFX_VERSION value (unofficial)
    intel_by_pci: dict[str, IntelFamily]


def _texts(file: str, entry: str, raw: dict, key: str, pattern: re.Pattern | None = None,
           required: bool = True) -> tuple[str, ...]:
    value = raw.get(key, [] if not required else None)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value) or (required and not value):
        raise KnowledgeError(file, entry, key, "must be a list of text")
    values = tuple(v.lower() if pattern is _PCI_DEVICE else v for v in value)
    for v in values:
        if pattern is not None and not pattern.match(v):
            raise KnowledgeError(file, entry, key, f"{v!r} is not like {pattern.pattern}")
    return values


def _text(file: str, entry: str, raw: dict, key: str, choices: tuple[str, ...] | None = None) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or not value:
        raise KnowledgeError(file, entry, key, "must be text")
    if choices and value not in choices:
        raise KnowledgeError(file, entry, key, f"{value!r} is not one of {', '.join(choices)}")
    return value


def _read(file: str, schema: str) -> dict[str, Any]:
    try:
        data = read_toml(content_dir() / file, file)
    except ContentError as exc:
        raise KnowledgeError(file, "", "", exc.reason) from None
    if data.get("schema") != schema:
        raise KnowledgeError(file, "", "schema", f"must be {schema!r}")
    sources = data.get("sources")
    if not isinstance(sources, dict) or not sources:
        raise KnowledgeError(file, "[sources]", "", "must be a table of sources")
    data["_source_ids"] = set(sources)
    return data


def _sources(file: str, entry: str, raw: dict, known: set[str]) -> None:
    for sid in _texts(file, entry, raw, "source"):
        if sid not in known:
            raise KnowledgeError(file, entry, "source", f"{sid!r} is not defined in [sources]")


def load_tables() -> VendorTables:
    """Both tables, checked; KnowledgeError names the file, entry and field of a bad one."""
    return _tables()


@cache
def _tables() -> VendorTables:
    amd = _read(AMD_FILE, "gpu-wizard/amd-gpus/1")
    by_pci: dict[str, AmdTarget] = {}
    by_gfx: dict[str, AmdTarget] = {}
    for position, raw in enumerate(amd.get("target") or []):
        entry = f"target[{position}]"
        if not isinstance(raw, dict):
            raise KnowledgeError(AMD_FILE, entry, "", "must be a table")
        gfx = _text(AMD_FILE, entry, raw, "gfx")
        if not _GFX.match(gfx):
            raise KnowledgeError(AMD_FILE, entry, "gfx", f"{gfx!r} is not a target like gfx1030")
        _sources(AMD_FILE, entry, raw, amd["_source_ids"])
        target = AmdTarget(
            gfx=gfx, family=_text(AMD_FILE, entry, raw, "family"), chip=_text(AMD_FILE, entry, raw, "chip"),
            kind=_text(AMD_FILE, entry, raw, "kind", AMD_KINDS),
            examples=_texts(AMD_FILE, entry, raw, "examples", required=False),
            pci_device_ids=_texts(AMD_FILE, entry, raw, "pci_device_ids", _PCI_DEVICE, required=False),
        )
        by_gfx.setdefault(gfx, target)
        for device in target.pci_device_ids:
            key = "1002:" + device[2:]
            if key in by_pci and by_pci[key].gfx != gfx:
                raise KnowledgeError(AMD_FILE, entry, "pci_device_ids", f"{device} is also {by_pci[key].gfx}")
            by_pci[key] = target
    overrides = amd.get("overrides") or {}
    if not isinstance(overrides, dict):
        raise KnowledgeError(AMD_FILE, "[overrides]", "", "must be a table")
    for gfx, value in overrides.items():
        if not _GFX.match(gfx) or not isinstance(value, str) or not _OVERRIDE.match(value):
            raise KnowledgeError(AMD_FILE, "[overrides]", gfx, "must map a gfx target to a version like 10.3.0")

    intel = _read(INTEL_FILE, "gpu-wizard/intel-gpus/1")
    intel_by_pci: dict[str, IntelFamily] = {}
    for position, raw in enumerate(intel.get("family") or []):
        entry = f"family[{position}]"
        if not isinstance(raw, dict):
            raise KnowledgeError(INTEL_FILE, entry, "", "must be a table")
        if not isinstance(raw.get("xpu"), bool):
            raise KnowledgeError(INTEL_FILE, entry, "xpu", "must be true or false")
        since = raw.get("since_torch")
        if since is not None and not (isinstance(since, str) and re.fullmatch(r"\d+\.\d+(\.\d+)?", since)):
            raise KnowledgeError(INTEL_FILE, entry, "since_torch", "must be a version like 2.5")
        _sources(INTEL_FILE, entry, raw, intel["_source_ids"])
        family = IntelFamily(
            name=_text(INTEL_FILE, entry, raw, "name"), kind=_text(INTEL_FILE, entry, raw, "kind", INTEL_KINDS),
            xpu=raw["xpu"], since_torch=since,
            examples=_texts(INTEL_FILE, entry, raw, "examples", required=False),
            pci_device_ids=_texts(INTEL_FILE, entry, raw, "pci_device_ids", _PCI_DEVICE),
        )
        for device in family.pci_device_ids:
            intel_by_pci.setdefault("8086:" + device[2:], family)
    return VendorTables(by_pci, by_gfx, dict(overrides), intel_by_pci)


def _safe_tables() -> VendorTables | None:
    """The tables, or None when a file is damaged (the CLI names it; the diagnosis goes on)."""
    try:
        return load_tables()
    except ContentError:
        return None


# ------------------------------------------------------------------------------ lookups ---

def amd_target(gpu: Gpu) -> AmdTarget | None:
    """The catalogued target of an AMD GPU: by the ISA the driver reported, else by PCI id."""
    if gpu.vendor != "amd":
        return None
    tables = _safe_tables()
    if tables is None:
        return None
    if gpu.gfx_target and gpu.gfx_target in tables.amd_by_gfx:
        return tables.amd_by_gfx[gpu.gfx_target]
    return tables.amd_by_pci.get((gpu.pci_id or "").lower())


def amd_gfx(gpu: Gpu) -> str | None:
    """An AMD GPU's ROCm target ("gfx1031"), when the driver or the table knows it."""
    if gpu.vendor != "amd":
        return None
    if gpu.gfx_target:
        return gpu.gfx_target
    target = amd_target(gpu)
    return target.gfx if target else None


def amd_is_apu(gpu: Gpu) -> bool:
    target = amd_target(gpu)
    if target is not None:
        return target.kind == "apu"
    return gpu.unified_memory is True


def hsa_override(gfx: str) -> str | None:
    """The neighbour target whose kernels this one commonly runs (unofficial), or None."""
    tables = _safe_tables()
    return tables.overrides.get(gfx) if tables else None


def intel_family(gpu: Gpu) -> IntelFamily | None:
    if gpu.vendor != "intel":
        return None
    tables = _safe_tables()
    return tables.intel_by_pci.get((gpu.pci_id or "").lower()) if tables else None


_ARC_NAME = re.compile(r"\bArc\b|Data Center GPU (Max|Flex)", re.IGNORECASE)


def intel_xpu_capable(gpu: Gpu) -> bool:
    """An Intel GPU that PyTorch's XPU builds use: Arc (A/B series), Core Ultra Arc graphics,
    Data Center GPU Max/Flex. By PCI id; a name with "Arc" counts where the id is unknown
    (Windows reports names, and new cards come out faster than tables)."""
    family = intel_family(gpu)
    if family is not None:
        return family.xpu
    return gpu.vendor == "intel" and bool(_ARC_NAME.search(gpu.name or ""))


# An HSA_OVERRIDE_GFX_VERSION value → the target whose kernels ROCm then loads.
OVERRIDE_TARGET = {"10.3.0": "gfx1030", "11.0.0": "gfx1100"}


def override_for(gfx: str, targets: Iterable[str]) -> str | None:
    """The (unofficial) HSA_OVERRIDE_GFX_VERSION that lets `gfx` run kernels built for one of
    `targets`, when there is one."""
    value = hsa_override(gfx)
    return value if value and OVERRIDE_TARGET.get(value) in set(targets) else None


def rocm_targets() -> set[str]:
    """Every gfx target some PyTorch ROCm build in the matrix has kernels for (none when the
    matrix is damaged: the CLI names the file)."""
    # The matrix loads only for a machine with an AMD GPU: +13 ms on `check --json --no-torch`
    # elsewhere, which imports this module through the diagnosis (measured 2026-12-04).
    from wizard.pytorch.matrix import load_matrix

    try:
        return {gfx for v in load_matrix().variants.values() if v.kind == "rocm" for gfx in v.gfx}
    except ContentError:
        return set()


def rocm_gpus(machine: Machine) -> list[Gpu]:
    """The AMD GPUs a ROCm build should serve: the discrete cards, else an APU that ROCm
    supports (Strix Halo), never an APU beside a card (that iGPU would only get in the way)."""
    amd = [g for g in machine.gpus if g.vendor == "amd"]
    cards = [g for g in amd if not amd_is_apu(g)]
    if cards or not amd:
        return cards
    supported = rocm_targets()
    return [g for g in amd if amd_gfx(g) in supported]
