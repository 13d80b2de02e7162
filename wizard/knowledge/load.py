"""Reading content/*.toml into `Knowledge`, checking every entry on the way.

Each entry is read against its record's declaration (wizard.knowledge.records, .goals,
wizard.advise.market) by wizard.knowledge.entries; what one field cannot say alone is checked here:
fields that depend on each other, names used twice, references to another entry or file (the
goals and currencies in wizard.knowledge.goals, which a roster reads alone). The first problem
raises `KnowledgeError` naming the file, the entry (`gpu[12] "GeForce RTX 4060"`), the field and
the reason.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from wizard.advise.market import (
    MARKET_FILE,
    MARKET_SCHEMA,
    LaptopPrice,
    MacPrice,
    Market,
    MarketData,
    MarketPrice,
    NoLaptopPrice,
    NoMacPrice,
    RestOfPc,
)
from wizard.knowledge.content import content_dir
from wizard.knowledge.damaged import KnowledgeError
from wizard.knowledge.entries import check_unverified, entry_label, read_entry, read_file, records_of, unique_entries
from wizard.knowledge.goals import CURRENCY_FILE, GOALS_FILE, load_currency, load_goals
from wizard.knowledge.records import CatalogGpu, Currency, Knowledge, Platform, model_words
from wizard.schema import rule, type_name

GPU_FILE = "gpus.toml"
PLATFORMS_FILE = "platforms.toml"
__all__ = ["CURRENCY_FILE", "GOALS_FILE", "GPU_FILE", "PLATFORMS_FILE", "load_knowledge"]


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
    goals = tuple(load_goals(folder))
    platforms = tuple(_load_platforms(folder))
    currencies, rates = load_currency(folder)
    market = _load_market(folder, gpus, currencies)
    return Knowledge(gpus=gpus, goals=goals, platforms=platforms, currencies=currencies,
                     rates=rates, market=market, folder=folder)


# ---------------------------------------------------------------------------------------------
# The files


_VENDOR_PCI = {"nvidia": "0x10de", "amd": "0x1002", "intel": "0x8086"}
_GPU_FIELDS = frozenset(f.name for f in dataclasses.fields(CatalogGpu) if f.metadata.get("read", True))


def _load_gpus(folder: Path) -> list[CatalogGpu]:
    file = GPU_FILE
    data = read_file(folder, file)
    gpus: list[CatalogGpu] = []
    seen: dict[frozenset[str], str] = {}
    for position, entry in enumerate(records_of(file, data, "gpu")):
        label = entry_label("gpu", position, entry, "name")
        gpu = read_entry(CatalogGpu, file, label, entry, index=position)
        _check_gpu(file, label, entry)
        for text in (gpu.name, *gpu.aliases):
            key = model_words(text)
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
    """What one field cannot say alone; `values` is the entry, already read as a CatalogGpu."""
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
    check_unverified(file, label, values, "marked unverified but has no value", _GPU_FIELDS)


def _load_platforms(folder: Path) -> list[Platform]:
    file = PLATFORMS_FILE
    data = read_file(folder, file)
    platforms: list[Platform] = []
    for label, entry, platform in unique_entries(Platform, file, data, "platform", "id",
                                                 "is used by an earlier platform"):
        if platform.kind != "paid" and platform.free_vram_gb is None:
            raise KnowledgeError(file, label, "free_vram_gb",
                                 "is missing: a free platform must say how much GPU memory it gives")
        if platform.kind == "paid" and platform.rent_vram_gb is None:
            raise KnowledgeError(file, label, "rent_vram_gb",
                                 "is missing: a paid platform must say the largest GPU it rents")
        check_unverified(file, label, entry, "not a field of this platform")
        for number, offer in enumerate(platform.offers):
            if offer.price_high < offer.price_low:
                raise KnowledgeError(file, f"{label} offer[{number}]", "price_high", "is below price_low")
        platforms.append(platform)
    return platforms


@dataclass(frozen=True)
class _MarketHead:
    """market.toml's own keys: how old a price may be, counted back from when."""

    as_of: str = field(metadata=rule(pattern=r"\d{4}-\d{2}-\d{2}", what="a date like 2026-11-30"))
    max_price_age_months: int = field(metadata=rule(low=1, high=60))


