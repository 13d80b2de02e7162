"""The wizard's facts: GPU catalog, goals, cloud platforms and currency rates from content/*.toml.

Everything is checked when it is loaded, because a typo in a data file would otherwise surface
as wrong advice far away from its cause. Every problem raises `KnowledgeError` naming the file,
the entry (`gpu[12] "GeForce RTX 4060"`), the field and the reason. Unknown fields are errors too:
a misspelt `availability_source` would silently disappear otherwise.

Pure data, no Textual, no network. Loading the whole folder takes a few milliseconds and the
default folder is parsed once per process.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Callable, Iterable

from wizard.content import ContentError, content_dir, read_toml
from wizard.market import (
    CONDITIONS, MARKET_FILE, MARKET_SCHEMA, Market, MarketData, MarketPrice, RestOfPc, round_converted,
)
from wizard.schema import type_name

GPU_FILE = "gpus.toml"
GOALS_FILE = "goals.toml"
PLATFORMS_FILE = "platforms.toml"
CURRENCY_FILE = "currency.toml"

SEGMENTS = ("desktop", "laptop", "workstation", "datacenter")
VENDORS = ("nvidia", "amd", "intel", "apple")
CONFIDENCE = ("high", "medium", "low")
PLATFORM_KINDS = ("free", "free-trial", "paid")
# How a student in mainland China reaches a platform: directly, only through a VPN, slowly,
# or not known. Kept as data so the ranking can prefer what works without a VPN.
CN_ACCESS = ("direct", "vpn", "slow", "unknown")
PLATFORM_REGIONS = ("cn", "global")
LANGS = ("en", "zh")

_DATE = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")
_PCI_HEX = re.compile(r"^0x[0-9a-f]{4}$")
_CC = re.compile(r"^\d{1,2}\.\d$")
_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_CURRENCY = re.compile(r"^[A-Z]{3}$")


class KnowledgeError(ContentError):
    """A content data file is missing, unreadable or has a bad entry.

    `str(error)` is the full sentence; the parts are kept for tests and for tools that list
    problems.
    """

    def __init__(self, file: str, entry: str, field_name: str, reason: str) -> None:
        super().__init__(file, reason)
        self.entry = entry
        self.field = field_name
        where = ", ".join(part for part in (file, entry, f"field {field_name!r}" if field_name else "") if part)
        self.args = (f"{where}: {reason}",)


# ---------------------------------------------------------------------------------------------
# Records


@dataclass(frozen=True)
class Price:
    """Today's price in one market, with where and when it comes from, so the UI can say
    "about $1,200 (street price, 2026-01)"."""

    amount: float
    currency: str
    kind: str             # "street" (new) | "used"
    date: str             # "2026-01"
    source: str
    approximate: bool     # say "about": street prices are ranges, converted ones more so
    market: str = ""      # the buyer's market the price is for
    low: float | None = None            # the low end of a reported range
    converted_from: str | None = None   # original currency when converted
    converted_market: str | None = None  # the market whose price was converted
    rate_date: str | None = None        # date of the exchange rate used, when converted


@dataclass(frozen=True)
class CatalogGpu:
    index: int
    name: str
    vendor: str
    family: str
    segment: str
    architecture: str
    vram_gb: float
    launch_year: int
    confidence: str
    source: str
    notes: str = ""
    compute_capability: str | None = None
    gfx_target: str | None = None
    memory_bandwidth_gbs: float | None = None
    fp32_tflops: float | None = None
    fp16_tensor_tflops: float | None = None
    fp16_tensor_fp16acc_tflops: float | None = None
    tdp_w: int | None = None
    tdp_w_min: int | None = None
    tdp_w_max: int | None = None
    launch_price_usd: int | None = None
    launch_price_cny: int | None = None
    launch_price_cny_source: str | None = None
    launch_date: str | None = None
    markets: tuple[str, ...] = ()     # where it is sold new: "us", "cn"
    discontinued: bool = False
    availability_source: str | None = None
    pci_vendor_id: str | None = None
    pci_device_ids: tuple[str, ...] = ()
    vram_gb_options: tuple[int, ...] = ()
    unified_memory_gb_options: tuple[int, ...] = ()
    gpu_cores: tuple[int, ...] = ()
    aliases: tuple[str, ...] = ()
    desktop_equivalent: str | None = None
    unverified: tuple[str, ...] = ()   # fields whose value the data file marks as uncertain

    @property
    def pci_ids(self) -> tuple[str, ...]:
        """ "10de:2684"-style ids, the form lspci and the report use."""
        if not self.pci_vendor_id:
            return ()
        vendor = self.pci_vendor_id[2:]
        return tuple(f"{vendor}:{device[2:]}" for device in self.pci_device_ids)

    @property
    def is_laptop(self) -> bool:
        return self.segment == "laptop"

    @property
    def unified_memory(self) -> bool:
        # Apple GPUs share RAM with the CPU: vram_gb is the largest RAM option, not a card.
        return self.vendor == "apple"

    @property
    def has_tensor_cores(self) -> bool:
        return self.fp16_tensor_tflops is not None

    def is_unverified(self, field_name: str) -> bool:
        return field_name in self.unverified


@dataclass(frozen=True)
class Goal:
    id: str
    label_en: str
    label_zh: str
    min_vram_gb: float
    comfortable_vram_gb: float
    min_ram_gb: float
    examples_en: tuple[str, ...]
    examples_zh: tuple[str, ...]
    basis: str
    source: str
    multi_gpu_note_en: str = ""
    multi_gpu_note_zh: str = ""
    unverified: tuple[str, ...] = ()

    def label(self, lang: str) -> str:
        return self.label_zh if lang == "zh" else self.label_en

    def examples(self, lang: str) -> tuple[str, ...]:
        return self.examples_zh if lang == "zh" else self.examples_en


@dataclass(frozen=True)
class PlatformOffer:
    """A sourced rental price: `gpu` for price_low..price_high `currency` per hour, as of `date`."""

    gpu: str
    vram_gb: float
    price_low: float
    price_high: float
    currency: str
    date: str
    unverified: bool = False


@dataclass(frozen=True)
class Platform:
    id: str
    name: str
    provider: str
    url: str
    kind: str                 # PLATFORM_KINDS
    region: str               # PLATFORM_REGIONS: where it is hosted
    cn_access: str            # CN_ACCESS: how it is reached from mainland China
    gpus: tuple[str, ...]
    free_quota: str
    session_limit: str
    region_notes: str
    needs: str
    notes: str
    summary_en: str
    summary_zh: str
    source: str
    checked: str
    name_zh: str = ""
    free_vram_gb: float | None = None   # best single GPU the free quota gives (free / free-trial)
    rent_vram_gb: float | None = None   # largest single GPU one can pay for there
    paid_options: str = ""
    offers: tuple[PlatformOffer, ...] = ()
    unverified: tuple[str, ...] = ()

    @property
    def is_free(self) -> bool:
        return self.kind != "paid"

    @property
    def max_vram_gb(self) -> float:
        return max(self.free_vram_gb or 0, self.rent_vram_gb or 0)

    @property
    def needs_vpn_from_cn(self) -> bool:
        return self.cn_access == "vpn"

    def display_name(self, lang: str) -> str:
        return self.name_zh if lang == "zh" and self.name_zh else self.name

    def summary(self, lang: str) -> str:
        return self.summary_zh if lang == "zh" else self.summary_en


@dataclass(frozen=True)
class CurrencyRate:
    base: str          # 1 unit of base ...
    quote: str         # ... is `rate` units of quote
    rate: float
    date: str
    source: str
    unverified: bool = False


@dataclass(frozen=True)
class Currency:
    code: str
    symbol: str
    name_en: str
    name_zh: str
    max_budget: float   # anything larger is treated as a typo in the budget step


@dataclass(frozen=True)
class Knowledge:
    gpus: tuple[CatalogGpu, ...]
    goals: tuple[Goal, ...]
    platforms: tuple[Platform, ...]
    currencies: tuple[Currency, ...]
    rates: tuple[CurrencyRate, ...]
    market: MarketData
    folder: Path = field(compare=False)
    # Lookup indexes built on first use; a frozen dataclass may still fill a dict it owns.
    _indexes: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    # -- lookups ---------------------------------------------------------------------------
    def goal(self, goal_id: str) -> Goal:
        for item in self.goals:
            if item.id == goal_id:
                return item
        raise KeyError(f"unknown goal {goal_id!r}; known: {', '.join(self.goal_ids)}")

    @property
    def goal_ids(self) -> tuple[str, ...]:
        return tuple(item.id for item in self.goals)

    @property
    def currency_codes(self) -> tuple[str, ...]:
        return tuple(item.code for item in self.currencies)

    def currency(self, code: str) -> Currency:
        for item in self.currencies:
            if item.code == code:
                return item
        raise KeyError(f"unknown currency {code!r}; known: {', '.join(self.currency_codes)}")

    def platform(self, platform_id: str) -> Platform:
        for item in self.platforms:
            if item.id == platform_id:
                return item
        raise KeyError(f"unknown platform {platform_id!r}")

    def gpu(self, name: str) -> CatalogGpu:
        for item in self.gpus:
            if item.name == name:
                return item
        raise KeyError(f"no catalog GPU named {name!r}")

    def find_gpu(self, name: str, vram_gb: float | None = None, laptop: bool | None = None) -> CatalogGpu | None:
        return _find_gpu(self, name, vram_gb, laptop)

    # -- money -----------------------------------------------------------------------------
    def rate(self, base: str, quote: str) -> CurrencyRate:
        """The rate base→quote; an inverse entry in the file is used when needed."""
        if base == quote:
            return CurrencyRate(base, quote, 1.0, "", "identity")
        for item in self.rates:
            if item.base == base and item.quote == quote:
                return item
            if item.base == quote and item.quote == base:
                return CurrencyRate(base, quote, 1.0 / item.rate, item.date, item.source, item.unverified)
        raise KeyError(f"no exchange rate between {base} and {quote}")

    def convert(self, amount: float, base: str, quote: str) -> tuple[float, CurrencyRate]:
        rate = self.rate(base, quote)
        return amount * rate.rate, rate

    def price(self, gpu: CatalogGpu, currency: str) -> Price | None:
        """Today's price of `gpu` for a buyer paying in `currency`, or None when there is none.

        The buyer's market (CNY → mainland China) decides: a current new price when the card is
        sold new there, else a current used price there, else, when the market allows it, a
        current new price from another market converted at the dated rate. Launch prices and
        prices older than the content's age limit are never today's price.
        """
        market = self.market.for_currency(currency)
        if market is None:
            return None
        sold_new = market.id in gpu.markets and not gpu.discontinued
        local = [p for p in self.market.current_prices(gpu.name, market.id) if p.currency == currency]
        new = [p for p in local if p.condition == "new"] if sold_new else []
        used = [p for p in local if p.condition == "used"]
        chosen = _newest(new or used)
        if chosen is not None:
            return self._priced(chosen, currency, market.id, "street" if chosen.condition == "new" else "used")
        if not (sold_new and market.convert_from):
            return None
        chosen = _newest([p for p in self.market.current_prices(gpu.name, market.convert_from)
                          if p.condition == "new"])
        return self._priced(chosen, currency, market.id) if chosen is not None else None

    def desktop_base(self, currency: str) -> Price | None:
        """What the rest of a desktop PC costs in the buyer's market, converted when needed."""
        market = self.market.for_currency(currency)
        if market is None:
            return None
        for market_id in (market.id, market.convert_from):
            rest = self.market.rest_of_pc_in(market_id) if market_id else None
            price = self._priced(rest, currency, market.id) if rest is not None else None
            if price is not None:
                return price
        return None

    def _priced(self, offer: MarketPrice | RestOfPc, currency: str, market_id: str,
                kind: str = "street") -> Price | None:
        """`offer` as today's price for a buyer in `market_id`; from another currency it is
        converted at the dated rate and rounded, and says so."""
        if offer.currency == currency:
            return Price(float(offer.amount), currency, kind, offer.date, offer.source, approximate=True,
                         market=market_id, low=offer.low)
        try:
            amount, rate = self.convert(offer.amount, offer.currency, currency)
        except KeyError:
            return None
        low = round_converted(self.convert(offer.low, offer.currency, currency)[0]) if offer.low else None
        return Price(round_converted(amount), currency, kind, offer.date, offer.source, approximate=True,
                     market=market_id, low=low, converted_from=offer.currency,
                     converted_market=offer.market, rate_date=rate.date)


