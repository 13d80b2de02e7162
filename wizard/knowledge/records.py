"""The records content/*.toml describe (GPU catalog, goals, cloud platforms, currencies), each
field declared once with the rules its file must hold (wizard.schema), and `Knowledge`, all
of them loaded, with its lookups and money conversion.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wizard.advise.market import MarketData, MarketPrice, RestOfPc, round_converted
from wizard.knowledge.entries import DATE, currency_rule, id_rule
from wizard.knowledge.goals import Currency, CurrencyRate, Goal, GoalsAndCurrencies
from wizard.schema import KEBAB_ID, rule

SEGMENTS = ("desktop", "laptop", "workstation", "datacenter")
VENDORS = ("nvidia", "amd", "intel", "apple")
CONFIDENCE = ("high", "medium", "low")
PLATFORM_KINDS = ("free", "free-trial", "paid")
# How a student in mainland China reaches a platform: directly, only through a VPN, slowly,
# or not known. Kept as data so the ranking can prefer what works without a VPN.
CN_ACCESS = ("direct", "vpn", "slow", "unknown")
PLATFORM_REGIONS = ("cn", "global")
LANGS = ("en", "zh")

# The rules fields share.
_PCI_HEX = r"0x[0-9a-f]{4}"
_GPU_WATTS = rule(low=5, high=2_000)
_TFLOPS = rule(low=1, high=10_000)
_VRAM = rule(low=1, high=1024)          # a platform's GPU


@dataclass(frozen=True)
class Price:
    """Today's price in one market, with where and when it comes from, so the UI can say
    "about $1,200 (street price, 2026-01)". Worked out, never read from a file."""

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
    reliability: str = "high"           # market.toml's: high, medium (aggregates), low (blogs)


@dataclass(frozen=True)
class CatalogGpu:
    """One [[gpu]] of gpus.toml."""

    index: int = field(metadata=rule(read=False))   # its position in the file
    name: str
    vendor: str = field(metadata=rule(choices=VENDORS))
    family: str
    segment: str = field(metadata=rule(choices=SEGMENTS))
    architecture: str
    vram_gb: float = field(metadata=rule(low=0.5, high=2048))
    launch_year: int = field(metadata=rule(low=2010, high=2030))
    confidence: str = field(metadata=rule(choices=CONFIDENCE))
    source: str
    notes: str = field(default="", metadata=rule(blank=True))
    compute_capability: str | None = field(
        default=None, metadata=rule(pattern=r"\d{1,2}\.\d", what="a compute capability like 8.9"))
    gfx_target: str | None = field(
        default=None, metadata=rule(pattern=r"gfx[0-9a-f]{3,4}", what="a ROCm target like gfx1100"))
    memory_bandwidth_gbs: float | None = field(default=None, metadata=rule(low=10, high=20_000))
    fp32_tflops: float | None = field(default=None, metadata=rule(low=0.1, high=1_000))
    fp16_tensor_tflops: float | None = field(default=None, metadata=_TFLOPS)
    fp16_tensor_fp16acc_tflops: float | None = field(default=None, metadata=_TFLOPS)
    tdp_w: int | None = field(default=None, metadata=_GPU_WATTS)
    tdp_w_min: int | None = field(default=None, metadata=_GPU_WATTS)
    tdp_w_max: int | None = field(default=None, metadata=_GPU_WATTS)
    launch_price_usd: int | None = field(default=None, metadata=rule(low=1, high=100_000))
    launch_price_cny: int | None = field(default=None, metadata=rule(low=1, high=1_000_000))
    launch_price_cny_source: str | None = None
    launch_date: str | None = field(default=None, metadata=DATE)
    # Where it is sold new: "us", "cn".
    markets: tuple[str, ...] = field(
        default=(), metadata=rule(items=rule(pattern=KEBAB_ID, what="a market id like us or cn")))
    discontinued: bool = False
    availability_source: str | None = None
    pci_vendor_id: str | None = field(
        default=None, metadata=rule(pattern=_PCI_HEX, what="a PCI vendor id like 0x10de"))
    pci_device_ids: tuple[str, ...] = field(
        default=(), metadata=rule(items=rule(pattern=_PCI_HEX, what="a PCI device id like 0x2684")))
    vram_gb_options: tuple[int, ...] = field(default=(), metadata=rule(items=rule(low=1, high=2048)))
    unified_memory_gb_options: tuple[int, ...] = field(default=(), metadata=rule(items=rule(low=1, high=2048)))
    gpu_cores: tuple[int, ...] = field(default=(), metadata=rule(items=rule(low=1, high=100_000)))
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


@dataclass(frozen=True)
class PlatformOffer:
    """A sourced rental price: `gpu` for price_low..price_high `currency` per hour, as of `date`."""

    gpu: str
    vram_gb: float = field(metadata=_VRAM)
    price_low: float = field(metadata=rule(low=0, high=10_000))
    price_high: float = field(metadata=rule(low=0, high=10_000))
    currency: str = field(metadata=currency_rule("CNY"))
    date: str = field(metadata=DATE)
    unverified: bool = False


@dataclass(frozen=True)
class Platform:
    """One [[platform]] of platforms.toml, with its [[platform.offer]] entries."""

    id: str = field(metadata=id_rule("kaggle"))
    name: str
    provider: str
    url: str = field(metadata=rule(pattern=r"https?://\S+", what="an http(s) address"))
    kind: str = field(metadata=rule(choices=PLATFORM_KINDS))
    region: str = field(metadata=rule(choices=PLATFORM_REGIONS))   # where it is hosted
    cn_access: str = field(metadata=rule(choices=CN_ACCESS))       # how it is reached from mainland China
    gpus: tuple[str, ...]
    free_quota: str
    session_limit: str
    region_notes: str
    needs: str
    notes: str = field(metadata=rule(blank=True))
    summary_en: str
    summary_zh: str
    source: str
    # It can carry words ("2021-2022 (README versions); ..."), but starts with the year, so the
    # UI can always show how old the fact is.
    checked: str = field(metadata=rule(pattern=r"(?s)\d{4}.*",
                                       what="text that starts with the year it was checked"))
    name_zh: str = ""
    # The best single GPU the free quota gives (free / free-trial).
    free_vram_gb: float | None = field(default=None, metadata=_VRAM)
    # The largest single GPU one can pay for there.
    rent_vram_gb: float | None = field(default=None, metadata=_VRAM)
    paid_options: str = ""
    offers: tuple[PlatformOffer, ...] = field(default=(), metadata=rule(key="offer"))
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
class Knowledge(GoalsAndCurrencies):
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
        """The catalog entry for a name as NVML, nvidia-smi, lspci or system_profiler print it.

        "NVIDIA GeForce RTX 4060 Laptop GPU" → "GeForce RTX 4060 Laptop GPU"; "NVIDIA A100-SXM4-80GB"
        → "A100 80GB (SXM4)". A laptop part never matches a desktop entry. Some laptop parts carry the
        desktop name in NVML ("NVIDIA GeForce GTX 1650" on a laptop): pass `laptop=True` (the probe's
        `Gpu.laptop`) and only laptop entries match. When the name leaves the memory size open
        ("RTX 4060 Ti" is 8 or 16 GB), `vram_gb` picks the variant; without it the smallest is
        returned. None when nothing matches.
        """
        if not name or not name.strip():
            return None
        words = model_words(name)
        hit = self._match(words, vram_gb)
        if laptop and hit is not None and not hit.is_laptop and hit.vendor != "apple":
            # Never describe a laptop part with desktop specs: its own entry, or nothing.
            return self._match(words | {"laptop"}, vram_gb)
        return hit

    def _match(self, words: frozenset[str], vram_gb: float | None) -> CatalogGpu | None:
        exact, sizeless = self._name_index()
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

    def _name_index(self) -> tuple[dict[frozenset[str], CatalogGpu], dict[frozenset[str], list[CatalogGpu]]]:
        cached = self._indexes.get("names")
        if cached is not None:
            return cached
        exact: dict[frozenset[str], CatalogGpu] = {}
        sizeless: dict[frozenset[str], list[CatalogGpu]] = {}
        for gpu in self.gpus:
            for label in (gpu.name, *gpu.aliases):
                exact.setdefault(model_words(label), gpu)
            base = frozenset(word for word in model_words(gpu.name) if not _SIZE.match(word))
            sizeless.setdefault(base, []).append(gpu)
        self._indexes["names"] = (exact, sizeless)
        return exact, sizeless

    def by_pci_id(self) -> dict[str, CatalogGpu]:
        """Catalog entries keyed "10de:2684" (lower-case hex); where one PCI id covers several
        models, the one with the least VRAM (`gpus_for_pci_id` gives all of them). Built once."""
        cached = self._indexes.get("pci")
        if cached is not None:
            return cached
        index: dict[str, CatalogGpu] = {}
        for gpu in self.gpus:
            for pci_id in gpu.pci_ids:
                current = index.get(pci_id)
                if current is None or gpu.vram_gb < current.vram_gb:
                    index[pci_id] = gpu
        self._indexes["pci"] = index
        return index

    def gpus_for_pci_id(self, pci_id: str) -> tuple[CatalogGpu, ...]:
        key = _normal_pci_id(pci_id)
        return tuple(gpu for gpu in self.gpus if key in gpu.pci_ids)

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
                         market=market_id, low=offer.low, reliability=offer.reliability)
        try:
            amount, rate = self.convert(offer.amount, offer.currency, currency)
        except KeyError:
            return None
        low = round_converted(self.convert(offer.low, offer.currency, currency)[0]) if offer.low else None
        return Price(round_converted(amount), currency, kind, offer.date, offer.source, approximate=True,
                     market=market_id, low=low, converted_from=offer.currency,
                     converted_market=offer.market, rate_date=rate.date, reliability=offer.reliability)


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


def _normal_pci_id(pci_id: str) -> str:
    vendor, _, device = pci_id.strip().lower().partition(":")
    vendor = vendor.removeprefix("0x")
    device = device.removeprefix("0x")
    return f"{vendor}:{device}"


def _newest(offers: list[MarketPrice]) -> MarketPrice | None:
    """The latest observation wins (prices moved monthly in 2026); within a month, the higher
    one, so advice never promises a card cheaper than people paid."""
    return max(offers, key=lambda p: (p.date, p.amount), default=None)