def _load_market(folder: Path, gpus: Iterable[CatalogGpu], currencies: Iterable[Currency]) -> MarketData:
    file = MARKET_FILE
    data = read_file(folder, file)
    if data.get("schema") != MARKET_SCHEMA:
        raise KnowledgeError(file, "", "schema", f"must be {MARKET_SCHEMA!r}")
    head_fields = {f.name for f in dataclasses.fields(_MarketHead)}
    head = read_entry(_MarketHead, file, "", {k: v for k, v in data.items() if k in head_fields})
    codes = {c.code for c in currencies}
    markets: list[Market] = []
    for position, entry in enumerate(records_of(file, data, "market")):
        label = entry_label("market", position, entry, "id")
        market = read_entry(Market, file, label, entry)
        if market.currency not in codes:
            raise KnowledgeError(file, label, "currency", f"{market.currency} is not in {CURRENCY_FILE}")
        if any(m.id == market.id or m.currency == market.currency for m in markets):
            raise KnowledgeError(file, label, "id", "a market with this id or currency is listed already")
        markets.append(market)
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

    def priced(table: str, cls: type, name_key: str = "gpu") -> list[Any]:
        out = []
        raw = data.get(table, [])
        if not isinstance(raw, list):
            raise KnowledgeError(file, "", table, f"must be [[{table}]] tables, not {type_name(raw)}")
        for position, entry in enumerate(raw):
            label = entry_label(table, position, entry, name_key)
            item = read_entry(cls, file, label, entry)
            if item.market not in ids:
                raise KnowledgeError(file, label, "market", f"{item.market!r} is not a [[market]]")
            if item.currency != currency_of[item.market]:
                raise KnowledgeError(file, label, "currency",
                                     f"prices in market {item.market!r} are in {currency_of[item.market]}")
            if isinstance(item, (MarketPrice, LaptopPrice)) and item.gpu not in names:
                raise KnowledgeError(file, label, "gpu", f"{item.gpu!r} is not a catalog entry in {GPU_FILE}")
            if isinstance(item, LaptopPrice) and item.gpu not in laptops:
                raise KnowledgeError(file, label, "gpu", f"{item.gpu!r} is not a laptop GPU (segment \"laptop\")")
            if isinstance(item, LaptopPrice) and not item.estimate:
                raise KnowledgeError(file, label, "estimate", "must be true: a laptop price is a range of models")
            if item.low is not None and item.low > item.amount:
                raise KnowledgeError(file, label, "low", "is above amount (amount is the upper end)")
            out.append(item)
        return out

    laptops = {g.name for g in gpus if g.segment == "laptop"}
    laptop_prices = tuple(priced("laptop_price", LaptopPrice))
    missing = _unpriced(file, data, "no_laptop_price", NoLaptopPrice, "gpu", ids,
                        lambda item: any(p.gpu == item.gpu and p.market == item.market for p in laptop_prices),
                        "has a [[laptop_price]] in this market as well")
    for position, item in enumerate(missing):
        if item.gpu not in laptops:
            label = entry_label("no_laptop_price", position, data["no_laptop_price"][position], "gpu")
            raise KnowledgeError(file, label, "gpu", f"{item.gpu!r} is not a laptop GPU (segment \"laptop\")")
    mac_prices, no_mac_prices = _load_macs(file, data, gpus, priced("mac_price", MacPrice, "model"), ids)
    out = MarketData(as_of=head.as_of, max_age_months=head.max_price_age_months, markets=tuple(markets),
                     prices=tuple(priced("price", MarketPrice)), rest_of_pc=tuple(priced("rest_of_pc", RestOfPc)),
                     laptop_prices=laptop_prices, no_laptop_prices=tuple(missing),
                     mac_prices=mac_prices, no_mac_prices=no_mac_prices)
    # A budget in any currency shops somewhere, and a laptop owner's budget must cover a whole PC.
    for code in sorted(codes):
        market = out.for_currency(code)
        if market is None:
            raise KnowledgeError(file, "", "market", f"no [[market]] uses {code}, a currency in {CURRENCY_FILE}")
        if out.rest_of_pc_in(market.id) is None and (
                market.convert_from is None or out.rest_of_pc_in(market.convert_from) is None):
            raise KnowledgeError(file, "", "rest_of_pc",
                                 f"no current [[rest_of_pc]] for market {market.id!r} (as of {head.as_of})")
    return out


def _load_macs(file: str, data: dict[str, Any], gpus: Iterable[CatalogGpu], prices: list[MacPrice],
               markets: set[str]) -> tuple[tuple[MacPrice, ...], tuple[NoMacPrice, ...]]:
    """[[mac_price]] (read as every price is: market, currency, range) and [[no_mac_price]]:
    Macs as a purchase, each an Apple chip of the catalog with one of its memory sizes, priced in
    a market's own currency (never converted: Apple sets each country's price itself); a market
    and kind of Mac is priced or said to have no price."""
    apple = {g.name: g for g in gpus if g.vendor == "apple"}
    for position, item in enumerate(prices):
        label = entry_label("mac_price", position, data["mac_price"][position], "model")
        chip = apple.get(item.chip)
        if chip is None:
            raise KnowledgeError(file, label, "chip", f"{item.chip!r} is not an Apple chip in {GPU_FILE}")
        if chip.unified_memory_gb_options and item.memory_gb not in chip.unified_memory_gb_options:
            raise KnowledgeError(file, label, "memory_gb", f"{item.memory_gb} GB is not a memory size of the "
                                 f"{item.chip} ({', '.join(str(n) for n in chip.unified_memory_gb_options)})")
    missing = _unpriced(file, data, "no_mac_price", NoMacPrice, "market", markets,
                        lambda none: any(p.market == none.market and p.form == none.form for p in prices),
                        "a Mac of this form has a [[mac_price]] in this market as well", field="form")
    return tuple(prices), tuple(missing)


def _unpriced(file: str, data: dict[str, Any], table: str, cls: type, name_key: str, markets: set[str],
              priced_too: Callable[[Any], bool], twice: str, field: str | None = None) -> list[Any]:
    """A [[no_..._price]] table: what was looked for and not found in a market, said rather than
    left out; never beside a price for the same thing in the same market."""
    out = []
    for position, entry in enumerate(records_of(file, data, table)):
        label = entry_label(table, position, entry, name_key)
        item = read_entry(cls, file, label, entry)
        if item.market not in markets:
            raise KnowledgeError(file, label, "market", f"{item.market!r} is not a [[market]]")
        if priced_too(item):
            raise KnowledgeError(file, label, field or name_key, twice)
        out.append(item)
    return out