def _newest(offers: list[MarketPrice]) -> MarketPrice | None:
    """The latest observation wins (prices moved monthly in 2026); within a month, the higher
    one, so advice never promises a card cheaper than people paid."""
    return max(offers, key=lambda p: (p.date, p.amount), default=None)


# ---------------------------------------------------------------------------------------------
# Module-level helpers (use the default knowledge when none is given)


def catalog_by_pci_id(knowledge: Knowledge | None = None) -> dict[str, CatalogGpu]:
    """Catalog entries keyed "10de:2684" (lower-case hex).

    One PCI id can cover several models (0x744c = RX 7900 XT and XTX; 0x2d04 = RTX 5060 Ti 8 GB
    and 16 GB). The id then maps to the entry with the least VRAM, so nothing built on a bare PCI
    id overstates a card; `gpus_for_pci_id` gives all of them.
    """
    knowledge = knowledge or load_knowledge()
    return dict(_pci_index(knowledge))


def gpus_for_pci_id(pci_id: str, knowledge: Knowledge | None = None) -> tuple[CatalogGpu, ...]:
    knowledge = knowledge or load_knowledge()
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
    return _find_gpu(knowledge or load_knowledge(), name, vram_gb, laptop)


def goal(goal_id: str, knowledge: Knowledge | None = None) -> Goal:
    return (knowledge or load_knowledge()).goal(goal_id)


