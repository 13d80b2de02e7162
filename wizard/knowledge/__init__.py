"""The wizard's facts: GPU catalog, goals, cloud platforms and currency rates from content/*.toml.

Everything is checked when it is loaded, because a typo in a data file would otherwise surface
as wrong advice far away from its cause. Every problem raises `KnowledgeError` naming the file,
the entry (`gpu[12] "GeForce RTX 4060"`), the field and the reason. Unknown fields are errors too:
a misspelt `availability_source` would silently disappear otherwise.

records.py declares what each entry holds and the rules its fields keep; goals.py holds the
goals and currencies that answers are checked against, read on their own for a class roster;
entries.py reads an entry against its declaration; load.py reads and checks the files;
lookup.py finds a catalog entry by the name a tool prints or by PCI id; errors.py holds
KnowledgeError. `from wizard.knowledge import X` imports X's module on first use (wizard.lazy),
so code that only catches KnowledgeError loads no records. Pure data, no Textual, no network.
Loading the whole folder takes a few milliseconds and the default folder is parsed once per
process.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wizard.lazy import lazy_exports

_HOME = {
    "CURRENCY_FILE": "goals", "GOALS_FILE": "goals", "GPU_FILE": "load", "PLATFORMS_FILE": "load",
    "load_answer_rules": "goals", "load_knowledge": "load",
    "KnowledgeError": "errors",
    "catalog_by_pci_id": "lookup", "convert": "lookup", "find_gpu": "lookup", "goal": "lookup",
    "gpus_for_pci_id": "lookup", "price_in": "lookup",
    "CN_ACCESS": "records", "CONFIDENCE": "records", "LANGS": "records", "PLATFORM_KINDS": "records",
    "PLATFORM_REGIONS": "records", "SEGMENTS": "records", "VENDORS": "records", "CatalogGpu": "records",
    "Currency": "goals", "CurrencyRate": "goals", "Goal": "goals", "Knowledge": "records",
    "Platform": "records", "PlatformOffer": "records", "Price": "records",
}
__all__ = sorted(_HOME)

__getattr__, __dir__ = lazy_exports(__name__, _HOME)

if TYPE_CHECKING:  # what type checkers and editors see; at run time __getattr__ does this
    from wizard.knowledge.errors import KnowledgeError
    from wizard.knowledge.goals import CURRENCY_FILE, GOALS_FILE, Currency, CurrencyRate, Goal, load_answer_rules
    from wizard.knowledge.load import GPU_FILE, PLATFORMS_FILE, load_knowledge
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
        Knowledge,
        Platform,
        PlatformOffer,
        Price,
    )
