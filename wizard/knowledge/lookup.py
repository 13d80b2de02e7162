"""Finding catalog entries: by the name a tool prints, or by PCI id; and the lookups that use
the default knowledge when none is given.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wizard.knowledge.records import CatalogGpu, CurrencyRate, Goal, Knowledge, Price


def _or_default(knowledge: Knowledge | None) -> Knowledge:
    if knowledge is not None:
        return knowledge
    from wizard.knowledge.load import load_knowledge  # load.py checks names with model_words below

    return load_knowledge()


def catalog_by_pci_id(knowledge: Knowledge | None = None) -> dict[str, CatalogGpu]:
    """Catalog entries keyed "10de:2684" (lower-case hex).

    One PCI id can cover several models (0x744c = RX 7900 XT and XTX; 0x2d04 = RTX 5060 Ti 8 GB
    and 16 GB). The id then maps to the entry with the least VRAM, so nothing built on a bare PCI
    id overstates a card; `gpus_for_pci_id` gives all of them.
    """
    knowledge = _or_default(knowledge)
    return dict(_pci_index(knowledge))


def gpus_for_pci_id(pci_id: str, knowledge: Knowledge | None = None) -> tuple[CatalogGpu, ...]:
    knowledge = _or_default(knowledge)
    key = _normal_pci_id(pci_id)
    return tuple(gpu for gpu in knowledge.gpus if key in gpu.pci_ids)


def find_gpu(name: str, vram_gb: float | None = None, laptop: bool | None = None,
             knowledge: Knowledge | None = None) -> CatalogGpu | None:
    """The catalog entry for a name as NVML, nvidia-smi, lspci or system_profiler print it.

    "NVIDIA GeForce RTX 4060 Laptop GPU" → "GeForce RTX 4060 Laptop GPU"; "NVIDIA A100-SXM4-80GB"
    → "A100 80GB (SXM4)". A laptop part never matches a desktop entry. Some laptop parts carry the
    desktop name in NVML ("NVIDIA GeForce GTX 1650" on a laptop): pass `laptop=True` (the probe's
    `Gpu.laptop`) and only laptop entries match. When the name leaves the memory size open
    ("RTX 4060 Ti" is 8 or 16 GB), `vram_gb` picks the variant; without it the smallest is
    returned. None when nothing matches.
    """
    return match_gpu(_or_default(knowledge), name, vram_gb, laptop)


def goal(goal_id: str, knowledge: Knowledge | None = None) -> Goal:
    return _or_default(knowledge).goal(goal_id)


def price_in(gpu: CatalogGpu, currency: str, knowledge: Knowledge | None = None) -> Price | None:
    return _or_default(knowledge).price(gpu, currency)


def convert(amount: float, base: str, quote: str, knowledge: Knowledge | None = None) -> tuple[float, CurrencyRate]:
    """`amount` in `base` expressed in `quote`, with the rate (and its date) that was used."""
    return _or_default(knowledge).convert(amount, base, quote)


# ---------------------------------------------------------------------------------------------
# Name matching

# Words that differ between tools but never tell two models apart.
_NOISE = {"nvidia", "geforce", "tesla", "amd", "intel", "corporation", "gpu", "with", "design",
          "graphics", "generation"}
# Ways tools say "this is the laptop part".
_LAPTOP_WORDS = {"laptop", "mobile", "maxq", "max-q"}
_SIZE = re.compile(r"^\d+gb$")


def model_words(name: str) -> frozenset[str]:
    """The words that identify a model, in any order: "A100-SXM4-80GB" = "A100 80GB (SXM4)"."""
    text = name.lower().replace("max-q", "maxq")
    words = [word for word in re.split(r"[^a-z0-9]+", text) if word]
    out: set[str] = set()
    previous = ""
    for word in words:
        if word == "gb" and previous.isdigit():
            # "16 GB" written with a space is the same size word as "16GB".
            out.discard(previous)
            out.add(previous + "gb")
        elif word not in _NOISE:
            out.add("laptop" if word in _LAPTOP_WORDS else word)
        previous = word
    return frozenset(out)


def _name_index(
    knowledge: Knowledge,
) -> tuple[dict[frozenset[str], CatalogGpu], dict[frozenset[str], list[CatalogGpu]]]:
    cached = knowledge._indexes.get("names")
    if cached is not None:
        return cached
    exact: dict[frozenset[str], CatalogGpu] = {}
    sizeless: dict[frozenset[str], list[CatalogGpu]] = {}
    for gpu in knowledge.gpus:
        for label in (gpu.name, *gpu.aliases):
            exact.setdefault(model_words(label), gpu)
        base = frozenset(word for word in model_words(gpu.name) if not _SIZE.match(word))
        sizeless.setdefault(base, []).append(gpu)
    knowledge._indexes["names"] = (exact, sizeless)
    return exact, sizeless


def match_gpu(knowledge: Knowledge, name: str, vram_gb: float | None,
              laptop: bool | None = None) -> CatalogGpu | None:
    """`find_gpu` in `knowledge`."""
    if not name or not name.strip():
        return None
    words = model_words(name)
    hit = _match(knowledge, words, vram_gb)
    if laptop and hit is not None and not hit.is_laptop and hit.vendor != "apple":
        # Never describe a laptop part with desktop specs: its own entry, or nothing.
        return _match(knowledge, words | {"laptop"}, vram_gb)
    return hit


def _match(knowledge: Knowledge, words: frozenset[str], vram_gb: float | None) -> CatalogGpu | None:
    exact, sizeless = _name_index(knowledge)
    hit = exact.get(words)
    if hit is not None:
        return hit
    base = frozenset(word for word in words if not _SIZE.match(word))
    candidates = sizeless.get(base, [])
    if not candidates:
        return None
    candidates = sorted(candidates, key=lambda gpu: gpu.vram_gb)
    if vram_gb is None:
        return candidates[0]
    # Drivers report a little less than the marketed size (a "12 GB" card shows ~11.7 GiB).
    fitting = [gpu for gpu in candidates if abs(gpu.vram_gb - vram_gb) <= max(1.0, gpu.vram_gb * 0.1)]
    return fitting[0] if fitting else None


def _normal_pci_id(pci_id: str) -> str:
    vendor, _, device = pci_id.strip().lower().partition(":")
    vendor = vendor.removeprefix("0x")
    device = device.removeprefix("0x")
    return f"{vendor}:{device}"


def _pci_index(knowledge: Knowledge) -> dict[str, CatalogGpu]:
    cached = knowledge._indexes.get("pci")
    if cached is not None:
        return cached
    index: dict[str, CatalogGpu] = {}
    for gpu in knowledge.gpus:
        for pci_id in gpu.pci_ids:
            current = index.get(pci_id)
            if current is None or gpu.vram_gb < current.vram_gb:
                index[pci_id] = gpu
    knowledge._indexes["pci"] = index
    return index