def price_in(gpu: CatalogGpu, currency: str, knowledge: Knowledge | None = None) -> Price | None:
    return (knowledge or load_knowledge()).price(gpu, currency)


def convert(amount: float, base: str, quote: str, knowledge: Knowledge | None = None) -> tuple[float, CurrencyRate]:
    """`amount` in `base` expressed in `quote`, with the rate (and its date) that was used."""
    return (knowledge or load_knowledge()).convert(amount, base, quote)


# ---------------------------------------------------------------------------------------------
# Name matching

# Words that differ between tools but never tell two models apart.
_NOISE = {"nvidia", "geforce", "tesla", "amd", "intel", "corporation", "gpu", "with", "design",
          "graphics", "generation"}
# Ways tools say "this is the laptop part".
_LAPTOP_WORDS = {"laptop", "mobile", "maxq", "max-q"}
_SIZE = re.compile(r"^\d+gb$")


def _tokens(name: str) -> frozenset[str]:
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


def _name_index(knowledge: Knowledge) -> tuple[dict[frozenset[str], CatalogGpu], dict[frozenset[str], list[CatalogGpu]]]:
    cached = knowledge._indexes.get("names")
    if cached is not None:
        return cached
    exact: dict[frozenset[str], CatalogGpu] = {}
    sizeless: dict[frozenset[str], list[CatalogGpu]] = {}
    for gpu in knowledge.gpus:
        for label in (gpu.name, *gpu.aliases):
            exact.setdefault(_tokens(label), gpu)
        base = frozenset(word for word in _tokens(gpu.name) if not _SIZE.match(word))
        sizeless.setdefault(base, []).append(gpu)
    knowledge._indexes["names"] = (exact, sizeless)
    return exact, sizeless


