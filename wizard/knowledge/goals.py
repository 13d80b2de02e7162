"""The goals and currencies: what an [answers] table is checked against (goals.toml and
currency.toml), apart from the catalog, so that checking a class's 200 reports reads these two
small files alone."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from wizard.knowledge.content import content_dir
from wizard.knowledge.damaged import KnowledgeError
from wizard.knowledge.entries import (
    DATE,
    check_unverified,
    currency_rule,
    id_rule,
    read_entry,
    read_file,
    records_of,
    unique_entries,
)
from wizard.schema import rule

GOALS_FILE = "goals.toml"
CURRENCY_FILE = "currency.toml"


@dataclass(frozen=True)
class Goal:
    """One [[goal]] of goals.toml."""

    id: str = field(metadata=id_rule("llm-inference"))
    label_en: str
    label_zh: str
    min_vram_gb: float = field(metadata=rule(low=0, high=4096))
    comfortable_vram_gb: float = field(metadata=rule(low=0, high=4096))
    min_ram_gb: float = field(metadata=rule(low=1, high=4096))
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
class CurrencyRate:
    """One [[rate]] of currency.toml."""

    base: str = field(metadata=currency_rule("USD"))    # 1 unit of base ...
    quote: str = field(metadata=currency_rule("CNY"))   # ... is `rate` units of quote
    rate: float = field(metadata=rule(low=1e-6, high=1e6))
    date: str = field(metadata=DATE)
    source: str
    unverified: bool = False


@dataclass(frozen=True)
class Currency:
    """One [[currency]] of currency.toml."""

    code: str = field(metadata=currency_rule("CNY"))
    symbol: str
    name_en: str
    name_zh: str
    # Anything larger is treated as a typo in the budget step.
    max_budget: float = field(metadata=rule(low=1, high=1e12))


class GoalsAndCurrencies:
    """The goals and the currencies, looked up by id: what checking an [answers] table needs."""

    goals: tuple[Goal, ...]
    currencies: tuple[Currency, ...]

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


@dataclass(frozen=True)
class AnswerRules(GoalsAndCurrencies):
    """Only goals.toml and currency.toml: a roster of 200 reports checks their answers without
    parsing the GPU catalog (wizard.knowledge.load_answer_rules)."""

    goals: tuple[Goal, ...]
    currencies: tuple[Currency, ...]


@cache
def load_answer_rules() -> AnswerRules:
    """The installed goals and currencies, checked as load_knowledge checks them."""
    folder = content_dir()
    currencies, _rates = load_currency(folder)
    return AnswerRules(goals=tuple(load_goals(folder)), currencies=currencies)


def load_goals(folder: Path) -> list[Goal]:
    file = GOALS_FILE
    data = read_file(folder, file)
    goals: list[Goal] = []
    for label, entry, goal in unique_entries(Goal, file, data, "goal", "id", "is used by an earlier goal"):
        if goal.comfortable_vram_gb < goal.min_vram_gb:
            raise KnowledgeError(file, label, "comfortable_vram_gb", "is below min_vram_gb")
        if len(goal.examples_en) != len(goal.examples_zh):
            raise KnowledgeError(file, label, "examples_zh", "must have as many examples as examples_en")
        if ("multi_gpu_note_en" in entry) != ("multi_gpu_note_zh" in entry):
            raise KnowledgeError(file, label, "multi_gpu_note_zh", "the note must exist in both languages")
        check_unverified(file, label, entry, "not a field of this goal")
        goals.append(goal)
    return goals


def load_currency(folder: Path) -> tuple[tuple[Currency, ...], tuple[CurrencyRate, ...]]:
    file = CURRENCY_FILE
    data = read_file(folder, file)
    currencies = [currency for _, _, currency in
                  unique_entries(Currency, file, data, "currency", "code", "is listed twice")]
    codes = {currency.code for currency in currencies}
    rates: list[CurrencyRate] = []
    for position, entry in enumerate(records_of(file, data, "rate")):
        label = f"rate[{position}]"
        rate = read_entry(CurrencyRate, file, label, entry)
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
