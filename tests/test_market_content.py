"""The buying advice stays true to its market: every card it may recommend has a current price
there, and no pick is a card the buyer's market cannot sell.

These tests read the real content/ files. When prices age past the limit in content/market.toml
they fail, and the fix is new dated prices, not a change here.
"""

from __future__ import annotations

import itertools

import pytest

from tests.test_advise import plain_machine, run
from wizard.advise.hardware import _worth_buying
from wizard.knowledge import load_knowledge
from wizard.market import months_between


@pytest.fixture(scope="module")
def knowledge():
    return load_knowledge()


def _sold_new(gpu, market_id: str) -> bool:
    return market_id in gpu.markets and not gpu.discontinued


def test_every_recommendable_card_has_a_current_price_in_each_market_it_is_sold_in(knowledge):
    missing = []
    for market in knowledge.market.markets:
        for gpu in knowledge.gpus:
            if _worth_buying(gpu) and _sold_new(gpu, market.id) and knowledge.price(gpu, market.currency) is None:
                missing.append(f"{gpu.name} in {market.id}")
    assert not missing, "no current price for: " + ", ".join(missing)


def test_new_prices_are_only_for_markets_that_sell_the_card_new(knowledge):
    wrong = [f"{p.gpu} ({p.market}, {p.date})" for p in knowledge.market.prices
             if p.condition == "new" and knowledge.market.is_current(p.date)
             and not _sold_new(knowledge.gpu(p.gpu), p.market)]
    assert not wrong, "a current new price for a card that market does not sell new: " + ", ".join(wrong)


def test_the_content_is_dated_and_the_age_limit_is_a_year(knowledge):
    assert knowledge.market.max_age_months == 12
    current = [p for p in knowledge.market.prices if knowledge.market.is_current(p.date)]
    assert current, "no current price at all"
    for price in current:
        assert 0 <= months_between(price.date, knowledge.market.as_of) <= 12
        assert price.source.strip()


def test_every_market_knows_what_the_rest_of_a_pc_costs_today(knowledge):
    for market in knowledge.market.markets:
        rest = knowledge.desktop_base(market.currency)
        assert rest is not None and rest.amount > 0
        assert months_between(rest.date, knowledge.market.as_of) <= 12


@pytest.mark.parametrize("currency, budgets", [("USD", (300, 700, 1500, 3000, 8000)),
                                                ("CNY", (2500, 5000, 10000, 20000, 60000))])
def test_every_pick_is_sold_in_the_buyers_market_at_a_current_price(knowledge, currency, budgets):
    market = knowledge.market.for_currency(currency)
    seen = set()
    for goal, budget, form in itertools.product(knowledge.goal_ids, budgets, ("desktop", "laptop")):
        rec = run(plain_machine(chassis=form), knowledge, form_factor=form, goal=goal,
                  budget_amount=budget, budget_currency=currency)
        for pick in rec.gpus:
            gpu = knowledge.gpu(pick.name)
            seen.add(pick.name)
            assert pick.currency == currency
            assert months_between(pick.price_date, knowledge.market.as_of) <= 12, pick
            if pick.price_kind == "street":
                assert _sold_new(gpu, market.id), f"{pick.name} is not sold new in {market.id}"
            else:
                assert pick.price_kind == "used"
    assert seen, f"no card is ever recommended in {currency}"


def test_export_rules_and_china_only_parts_are_respected(knowledge):
    never_cn = {"GeForce RTX 4090", "GeForce RTX 5090"}
    never_us = {"GeForce RTX 4090 D", "GeForce RTX 5090 D", "GeForce RTX 5090 D v2"}
    for currency, banned in (("CNY", never_cn), ("USD", never_us)):
        for budget in (20000, 60000, 200000):
            rec = run(plain_machine(chassis="desktop"), knowledge, form_factor="desktop",
                      goal="llm-finetune", budget_amount=budget, budget_currency=currency)
            assert not {p.name for p in rec.gpus} & banned, (currency, budget)