def _find_gpu(knowledge: Knowledge, name: str, vram_gb: float | None,
              laptop: bool | None = None) -> CatalogGpu | None:
    if not name or not name.strip():
        return None
    words = _tokens(name)
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


# ---------------------------------------------------------------------------------------------
# Loading and validation


def load_knowledge(folder: Path | None = None) -> Knowledge:
    """Load and check every data file in `folder` (default: the installed content/ folder).

    The default folder is cached for the life of the process; an explicit folder is read
    fresh each time (tests point it at broken copies).
    """
    if folder is None:
        return _default_knowledge()
    return _load(Path(folder))


@cache
def _default_knowledge() -> Knowledge:
    return _load(content_dir())


def _load(folder: Path) -> Knowledge:
    gpus = tuple(_load_gpus(folder))
    goals = tuple(_load_goals(folder))
    platforms = tuple(_load_platforms(folder))
    currencies, rates = _load_currency(folder)
    market = _load_market(folder, gpus, currencies)
    return Knowledge(gpus=gpus, goals=goals, platforms=platforms, currencies=currencies,
                     rates=rates, market=market, folder=folder)


def _read(folder: Path, name: str) -> dict[str, Any]:
    try:
        return read_toml(folder / name, name)
    except ContentError as exc:
        raise KnowledgeError(name, "", "", exc.reason) from None


# A field spec: (required, checker). A checker takes the raw value and returns the converted
# value or raises _Bad with the reason.
class _Bad(Exception):
    pass


Checker = Callable[[Any], Any]


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise _Bad(f"must be text, not {type_name(value)}")
    if not value.strip():
        raise _Bad("must not be empty")
    return value


def _text_or_empty(value: Any) -> str:
    if not isinstance(value, str):
        raise _Bad(f"must be text, not {type_name(value)}")
    return value


def _number(low: float, high: float) -> Checker:
    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _Bad(f"must be a number, not {type_name(value)}")
        if not low <= value <= high:
            raise _Bad(f"{value} is outside {low:g}..{high:g}")
        return value
    return check


def _integer(low: int, high: int) -> Checker:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _Bad(f"must be a whole number, not {type_name(value)}")
        if not low <= value <= high:
            raise _Bad(f"{value} is outside {low}..{high}")
        return value
    return check


def _boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise _Bad(f"must be true or false, not {type_name(value)}")
    return value


def _one_of(choices: Iterable[str]) -> Checker:
    allowed = tuple(choices)

    def check(value: Any) -> str:
        if value not in allowed:
            raise _Bad(f"{value!r} is not one of {', '.join(allowed)}")
        return value
    return check


def _pattern(regex: re.Pattern[str], what: str) -> Checker:
    def check(value: Any) -> str:
        if not isinstance(value, str) or not regex.match(value):
            raise _Bad(f"{value!r} is not {what}")
        return value
    return check


def _list_of(item: Checker, *, non_empty: bool = False) -> Checker:
    def check(value: Any) -> tuple:
        if not isinstance(value, list):
            raise _Bad(f"must be a list, not {type_name(value)}")
        if non_empty and not value:
            raise _Bad("must not be an empty list")
        out = []
        for position, element in enumerate(value):
            try:
                out.append(item(element))
            except _Bad as bad:
                raise _Bad(f"item {position}: {bad}") from None
        return tuple(out)
    return check


_date = _pattern(_DATE, "a date like 2026, 2026-05 or 2026-05-04")
# Platforms' `checked` can carry words ("2021-2022 (README versions); ..."), but must start
# with the year so the UI can always show how old the fact is.
_checked = _pattern(re.compile(r"^\d{4}"), "text that starts with the year it was checked")


def _entry_label(kind: str, position: int, entry: dict[str, Any], key: str) -> str:
    value = entry.get(key)
    return f'{kind}[{position}] "{value}"' if isinstance(value, str) else f"{kind}[{position}]"


