"""Reading content/*.toml into `Knowledge`, checking every entry on the way.

Each entry is read against its record's declaration (wizard.knowledge.records, wizard.market)
by wizard.schema; what one field cannot say alone is checked here: fields that depend on each
other, names used twice, references to another entry or file. The first problem raises
`KnowledgeError` naming the file, the entry (`gpu[12] "GeForce RTX 4060"`), the field and the
reason.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from wizard.content import ContentError, content_dir, read_toml
from wizard.knowledge.lookup import model_words
from wizard.knowledge.records import AnswerRules, CatalogGpu, Currency, CurrencyRate, Goal, Knowledge, Platform
from wizard.market import MARKET_FILE, MARKET_SCHEMA, Market, MarketData, MarketPrice, RestOfPc
from wizard.schema import CONTENT, Problem, RecordError, key_path, read_record, rule, type_name

GPU_FILE = "gpus.toml"
GOALS_FILE = "goals.toml"
PLATFORMS_FILE = "platforms.toml"
CURRENCY_FILE = "currency.toml"


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


@cache
def load_answer_rules() -> AnswerRules:
    """The installed goals and currencies alone, checked as load_knowledge checks them; the
    whole knowledge when it is loaded already."""
    if _default_knowledge.cache_info().currsize:
        knowledge = _default_knowledge()
        return AnswerRules(goals=knowledge.goals, currencies=knowledge.currencies)
    folder = content_dir()
    currencies, _rates = _load_currency(folder)
    return AnswerRules(goals=tuple(_load_goals(folder)), currencies=currencies)


def _load(folder: Path) -> Knowledge:
    gpus = tuple(_load_gpus(folder))
    goals = tuple(_load_goals(folder))
    platforms = tuple(_load_platforms(folder))
    currencies, rates = _load_currency(folder)
    market = _load_market(folder, gpus, currencies)
    return Knowledge(gpus=gpus, goals=goals, platforms=platforms, currencies=currencies,
                     rates=rates, market=market, folder=folder)


# ---------------------------------------------------------------------------------------------
# Reading entries


def _read(folder: Path, name: str) -> dict[str, Any]:
    try:
        return read_toml(folder / name, name)
    except ContentError as exc:
        raise KnowledgeError(name, "", "", exc.reason) from None


def _records(file: str, data: dict[str, Any], table: str) -> list[Any]:
    records = data.get(table)
    if not isinstance(records, list) or not records:
        raise KnowledgeError(file, "", table, f"needs at least one [[{table}]] entry")
    return records


def _unique(cls: type, file: str, data: dict[str, Any], table: str, key: str,
            twice: str) -> Iterator[tuple[str, Any, Any]]:
    """(label, raw table, record) for each [[table]] entry read as `cls`; a `key` that an earlier
    entry has already is an error (`twice` says so)."""
    seen: set[Any] = set()
    for position, entry in enumerate(_records(file, data, table)):
        label = _entry_label(table, position, entry, key)
        record = _entry(cls, file, label, entry)
        if getattr(record, key) in seen:
            raise KnowledgeError(file, label, key, twice)
        seen.add(getattr(record, key))
        yield label, entry, record


def _entry_label(kind: str, position: int, entry: Any, key: str) -> str:
    value = entry.get(key) if isinstance(entry, dict) else None
    return f'{kind}[{position}] "{value}"' if isinstance(value, str) else f"{kind}[{position}]"


def _entry(cls: type, file: str, label: str, entry: Any, **given: Any) -> Any:
    """One entry read as `cls`; its first problem raised as a KnowledgeError."""
    try:
        return read_record(cls, entry, CONTENT, **given)
    except RecordError as exc:
        raise _error(file, label, exc.problems[0]) from None


def _error(file: str, label: str, problem: Problem) -> KnowledgeError:
    """A problem inside an entry, named the way a person looks for it in the file: a table
    inside the entry joins the entry (`platform[3] "autodl" offer[0]`), the last key is the field."""
    *inside, last = problem.path or ("",)
    if isinstance(last, int):
        inside, last = [*inside, last], ""
    entry = " ".join(part for part in (label, key_path(tuple(inside))) if part)
    return KnowledgeError(file, entry, last, problem.reason)


def _unverified(file: str, label: str, entry: dict[str, Any], what: str, fields: Iterable[str] = ()) -> None:
    """Each name in `unverified` must be a field that has a value in this entry."""
    known = set(fields)
    for name in entry.get("unverified", ()):
        if known and name not in known:
            raise KnowledgeError(file, label, "unverified", f"{name!r} is not a field")
        if name not in entry:
            raise KnowledgeError(file, label, "unverified", f"{name!r} is {what}")


# ---------------------------------------------------------------------------------------------
# The files


_VENDOR_PCI = {"nvidia": "0x10de", "amd": "0x1002", "intel": "0x8086"}
_GPU_FIELDS = frozenset(f.name for f in dataclasses.fields(CatalogGpu) if f.metadata.get("read", True))


def _load_gpus(folder: Path) -> list[CatalogGpu]:
    file = GPU_FILE
    data = _read(folder, file)
    gpus: list[CatalogGpu] = []
    seen: dict[frozenset[str], str] = {}
    for position, entry in enumerate(_records(file, data, "gpu")):
        label = _entry_label("gpu", position, entry, "name")
        gpu = _entry(CatalogGpu, file, label, entry, index=position)
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
    _unverified(file, label, values, "marked unverified but has no value", _GPU_FIELDS)


def _load_goals(folder: Path) -> list[Goal]:
    file = GOALS_FILE
    data = _read(folder, file)
    goals: list[Goal] = []
    for label, entry, goal in _unique(Goal, file, data, "goal", "id", "is used by an earlier goal"):
        if goal.comfortable_vram_gb < goal.min_vram_gb:
            raise KnowledgeError(file, label, "comfortable_vram_gb", "is below min_vram_gb")
        if len(goal.examples_en) != len(goal.examples_zh):
            raise KnowledgeError(file, label, "examples_zh", "must have as many examples as examples_en")
        if ("multi_gpu_note_en" in entry) != ("multi_gpu_note_zh" in entry):
            raise KnowledgeError(file, label, "multi_gpu_note_zh", "the note must exist in both languages")
        _unverified(file, label, entry, "not a field of this goal")
        goals.append(goal)
    return goals


def _load_platforms(folder: Path) -> list[Platform]:
    file = PLATFORMS_FILE
    data = _read(folder, file)
    platforms: list[Platform] = []
    for label, entry, platform in _unique(Platform, file, data, "platform", "id", "is used by an earlier platform"):
        if platform.kind != "paid" and platform.free_vram_gb is None:
            raise KnowledgeError(file, label, "free_vram_gb",
                                 "is missing: a free platform must say how much GPU memory it gives")
        if platform.kind == "paid" and platform.rent_vram_gb is None:
            raise KnowledgeError(file, label, "rent_vram_gb",
                                 "is missing: a paid platform must say the largest GPU it rents")
        _unverified(file, label, entry, "not a field of this platform")
        for number, offer in enumerate(platform.offers):
            if offer.price_high < offer.price_low:
                raise KnowledgeError(file, f"{label} offer[{number}]", "price_high", "is below price_low")
        platforms.append(platform)
    return platforms


def _load_currency(folder: Path) -> tuple[tuple[Currency, ...], tuple[CurrencyRate, ...]]:
    file = CURRENCY_FILE
    data = _read(folder, file)
    currencies = [currency for _, _, currency in _unique(Currency, file, data, "currency", "code", "is listed twice")]
    codes = {currency.code for currency in currencies}
    rates: list[CurrencyRate] = []
    for position, entry in enumerate(_records(file, data, "rate")):
        label = f"rate[{position}]"
        rate = _entry(CurrencyRate, file, label, entry)
        for key in ("base", "quote"):
            if getattr(rate, key) not in codes:
                raise KnowledgeError(file, label, key, f"{getattr(rate, key)} is not a listed [[currency]]")
        if rate.base == rate.quote:
            raise KnowledgeError(file, label, "quote", "is the same currency as base")
        rates.append(rate)
    # Every pair must be convertible, or a budget in one currency could not be compared with
    # a price in another.
    for first in sorted(codes):
        for second in sorted(codes):
            if first < second and not any({r.base, r.quote} == {first, second} for r in rates):
                raise KnowledgeError(file, "", "rate", f"no [[rate]] between {first} and {second}")
    return tuple(currencies), tuple(rates)


@dataclass(frozen=True)
class _MarketHead:
    """market.toml's own keys: how old a price may be, counted back from when."""

    as_of: str = field(metadata=rule(pattern=r"\d{4}-\d{2}-\d{2}", what="a date like 2026-11-30"))
    max_price_age_months: int = field(metadata=rule(low=1, high=60))


