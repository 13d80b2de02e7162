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
from wizard.advise.market import months_between
from wizard.knowledge.load import load_knowledge


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


# --- mainland prices, trust and laptops ------------------------------------------------------

def test_every_card_recommendable_in_mainland_china_has_a_current_mainland_price(knowledge):
    """Converted US prices are a last resort: a card the advice may recommend to a mainland
    buyer has a CNY price observed in mainland China, at most a year old, with its source."""
    missing = []
    for gpu in knowledge.gpus:
        if not (_worth_buying(gpu) and _sold_new(gpu, "cn")):
            continue
        rows = [p for p in knowledge.market.current_prices(gpu.name, "cn") if p.currency == "CNY"]
        price = knowledge.price(gpu, "CNY")
        if not rows or price is None or price.converted_from is not None:
            missing.append(gpu.name)
    assert not missing, "no current mainland price for: " + ", ".join(missing)


def test_every_price_row_says_where_when_and_how_far_to_trust_it(knowledge):
    market = knowledge.market
    rows = (*market.prices, *market.rest_of_pc, *market.laptop_prices)
    assert rows
    for row in rows:
        assert row.source.strip() and row.date and row.reliability in ("high", "medium", "low"), row
        assert months_between(row.date, market.as_of) >= 0, f"dated after the content: {row}"
    # The aggregates of channel quotes are shown as what they are.
    cn = [p for p in market.prices if p.market == "cn" and market.is_current(p.date)]
    assert cn and all(p.low is not None and p.low < p.amount and p.reliability != "high" for p in cn)


@pytest.mark.parametrize("budget", [5000, 9000, 20000])
def test_a_cny_budget_shops_with_mainland_prices_shown_as_ranges(knowledge, budget):
    ranges = 0
    for goal in knowledge.goal_ids:
        rec = run(plain_machine(chassis="desktop"), knowledge, form_factor="desktop", goal=goal,
                  budget_amount=budget, budget_currency="CNY")
        for pick in rec.gpus:
            assert pick.price_converted_from is None, pick   # a mainland price, not a converted one
            assert pick.price <= budget                      # the upper end fits the budget
        top = rec.gpus[0] if rec.gpus else None
        if top is not None and top.price_low is not None:
            assert f"¥{top.price_low:,.0f}–¥{top.price:,.0f}" in rec.headline   # the range, both ends
            assert any("range" in r for r in rec.reasons)
            ranges += 1
    assert ranges, f"no pick with a mainland price range for a ¥{budget} budget"


def test_laptop_gpus_have_a_laptop_price_or_are_said_to_have_none_in_each_market(knowledge):
    market = knowledge.market
    laptops = [g for g in knowledge.gpus
               if g.segment == "laptop" and g.vendor == "nvidia" and g.family == "GeForce RTX 50 Laptop"]
    assert {g.name for g in laptops} >= {f"GeForce RTX {n} Laptop GPU" for n in ("5050", "5060", "5070", "5070 Ti",
                                                                                  "5080")}
    unsaid = []
    for gpu in laptops:
        assert gpu.tdp_w_min and gpu.tdp_w_max and gpu.tdp_w_min < gpu.tdp_w_max, gpu.name
        assert gpu.desktop_equivalent, gpu.name
        for item in market.markets:
            priced = market.laptop_prices_of(gpu.name, item.id)
            none = [n for n in market.no_laptop_prices if n.gpu == gpu.name and n.market == item.id]
            if not priced and not none:
                unsaid.append(f"{gpu.name} in {item.id}")
            assert not (priced and none), f"{gpu.name} in {item.id} is both priced and said to have no price"
            for row in priced:
                assert row.estimate and row.source.strip() and row.currency == item.currency
    assert not unsaid, "neither a laptop price nor 'none found' for: " + ", ".join(unsaid)


def test_an_rtx_50_laptop_gpu_runs_on_less_power_than_the_desktop_card_of_its_name(knowledge):
    """What the guide tells laptop-only buyers: the same name is a weaker part."""
    laptops = [g for g in knowledge.gpus if g.family == "GeForce RTX 50 Laptop"]
    assert laptops
    for gpu in laptops:
        desktop = knowledge.gpu(gpu.desktop_equivalent)
        assert desktop.tdp_w and gpu.tdp_w_max < desktop.tdp_w, gpu.name
        assert gpu.vram_gb <= desktop.vram_gb, gpu.name


@pytest.mark.parametrize("currency, budgets", [("USD", (3000, 8000, 20000)), ("CNY", (20000, 60000, 200000))])
def test_a_mac_is_offered_only_at_a_current_price_of_the_buyers_own_market(knowledge, currency, budgets):
    market = knowledge.market.for_currency(currency)
    for budget, form in itertools.product(budgets, ("desktop", "laptop", "laptop-only")):
        rec = run(plain_machine(chassis="desktop"), knowledge, form_factor=form, goal="llm-inference",
                  budget_amount=budget, budget_currency=currency)
        mac = rec.mac_purchase
        if mac is not None:
            assert mac.currency == currency and mac.price <= budget
            assert months_between(mac.price_date, knowledge.market.as_of) <= 12
            assert any(p.label() == mac.name for p in knowledge.market.mac_prices_in(market.id, "desktop"))