def _build(file: str, label: str, entry: Any, spec: dict[str, tuple[bool, Checker]]) -> dict[str, Any]:
    if not isinstance(entry, dict):
        raise KnowledgeError(file, label, "", f"must be a table, not {type_name(entry)}")
    out: dict[str, Any] = {}
    for key in entry:
        if key not in spec:
            raise KnowledgeError(file, label, key, "unknown field (a typo?)")
    for key, (required, checker) in spec.items():
        if key not in entry:
            if required:
                raise KnowledgeError(file, label, key, "is missing")
            continue
        try:
            out[key] = checker(entry[key])
        except _Bad as bad:
            raise KnowledgeError(file, label, key, str(bad)) from None
    return out


def _records(file: str, data: dict[str, Any], table: str) -> list[Any]:
    records = data.get(table)
    if not isinstance(records, list) or not records:
        raise KnowledgeError(file, "", table, f"needs at least one [[{table}]] entry")
    return records


_GPU_FLOAT = _number(0, 100_000)
_GPU_SPEC: dict[str, tuple[bool, Checker]] = {
    "name": (True, _text),
    "vendor": (True, _one_of(VENDORS)),
    "family": (True, _text),
    "segment": (True, _one_of(SEGMENTS)),
    "architecture": (True, _text),
    "vram_gb": (True, _number(0.5, 2048)),
    "launch_year": (True, _integer(2010, 2030)),
    "launch_date": (False, _date),
    "confidence": (True, _one_of(CONFIDENCE)),
    "source": (True, _text),
    "notes": (False, _text_or_empty),
    "compute_capability": (False, _pattern(_CC, "a compute capability like 8.9")),
    "gfx_target": (False, _pattern(re.compile(r"^gfx[0-9a-f]{3,4}$"), "a ROCm target like gfx1100")),
    "memory_bandwidth_gbs": (False, _number(10, 20_000)),
    "fp32_tflops": (False, _number(0.1, 1_000)),
    "fp16_tensor_tflops": (False, _number(1, 10_000)),
    "fp16_tensor_fp16acc_tflops": (False, _number(1, 10_000)),
    "tdp_w": (False, _integer(5, 2_000)),
    "tdp_w_min": (False, _integer(5, 2_000)),
    "tdp_w_max": (False, _integer(5, 2_000)),
    "launch_price_usd": (False, _integer(1, 100_000)),
    "launch_price_cny": (False, _integer(1, 1_000_000)),
    "launch_price_cny_source": (False, _text),
    "markets": (False, _list_of(_pattern(_ID, "a market id like us or cn"), non_empty=True)),
    "discontinued": (False, _boolean),
    "availability_source": (False, _text),
    "pci_vendor_id": (False, _pattern(_PCI_HEX, "a PCI vendor id like 0x10de")),
    "pci_device_ids": (False, _list_of(_pattern(_PCI_HEX, "a PCI device id like 0x2684"), non_empty=True)),
    "vram_gb_options": (False, _list_of(_integer(1, 2048), non_empty=True)),
    "unified_memory_gb_options": (False, _list_of(_integer(1, 2048), non_empty=True)),
    "gpu_cores": (False, _list_of(_integer(1, 100_000), non_empty=True)),
    "aliases": (False, _list_of(_text, non_empty=True)),
    "desktop_equivalent": (False, _text),
    "unverified": (False, _list_of(_text, non_empty=True)),
}
_VENDOR_PCI = {"nvidia": "0x10de", "amd": "0x1002", "intel": "0x8086"}


def _load_gpus(folder: Path) -> list[CatalogGpu]:
    file = GPU_FILE
    data = _read(folder, file)
    gpus: list[CatalogGpu] = []
    seen: dict[frozenset[str], str] = {}
    for position, entry in enumerate(_records(file, data, "gpu")):
        label = _entry_label("gpu", position, entry if isinstance(entry, dict) else {}, "name")
        values = _build(file, label, entry, _GPU_SPEC)
        _check_gpu(file, label, values)
        for list_field in ("pci_device_ids", "vram_gb_options", "unified_memory_gb_options",
                           "gpu_cores", "aliases", "unverified", "markets"):
            values.setdefault(list_field, ())
        gpu = CatalogGpu(index=position, **values)
        for text in (gpu.name, *gpu.aliases):
            key = _tokens(text)
            if key in seen:
                raise KnowledgeError(file, label, "aliases" if text != gpu.name else "name",
                                     f"{text!r} is the same model name as {seen[key]}")
            seen[key] = label
        gpus.append(gpu)
    names = {gpu.name for gpu in gpus}
    for gpu in gpus:
        if gpu.desktop_equivalent and gpu.desktop_equivalent not in names:
            raise KnowledgeError(file, f'gpu[{gpu.index}] "{gpu.name}"', "desktop_equivalent",
                                 f"{gpu.desktop_equivalent!r} is not a catalog entry")
    return gpus


