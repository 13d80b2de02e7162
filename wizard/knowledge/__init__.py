"""The wizard's facts: GPU catalog, goals, cloud platforms and currency rates from content/*.toml.

Everything is checked when it is loaded, because a typo in a data file would otherwise surface
as wrong advice far away from its cause. Every problem raises `KnowledgeError` naming the file,
the entry (`gpu[12] "GeForce RTX 4060"`), the field and the reason. Unknown fields are errors too:
a misspelt `availability_source` would silently disappear otherwise.

records.py declares what each entry holds and the rules its fields keep; load.py reads and
checks the files; lookup.py finds a catalog entry by the name a tool prints or by PCI id.
Pure data, no Textual, no network. Loading the whole folder takes a few milliseconds and the
default folder is parsed once per process.
"""

from wizard.knowledge.load import (
    CURRENCY_FILE,
    GOALS_FILE,
    GPU_FILE,
    PLATFORMS_FILE,
    KnowledgeError,
    load_answer_rules,
    load_knowledge,
)
from wizard.knowledge.lookup import catalog_by_pci_id, convert, find_gpu, goal, gpus_for_pci_id, price_in
from wizard.knowledge.records import (
    CN_ACCESS,
    CONFIDENCE,
    LANGS,
    PLATFORM_KINDS,
    PLATFORM_REGIONS,
    SEGMENTS,
    VENDORS,
    CatalogGpu,
    Currency,
    CurrencyRate,
    Goal,
    Knowledge,
    Platform,
    PlatformOffer,
    Price,
)

__all__ = [
    "CURRENCY_FILE", "GOALS_FILE", "GPU_FILE", "PLATFORMS_FILE", "KnowledgeError", "load_answer_rules",
    "load_knowledge",
    "catalog_by_pci_id", "convert", "find_gpu", "goal", "gpus_for_pci_id", "price_in",
    "CN_ACCESS", "CONFIDENCE", "LANGS", "PLATFORM_KINDS", "PLATFORM_REGIONS", "SEGMENTS", "VENDORS",
    "CatalogGpu", "Currency", "CurrencyRate", "Goal", "Knowledge", "Platform", "PlatformOffer", "Price",
]
