"""What a card costs a buyer today, per market (content/market.toml).

Specs live in the catalog; prices live here because they age in months, not years. A price is
"current" only when it is at most `max_age_months` older than the content's `as_of` date, so a
2022 launch price or a 2025 street price can never be offered as today's. The same limit,
counted back from the day gpu-wizard runs (`out_of_date`), says when content that was current
when it shipped has aged since: the advice then gives such a price with its date as history.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from wizard.schema import CURRENCY_CODE, KEBAB_ID, rule

MARKET_FILE = "market.toml"
MARKET_SCHEMA = "gpu-wizard/market/1"
CONDITIONS = ("new", "used")
# How far a price can be trusted: "high" a shop's or maker's own price, or a tracker that names
# its listings; "medium" a third party's aggregate of listings or channel quotes; "low" blogs,
# forum reports or a single listing.
RELIABILITY = ("high", "medium", "low")
# What kind of Mac a [[mac_price]] is: a desktop (Mac mini, Mac Studio) or a laptop (MacBook).
MAC_FORMS = ("desktop", "laptop")

# The fields' rules, as content/market.toml must hold them (wizard.schema reads the file).
_MARKET_ID = rule(pattern=KEBAB_ID, what="a market id like us or cn")
_CURRENCY = rule(pattern=CURRENCY_CODE, what="a three-letter currency code like CNY")
_AMOUNT = rule(low=1, high=10_000_000)
_MONTH = rule(pattern=r"\d{4}-\d{2}(-\d{2})?", what="a month like 2026-01")
_RELIABILITY = rule(choices=RELIABILITY)


@dataclass(frozen=True)
class Market:
    id: str = field(metadata=_MARKET_ID)   # "us", "cn" (mainland China)
    currency: str = field(metadata=_CURRENCY)
    name_en: str
    name_zh: str
    # Where a converted price may come from when this market has none of its own.
    convert_from: str | None = field(default=None, metadata=rule(pattern=KEBAB_ID, what="a market id like us"))

    def name(self, lang: str) -> str:
        return self.name_zh if lang == "zh" else self.name_en


@dataclass(frozen=True)
class MarketPrice:
    gpu: str
    market: str = field(metadata=_MARKET_ID)
    currency: str = field(metadata=_CURRENCY)
    condition: str = field(metadata=rule(choices=CONDITIONS))
    amount: float = field(metadata=_AMOUNT)   # the upper end of what the source reports
    date: str = field(metadata=_MONTH)        # "2026-01"
    source: str
    reliability: str = field(metadata=_RELIABILITY)
    low: float | None = field(default=None, metadata=_AMOUNT)   # the low end of a range
    note: str = ""


@dataclass(frozen=True)
class LaptopPrice:
    """What a whole laptop with this GPU costs in one market: a dated range (or the one average
    a source gives), always an estimate: the same GPU comes in laptops of every price and power."""

    gpu: str                                   # a catalog entry of segment "laptop"
    market: str = field(metadata=_MARKET_ID)
    currency: str = field(metadata=_CURRENCY)
    amount: float = field(metadata=_AMOUNT)    # the upper end, or the one figure reported
    date: str = field(metadata=_MONTH)
    source: str
    reliability: str = field(metadata=_RELIABILITY)
    low: float | None = field(default=None, metadata=_AMOUNT)   # the low end of the range
    estimate: bool = True
    note: str = ""


@dataclass(frozen=True)
class NoLaptopPrice:
    """A laptop GPU and market for which no dated laptop price was found: said, not left out."""

    gpu: str
    market: str = field(metadata=_MARKET_ID)
    checked: str = field(metadata=_MONTH)      # when it was looked for
    note: str                                   # what was looked for


@dataclass(frozen=True)
class MacPrice:
    """What one Mac configuration costs new from Apple in one market: a whole computer whose
    GPU shares `memory_gb` of unified memory (the advice works out the GPU's usable share)."""

    model: str                                  # "Mac Studio", "Mac mini", "MacBook Pro 14-inch"
    chip: str                                   # the catalog name in gpus.toml: "Apple M4 Max"
    memory_gb: int = field(metadata=rule(low=8, high=1024))
    form: str = field(metadata=rule(choices=MAC_FORMS))
    market: str = field(metadata=_MARKET_ID)
    currency: str = field(metadata=_CURRENCY)
    amount: float = field(metadata=_AMOUNT)     # the list price (upper end, as for cards)
    date: str = field(metadata=_MONTH)
    source: str
    reliability: str = field(metadata=_RELIABILITY)
    low: float | None = field(default=None, metadata=_AMOUNT)
    config: str = ""                            # the rest of the configuration: cores, SSD
    note: str = ""

    def label(self) -> str:
        """ "Mac Studio (M3 Ultra, 96 GB)": what the advice calls this Mac."""
        return f"{self.model} ({self.chip.removeprefix('Apple ')}, {self.memory_gb} GB)"


@dataclass(frozen=True)
class NoMacPrice:
    """A market and kind of Mac for which no current, citable price was found: said, not left out."""

    market: str = field(metadata=_MARKET_ID)
    form: str = field(metadata=rule(choices=MAC_FORMS))
    checked: str = field(metadata=_MONTH)
    note: str


@dataclass(frozen=True)
class RestOfPc:
    """The cost of a desktop PC without its GPU, in one market."""

    market: str = field(metadata=_MARKET_ID)
    currency: str = field(metadata=_CURRENCY)
    amount: float = field(metadata=_AMOUNT)
    date: str = field(metadata=_MONTH)
    source: str
    reliability: str = field(metadata=_RELIABILITY)
    low: float | None = field(default=None, metadata=_AMOUNT)
    note: str = ""


@dataclass(frozen=True)
class MarketData:
    as_of: str
    max_age_months: int
    markets: tuple[Market, ...]
    prices: tuple[MarketPrice, ...]
    rest_of_pc: tuple[RestOfPc, ...]
    laptop_prices: tuple[LaptopPrice, ...] = ()
    no_laptop_prices: tuple[NoLaptopPrice, ...] = ()
    mac_prices: tuple[MacPrice, ...] = ()
    no_mac_prices: tuple[NoMacPrice, ...] = ()

    def market(self, market_id: str) -> Market:
        for item in self.markets:
            if item.id == market_id:
                return item
        raise KeyError(f"unknown market {market_id!r}")

    def for_currency(self, currency: str) -> Market | None:
        """The market a budget in `currency` shops in: CNY → mainland China, USD → the US."""
        return next((item for item in self.markets if item.currency == currency), None)

    def is_current(self, date: str) -> bool:
        return months_between(date, self.as_of) <= self.max_age_months

    def current_prices(self, gpu: str, market_id: str) -> tuple[MarketPrice, ...]:
        return tuple(p for p in self.prices
                     if p.gpu == gpu and p.market == market_id and self.is_current(p.date))

    def rest_of_pc_in(self, market_id: str) -> RestOfPc | None:
        current = [r for r in self.rest_of_pc if r.market == market_id and self.is_current(r.date)]
        return max(current, key=lambda r: r.date, default=None)

    def laptop_prices_of(self, gpu: str, market_id: str) -> tuple[LaptopPrice, ...]:
        """The current laptop price ranges for `gpu` in a market, newest first."""
        found = [p for p in self.laptop_prices
                 if p.gpu == gpu and p.market == market_id and self.is_current(p.date)]
        return tuple(sorted(found, key=lambda p: p.date, reverse=True))

    def mac_prices_in(self, market_id: str, form: str) -> tuple[MacPrice, ...]:
        """The current Mac prices of one kind in a market: the newest row of each configuration
        (model, chip, memory), smallest memory first."""
        newest: dict[tuple[str, str, int], MacPrice] = {}
        for p in self.mac_prices:
            if p.market == market_id and p.form == form and self.is_current(p.date):
                key = (p.model, p.chip, p.memory_gb)
                if key not in newest or (p.date, p.amount) > (newest[key].date, newest[key].amount):
                    newest[key] = p
        return tuple(sorted(newest.values(), key=lambda p: (p.memory_gb, p.amount, p.model)))

    def no_mac_price(self, market_id: str, form: str) -> NoMacPrice | None:
        return next((n for n in self.no_mac_prices if n.market == market_id and n.form == form), None)

    def out_of_date(self, date: str, now: dt.date | None = None) -> bool:
        """True when a price dated `date` is older than the age limit on the day `now`
        (default: today): content that was current when it shipped but has aged since."""
        today = now or dt.date.today()
        return months_between(date, today.isoformat()) > self.max_age_months


def months_between(earlier: str, later: str) -> int:
    """Whole months from `earlier` to `later` ("2025-05" → "2026-11-30" is 18); a bare year
    counts as its January, so a year-only date is never treated as more recent than it is."""
    def month_index(text: str) -> int:
        parts = text.split("-")
        year = int(parts[0])
        month = int(parts[1]) if len(parts) > 1 else 1
        return year * 12 + month - 1
    return month_index(later) - month_index(earlier)


def round_converted(amount: float) -> float:
    """A converted price never looks more exact than the rate it came through: ¥4,473 → ¥4,500."""
    step = 100 if amount >= 1000 else 10
    return float(round(amount / step) * step)
