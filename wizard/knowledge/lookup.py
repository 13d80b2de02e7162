"""The lookups that use the default knowledge when none is given: a catalog entry by the name a
tool prints or by PCI id, a goal, a price, a conversion. The matching itself is `Knowledge`'s
(wizard.knowledge.records).
"""

from __future__ import annotations

from wizard.knowledge.load import load_knowledge
from wizard.knowledge.records import CatalogGpu, CurrencyRate, Goal, Knowledge, Price


def _or_default(knowledge: Knowledge | None) -> Knowledge:
    return knowledge if knowledge is not None else load_knowledge()


def catalog_by_pci_id(knowledge: Knowledge | None = None) -> dict[str, CatalogGpu]:
    """Catalog entries keyed "10de:2684" (lower-case hex).

    One PCI id can cover several models (0x744c = RX 7900 XT and XTX; 0x2d04 = RTX 5060 Ti 8 GB
    and 16 GB). The id then maps to the entry with the least VRAM, so nothing built on a bare PCI
    id overstates a card; `gpus_for_pci_id` gives all of them.
    """
    return dict(_or_default(knowledge).by_pci_id())


def gpus_for_pci_id(pci_id: str, knowledge: Knowledge | None = None) -> tuple[CatalogGpu, ...]:
    return _or_default(knowledge).gpus_for_pci_id(pci_id)


def find_gpu(name: str, vram_gb: float | None = None, laptop: bool | None = None,
             knowledge: Knowledge | None = None) -> CatalogGpu | None:
    """`Knowledge.find_gpu` (the name as a tool prints it) in `knowledge` or the default."""
    return _or_default(knowledge).find_gpu(name, vram_gb, laptop)


def goal(goal_id: str, knowledge: Knowledge | None = None) -> Goal:
    return _or_default(knowledge).goal(goal_id)


def price_in(gpu: CatalogGpu, currency: str, knowledge: Knowledge | None = None) -> Price | None:
    return _or_default(knowledge).price(gpu, currency)


def convert(amount: float, base: str, quote: str, knowledge: Knowledge | None = None) -> tuple[float, CurrencyRate]:
    """`amount` in `base` expressed in `quote`, with the rate (and its date) that was used."""
    return _or_default(knowledge).convert(amount, base, quote)