def _load_market(folder: Path, gpus: Iterable[CatalogGpu], currencies: Iterable[Currency]) -> MarketData:
    file = MARKET_FILE
    data = _read(folder, file)
    if data.get("schema") != MARKET_SCHEMA:
        raise KnowledgeError(file, "", "schema", f"must be {MARKET_SCHEMA!r}")
    head_fields = {f.name for f in dataclasses.fields(_MarketHead)}
    head = _entry(_MarketHead, file, "", {k: v for k, v in data.items() if k in head_fields})
    codes = {c.code for c in currencies}
    markets: list[Market] = []
    for position, entry in enumerate(_records(file, data, "market")):
        label = _entry_label("market", position, entry, "id")
        market = _entry(Market, file, label, entry)
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

    def priced(table: str, cls: type) -> list[Any]:
        out = []
        raw = data.get(table, [])
        if not isinstance(raw, list):
            raise KnowledgeError(file, "", table, f"must be [[{table}]] tables, not {type_name(raw)}")
        for position, entry in enumerate(raw):
            label = _entry_label(table, position, entry, "gpu")
            item = _entry(cls, file, label, entry)
            if item.market not in ids:
                raise KnowledgeError(file, label, "market", f"{item.market!r} is not a [[market]]")
            if item.currency != currency_of[item.market]:
                raise KnowledgeError(file, label, "currency",
                                     f"prices in market {item.market!r} are in {currency_of[item.market]}")
            if isinstance(item, MarketPrice) and item.gpu not in names:
                raise KnowledgeError(file, label, "gpu", f"{item.gpu!r} is not a catalog entry in {GPU_FILE}")
            if item.low is not None and item.low > item.amount:
                raise KnowledgeError(file, label, "low", "is above amount (amount is the upper end)")
            out.append(item)
        return out

    out = MarketData(as_of=head.as_of, max_age_months=head.max_price_age_months, markets=tuple(markets),
                     prices=tuple(priced("price", MarketPrice)), rest_of_pc=tuple(priced("rest_of_pc", RestOfPc)))
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