def _check_gpu(file: str, label: str, values: dict[str, Any]) -> None:
    def bad(field_name: str, reason: str) -> KnowledgeError:
        return KnowledgeError(file, label, field_name, reason)

    vendor = values["vendor"]
    if vendor == "nvidia" and "compute_capability" not in values:
        raise bad("compute_capability", "is missing (every NVIDIA GPU has one)")
    if vendor != "nvidia" and "compute_capability" in values:
        raise bad("compute_capability", f"only NVIDIA GPUs have one, this is {vendor}")
    if "pci_device_ids" in values:
        expected = _VENDOR_PCI.get(vendor)
        if values.get("pci_vendor_id") is None:
            raise bad("pci_vendor_id", "is missing although pci_device_ids are given")
        if expected and values["pci_vendor_id"] != expected:
            raise bad("pci_vendor_id", f"{values['pci_vendor_id']} is not {vendor}'s ({expected})")
    if values["segment"] == "laptop" and vendor != "apple":
        for key in ("tdp_w_min", "tdp_w_max"):
            if key not in values:
                raise bad(key, "is missing: a laptop GPU's power range decides its speed")
    if "tdp_w_min" in values and "tdp_w_max" in values and values["tdp_w_min"] > values["tdp_w_max"]:
        raise bad("tdp_w_min", "is above tdp_w_max")
    if ("markets" in values or "discontinued" in values) and "availability_source" not in values:
        raise bad("availability_source", "is missing: say where the card is sold, and whether it is still made")
    if "launch_price_cny" in values and "launch_price_cny_source" not in values:
        raise bad("launch_price_cny_source", "is missing: say where the mainland launch price comes from")
    if "desktop_equivalent" in values and values["segment"] != "laptop":
        raise bad("desktop_equivalent", "only laptop entries name a desktop equivalent")
    for name in values.get("unverified", ()):
        if name not in _GPU_SPEC:
            raise bad("unverified", f"{name!r} is not a field")
        if name not in values:
            raise bad("unverified", f"{name!r} is marked unverified but has no value")


_GOAL_SPEC: dict[str, tuple[bool, Checker]] = {
    "id": (True, _pattern(_ID, "a kebab-case id like llm-inference")),
    "label_en": (True, _text),
    "label_zh": (True, _text),
    "min_vram_gb": (True, _number(0, 4096)),
    "comfortable_vram_gb": (True, _number(0, 4096)),
    "min_ram_gb": (True, _number(1, 4096)),
    "examples_en": (True, _list_of(_text, non_empty=True)),
    "examples_zh": (True, _list_of(_text, non_empty=True)),
    "basis": (True, _text),
    "source": (True, _text),
    "multi_gpu_note_en": (False, _text),
    "multi_gpu_note_zh": (False, _text),
    "unverified": (False, _list_of(_text, non_empty=True)),
}


def _load_goals(folder: Path) -> list[Goal]:
    file = GOALS_FILE
    data = _read(folder, file)
    goals: list[Goal] = []
    seen: set[str] = set()
    for position, entry in enumerate(_records(file, data, "goal")):
        label = _entry_label("goal", position, entry if isinstance(entry, dict) else {}, "id")
        values = _build(file, label, entry, _GOAL_SPEC)
        if values["id"] in seen:
            raise KnowledgeError(file, label, "id", "is used by an earlier goal")
        seen.add(values["id"])
        if values["comfortable_vram_gb"] < values["min_vram_gb"]:
            raise KnowledgeError(file, label, "comfortable_vram_gb", "is below min_vram_gb")
        if len(values["examples_en"]) != len(values["examples_zh"]):
            raise KnowledgeError(file, label, "examples_zh", "must have as many examples as examples_en")
        if ("multi_gpu_note_en" in values) != ("multi_gpu_note_zh" in values):
            raise KnowledgeError(file, label, "multi_gpu_note_zh", "the note must exist in both languages")
        for name in values.get("unverified", ()):
            if name not in values:
                raise KnowledgeError(file, label, "unverified", f"{name!r} is not a field of this goal")
        values.setdefault("unverified", ())
        goals.append(Goal(**values))
    return goals


_PLATFORM_SPEC: dict[str, tuple[bool, Checker]] = {
    "id": (True, _pattern(_ID, "a kebab-case id like kaggle")),
    "name": (True, _text),
    "name_zh": (False, _text),
    "provider": (True, _text),
    "url": (True, _pattern(re.compile(r"^https?://\S+$"), "an http(s) address")),
    "kind": (True, _one_of(PLATFORM_KINDS)),
    "region": (True, _one_of(PLATFORM_REGIONS)),
    "cn_access": (True, _one_of(CN_ACCESS)),
    "gpus": (True, _list_of(_text, non_empty=True)),
    "free_vram_gb": (False, _number(1, 1024)),
    "rent_vram_gb": (False, _number(1, 1024)),
    "free_quota": (True, _text),
    "session_limit": (True, _text),
    "region_notes": (True, _text),
    "needs": (True, _text),
    "notes": (True, _text_or_empty),
    "paid_options": (False, _text),
    "summary_en": (True, _text),
    "summary_zh": (True, _text),
    "source": (True, _text),
    "checked": (True, _checked),
    "unverified": (False, _list_of(_text, non_empty=True)),
    "offer": (False, lambda value: value),   # checked entry by entry below
}
_OFFER_SPEC: dict[str, tuple[bool, Checker]] = {
    "gpu": (True, _text),
    "vram_gb": (True, _number(1, 1024)),
    "price_low": (True, _number(0, 10_000)),
    "price_high": (True, _number(0, 10_000)),
    "currency": (True, _pattern(_CURRENCY, "a three-letter currency code like CNY")),
    "date": (True, _date),
    "unverified": (False, _boolean),
}


def _load_platforms(folder: Path) -> list[Platform]:
    file = PLATFORMS_FILE
    data = _read(folder, file)
    platforms: list[Platform] = []
    seen: set[str] = set()
    for position, entry in enumerate(_records(file, data, "platform")):
        label = _entry_label("platform", position, entry if isinstance(entry, dict) else {}, "id")
        values = _build(file, label, entry, _PLATFORM_SPEC)
        if values["id"] in seen:
            raise KnowledgeError(file, label, "id", "is used by an earlier platform")
        seen.add(values["id"])
        if values["kind"] != "paid" and "free_vram_gb" not in values:
            raise KnowledgeError(file, label, "free_vram_gb",
                                 "is missing: a free platform must say how much GPU memory it gives")
        if values["kind"] == "paid" and "rent_vram_gb" not in values:
            raise KnowledgeError(file, label, "rent_vram_gb",
                                 "is missing: a paid platform must say the largest GPU it rents")
        for name in values.get("unverified", ()):
            if name not in values:
                raise KnowledgeError(file, label, "unverified", f"{name!r} is not a field of this platform")
        values.setdefault("unverified", ())
        values["offers"] = tuple(_offers(file, label, values.pop("offer", [])))
        platforms.append(Platform(**values))
    return platforms


def _offers(file: str, label: str, raw: Any) -> list[PlatformOffer]:
    if not isinstance(raw, list):
        raise KnowledgeError(file, label, "offer", f"must be [[platform.offer]] tables, not {type_name(raw)}")
    offers = []
    for position, entry in enumerate(raw):
        where = f"{label} offer[{position}]"
        values = _build(file, where, entry, _OFFER_SPEC)
        if values["price_high"] < values["price_low"]:
            raise KnowledgeError(file, where, "price_high", "is below price_low")
        offers.append(PlatformOffer(**values))
    return offers


_CURRENCY_SPEC: dict[str, tuple[bool, Checker]] = {
    "code": (True, _pattern(_CURRENCY, "a three-letter currency code like CNY")),
    "symbol": (True, _text),
    "name_en": (True, _text),
    "name_zh": (True, _text),
    "max_budget": (True, _number(1, 1e12)),
}
_RATE_SPEC: dict[str, tuple[bool, Checker]] = {
    "base": (True, _pattern(_CURRENCY, "a three-letter currency code like USD")),
    "quote": (True, _pattern(_CURRENCY, "a three-letter currency code like CNY")),
    "rate": (True, _number(1e-6, 1e6)),
    "date": (True, _date),
    "source": (True, _text),
    "unverified": (False, _boolean),
}


def _load_currency(folder: Path) -> tuple[tuple[Currency, ...], tuple[CurrencyRate, ...]]:
    file = CURRENCY_FILE
    data = _read(folder, file)
    currencies: list[Currency] = []
    codes: set[str] = set()
    for position, entry in enumerate(_records(file, data, "currency")):
        label = _entry_label("currency", position, entry if isinstance(entry, dict) else {}, "code")
        values = _build(file, label, entry, _CURRENCY_SPEC)
        if values["code"] in codes:
            raise KnowledgeError(file, label, "code", "is listed twice")
        codes.add(values["code"])
        currencies.append(Currency(**values))
    rates: list[CurrencyRate] = []
    for position, entry in enumerate(_records(file, data, "rate")):
        label = f"rate[{position}]"
        values = _build(file, label, entry, _RATE_SPEC)
        for key in ("base", "quote"):
            if values[key] not in codes:
                raise KnowledgeError(file, label, key, f"{values[key]} is not a listed [[currency]]")
        if values["base"] == values["quote"]:
            raise KnowledgeError(file, label, "quote", "is the same currency as base")
        rates.append(CurrencyRate(**values))
    # Every pair must be convertible, or a budget in one currency could not be compared with
    # a price in another.
    for first in sorted(codes):
        for second in sorted(codes):
            if first < second and not any({r.base, r.quote} == {first, second} for r in rates):
                raise KnowledgeError(file, "", "rate", f"no [[rate]] between {first} and {second}")
    return tuple(currencies), tuple(rates)


_MARKET_HEAD_SPEC: dict[str, tuple[bool, Checker]] = {
    "as_of": (True, _pattern(re.compile(r"^\d{4}-\d{2}-\d{2}$"), "a date like 2026-11-30")),
    "max_price_age_months": (True, _integer(1, 60)),
}
_MARKET_SPEC: dict[str, tuple[bool, Checker]] = {
    "id": (True, _pattern(_ID, "a market id like us or cn")),
    "currency": (True, _pattern(_CURRENCY, "a three-letter currency code like CNY")),
    "name_en": (True, _text),
    "name_zh": (True, _text),
    "convert_from": (False, _pattern(_ID, "a market id like us")),
}
_MARKET_PRICE_SPEC: dict[str, tuple[bool, Checker]] = {
    "gpu": (True, _text),
    "market": (True, _pattern(_ID, "a market id like us or cn")),
    "currency": (True, _pattern(_CURRENCY, "a three-letter currency code like CNY")),
    "condition": (True, _one_of(CONDITIONS)),
    "amount": (True, _number(1, 10_000_000)),
    "low": (False, _number(1, 10_000_000)),
    "date": (True, _pattern(re.compile(r"^\d{4}-\d{2}(-\d{2})?$"), "a month like 2026-01")),
    "source": (True, _text),
    "note": (False, _text),
}
_REST_SPEC: dict[str, tuple[bool, Checker]] = {
    key: _MARKET_PRICE_SPEC[key] for key in ("market", "currency", "amount", "low", "date", "source", "note")
}


def _load_market(folder: Path, gpus: Iterable[CatalogGpu], currencies: Iterable[Currency]) -> MarketData:
    file = MARKET_FILE
    data = _read(folder, file)
    if data.get("schema") != MARKET_SCHEMA:
        raise KnowledgeError(file, "", "schema", f"must be {MARKET_SCHEMA!r}")
    head = _build(file, "", {k: v for k, v in data.items() if k in _MARKET_HEAD_SPEC}, _MARKET_HEAD_SPEC)
    as_of, max_age = head["as_of"], head["max_price_age_months"]
    codes = {c.code for c in currencies}
    markets: list[Market] = []
    for position, entry in enumerate(_records(file, data, "market")):
        label = _entry_label("market", position, entry if isinstance(entry, dict) else {}, "id")
        values = _build(file, label, entry, _MARKET_SPEC)
        if values["currency"] not in codes:
            raise KnowledgeError(file, label, "currency", f"{values['currency']} is not in {CURRENCY_FILE}")
        if any(m.id == values["id"] or m.currency == values["currency"] for m in markets):
            raise KnowledgeError(file, label, "id", "a market with this id or currency is listed already")
        markets.append(Market(**values))
    ids = {m.id for m in markets}
    for position, item in enumerate(markets):
        if item.convert_from is not None and (item.convert_from not in ids or item.convert_from == item.id):
            raise KnowledgeError(file, f'market[{position}] "{item.id}"', "convert_from",
                                 f"{item.convert_from!r} is not another market")
    currency_of = {m.id: m.currency for m in markets}
    names = {g.name for g in gpus}
    for gpu in gpus:
        for market_id in gpu.markets:
            if market_id not in ids:
                raise KnowledgeError(GPU_FILE, f'gpu[{gpu.index}] "{gpu.name}"', "markets",
                                     f"{market_id!r} is not a market in {file}")

    def priced(table: str, spec: dict[str, tuple[bool, Checker]]) -> list[dict[str, Any]]:
        out = []
        raw = data.get(table, [])
        if not isinstance(raw, list):
            raise KnowledgeError(file, "", table, f"must be [[{table}]] tables, not {type_name(raw)}")
        for position, entry in enumerate(raw):
            label = _entry_label(table, position, entry if isinstance(entry, dict) else {}, "gpu")
            values = _build(file, label, entry, spec)
            if values["market"] not in ids:
                raise KnowledgeError(file, label, "market", f"{values['market']!r} is not a [[market]]")
            if values["currency"] != currency_of[values["market"]]:
                raise KnowledgeError(file, label, "currency",
                                     f"prices in market {values['market']!r} are in {currency_of[values['market']]}")
            if "gpu" in values and values["gpu"] not in names:
                raise KnowledgeError(file, label, "gpu", f"{values['gpu']!r} is not a catalog entry in {GPU_FILE}")
            if values.get("low") is not None and values["low"] > values["amount"]:
                raise KnowledgeError(file, label, "low", "is above amount (amount is the upper end)")
            out.append(values)
        return out

    prices = tuple(MarketPrice(**values) for values in priced("price", _MARKET_PRICE_SPEC))
    rest = tuple(RestOfPc(**values) for values in priced("rest_of_pc", _REST_SPEC))
    out = MarketData(as_of=as_of, max_age_months=max_age, markets=tuple(markets), prices=prices,
                     rest_of_pc=rest)
    # A budget in any currency shops somewhere, and a laptop owner's budget must cover a whole PC.
    for code in sorted(codes):
        market = out.for_currency(code)
        if market is None:
            raise KnowledgeError(file, "", "market", f"no [[market]] uses {code}, a currency in {CURRENCY_FILE}")
        if out.rest_of_pc_in(market.id) is None and (
                market.convert_from is None or out.rest_of_pc_in(market.convert_from) is None):
            raise KnowledgeError(file, "", "rest_of_pc",
                                 f"no current [[rest_of_pc]] for market {market.id!r} (as of {as_of})")
    return out
