"""A Mac as the purchase where its unified memory is the better answer for running local LLMs
(wizard/advise/mac.py): dated Apple prices per market, the rule, and what the advice says.

The rule, as tested here against an oracle written out again below: for the LLM goal, with a
budget, a Mac of the right kind (a Mac mini or Mac Studio beside a desktop PC, a MacBook where
only a laptop will do) with a current price in the buyer's own market, within the budget, whose
GPU share (about 2/3, 3/4 above 36 GB) is enough for the goal, and either more than any NVIDIA
option within the budget has, or the buyer is on a Mac already. The Mac with the most usable
memory wins. The verdict stays the NVIDIA advice's.
"""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from tests.recorded import machine
from wizard.advise import advise, gpu_candidates
from wizard.advise.laptop import laptop_classes, laptop_pick
from wizard.advise.mac import MAC_GOALS, gpu_share, usable_gb
from wizard.advise.market import MacPrice, months_between
from wizard.answers import Answers
from wizard.knowledge.load import load_knowledge
from wizard.report.building import build_report
from wizard.report.show import render_report
from wizard.report.validate import validate_report
from wizard.text.i18n import t

FORMS = ("desktop", "laptop", "laptop-only")
BUDGETS = (("USD", 1000), ("USD", 2500), ("USD", 6000), ("USD", 12000), ("CNY", 8000), ("CNY", 15000),
           ("CNY", 60000))
SHARE_WORDS = {"en": ("about two thirds", "about three quarters"), "zh": ("三分之二左右", "四分之三左右")}


@pytest.fixture(scope="module")
def knowledge():
    return load_knowledge()


def small_mac(lang: str = "en"):
    """apple-m2 with 8 GB: its GPU's share (5.3 GB) is below the LLM goal's 6 GB."""
    return dataclasses.replace(machine("apple-m2", lang), ram_gb=8.0)


def without_macs(knowledge):
    market = dataclasses.replace(knowledge.market, mac_prices=(), no_mac_prices=())
    return dataclasses.replace(knowledge, market=market)


def with_mac(knowledge, **row):
    fields = dict(model="Mac mini", chip="Apple M4 Pro", memory_gb=48, form="desktop", market="us",
                  currency="USD", amount=1000, date="2026-11", source="a test", reliability="high")
    extra = MacPrice(**{**fields, **row})
    market = dataclasses.replace(knowledge.market, mac_prices=(*knowledge.market.mac_prices, extra))
    return dataclasses.replace(knowledge, market=market)


def ask(knowledge, mach, form, currency, budget, goal="llm-inference", lang="en"):
    return advise(Answers("yes", "no", form, budget, currency, goal), mach, knowledge, lang)


# ------------------------------------------------------------------------------- the data ---

def test_every_mac_price_is_current_sourced_and_a_real_configuration(knowledge):
    market = knowledge.market
    assert market.mac_prices, "no Mac price at all"
    apple = {g.name: g for g in knowledge.gpus if g.vendor == "apple"}
    for row in market.mac_prices:
        assert 0 <= months_between(row.date, market.as_of) <= market.max_age_months, row
        assert row.source.strip() and row.reliability in ("high", "medium", "low")
        assert row.memory_gb > 0 and row.amount > 0
        assert row.memory_gb in apple[row.chip].unified_memory_gb_options, row
        assert row.currency == market.market(row.market).currency      # never a converted price


def test_each_market_and_kind_of_mac_is_priced_or_said_to_have_no_price(knowledge):
    market = knowledge.market
    for item, form in itertools.product(market.markets, ("desktop", "laptop")):
        priced = market.mac_prices_in(item.id, form)
        none = market.no_mac_price(item.id, form)
        assert bool(priced) != (none is not None), (item.id, form)
        if none is not None:
            assert none.note.strip() and months_between(none.checked, "2026-12") <= 0


def test_the_gpu_share_is_two_thirds_on_small_macs_and_three_quarters_above_36_gb():
    assert gpu_share(16) == gpu_share(36) == 0.66 and gpu_share(48) == gpu_share(96) == 0.75
    assert usable_gb(36) == 23.8 and usable_gb(96) == 72.0


# ------------------------------------------------------------------------------- the rule ---

def expected_mac(knowledge, mach, form, currency, budget, goal_id="llm-inference"):
    """The rule, written out again: the Mac the advice must offer, or None."""
    goal = knowledge.goal(goal_id)
    market = knowledge.market.for_currency(currency)
    local_share = round(mach.ram_gb * gpu_share(mach.ram_gb), 1) if mach.os == "Darwin" else 0
    if goal_id not in MAC_GOALS or local_share >= goal.min_vram_gb:
        return None            # another goal, or this Mac's GPU is enough: nothing to buy
    on_mac = mach.os == "Darwin"
    if form == "laptop-only":
        kind = "laptop"
        laptops = [laptop_pick(g, knowledge, currency, "en") for g in laptop_classes(knowledge, goal)]
        nvidia = [p.vram_gb for p in laptops
                  if p.price is None or (p.price_low if p.price_low is not None else p.price) <= budget]
    else:
        kind = "desktop"
        base = 0 if form == "desktop" and not on_mac else knowledge.desktop_base(currency).amount
        nvidia = [c.vram_gb for c in gpu_candidates(knowledge, goal, currency, "en") if c.price + base <= budget]
    best_nvidia = max(nvidia, default=0)
    fits = [r for r in knowledge.market.mac_prices_in(market.id, kind)
            if r.amount <= budget and usable_gb(r.memory_gb) >= goal.min_vram_gb
            and (on_mac or usable_gb(r.memory_gb) > best_nvidia)]
    return max(fits, key=lambda r: (usable_gb(r.memory_gb), -r.amount), default=None)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("currency, budget", BUDGETS)
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", ["vm-no-gpu", "apple-m2", "apple-m2-8gb"])
def test_a_mac_is_offered_exactly_where_the_rule_says(knowledge, name, form, currency, budget, lang):
    mach = small_mac(lang) if name == "apple-m2-8gb" else machine(name, lang)
    rec = ask(knowledge, mach, form, currency, budget, lang=lang)
    row = expected_mac(knowledge, mach, form, currency, budget)
    plain = ask(without_macs(knowledge), mach, form, currency, budget, lang=lang)
    assert rec.verdict == plain.verdict                        # the Mac never changes the verdict
    assert [g.name for g in rec.gpus] == [g.name for g in plain.gpus]
    mac = rec.mac_purchase
    unpriced = {t(f"advice.reason.mac-unpriced-{kind}", lang, market=knowledge.market.for_currency(currency).name(lang))
                for kind in ("desktop", "laptop")}
    if row is None:
        assert mac is None, mac
        assert not any("Mac Studio" in r or "Mac mini" in r for r in rec.reasons if r not in unpriced)
        return
    assert mac is not None and mac.name == row.label() and mac.form_factor == "mac"
    assert mac.price == row.amount <= budget and mac.currency == currency     # the buyer's market
    assert mac.vram_gb == usable_gb(row.memory_gb) >= knowledge.goal("llm-inference").min_vram_gb
    reasons = " ".join(rec.reasons)
    share = SHARE_WORDS[lang][gpu_share(row.memory_gb) == 0.75]
    assert mac.name in reasons and share in reasons                          # the usable share, said
    assert f"{row.memory_gb} GB" in reasons
    assert t("advice.reason.mac-trade-off", lang) in reasons                 # the trade-off, said
    assert "CUDA" in t("advice.reason.mac-trade-off", lang)
    # The headline never contradicts the reasons: a headline that buys an NVIDIA card comes with
    # the Mac as the alternative for bigger models (or the way to stay on macOS), never with
    # "no NVIDIA PC fits"; a headline naming the Mac comes without NVIDIA picks.
    if rec.verdict in ("upgrade-desktop", "buy-desktop", "buy-laptop"):
        assert rec.gpus and mac.name not in rec.headline
        assert not any(r.startswith(t("advice.reason.mac-fits-budget", lang)[:12]) for r in rec.reasons)
    if mac.name in rec.headline:
        assert rec.gpus == ()


def test_a_96_gb_mac_studio_beside_a_desktop_card_for_bigger_models(knowledge):
    rec = ask(knowledge, machine("vm-no-gpu"), "desktop", "USD", 6000)
    assert rec.verdict == "upgrade-desktop"
    mac = rec.mac_purchase
    assert mac.name == "Mac Studio (M3 Ultra, 96 GB)" and mac.price == 5299 and mac.vram_gb == 72
    said = next(r for r in rec.reasons if mac.name in r)
    assert "about 72 GB" in said and "about three quarters of its 96 GB" in said and "32 GB" in said
    assert any("Apple's list price in the US from 2026-06-25" in r for r in rec.reasons)


def test_no_mac_where_a_card_within_the_budget_has_as_much_memory(knowledge):
    # $2,500: the 36 GB Mac Studio ($2,499) gives its GPU 23.8 GB; a used RTX 3090 (24 GB) fits.
    for form in ("desktop", "laptop"):
        assert ask(knowledge, machine("vm-no-gpu"), form, "USD", 2500).mac_purchase is None
    # $12,000: an RTX PRO 6000 (96 GB) fits, more than the 72 GB of the 96 GB Mac Studio.
    assert ask(knowledge, machine("vm-no-gpu"), "desktop", "USD", 12000).mac_purchase is None


def test_no_mainland_mac_price_means_no_mac_and_a_mac_owner_is_told_why(knowledge):
    rec = ask(knowledge, machine("vm-no-gpu", "zh"), "laptop", "CNY", 60000, lang="zh")
    assert rec.mac_purchase is None and not any("Mac" in r for r in rec.reasons)
    rec = ask(knowledge, small_mac("zh"), "laptop", "CNY", 60000, lang="zh")
    assert rec.mac_purchase is None
    assert t("advice.reason.mac-unpriced-desktop", "zh", market="中国大陆") in rec.reasons


def test_on_a_small_mac_the_mac_that_fits_is_offered_beside_the_pc(knowledge):
    rec = ask(knowledge, small_mac(), "laptop", "USD", 2500)
    assert rec.verdict == "buy-desktop" and rec.gpus                    # the NVIDIA advice stays
    assert rec.mac_purchase.name == "Mac Studio (M4 Max, 36 GB)"         # 23.8 GB: less than 24, but a Mac
    assert any(r.startswith("No graphics card can be added to a Mac") and "about two thirds" in r
               for r in rec.reasons)
    only_laptop = ask(knowledge, small_mac(), "laptop-only", "USD", 2500)
    assert only_laptop.mac_purchase is None                            # no dated MacBook price
    assert t("advice.reason.mac-unpriced-laptop", "en", market="the US") in only_laptop.reasons


def test_a_mac_whose_gpu_is_enough_already_gets_no_shopping_list(knowledge):
    rec = ask(knowledge, machine("apple-m2"), "laptop", "USD", 12000)
    assert rec.verdict == "use-current-gpu" and rec.mac_purchase is None


@pytest.mark.parametrize("goal", ["learning", "kaggle", "vision-apps", "image-generation", "llm-finetune",
                                  "research"])
def test_never_a_mac_for_goals_an_nvidia_card_serves(knowledge, goal):
    for mach, form, (currency, budget) in itertools.product(
            (machine("vm-no-gpu"), small_mac()), FORMS, (("USD", 6000), ("USD", 60000), ("CNY", 60000))):
        rec = ask(knowledge, mach, form, currency, budget, goal=goal)
        assert rec.mac_purchase is None
        assert not any("Mac Studio" in r or "unified memory" in r for r in rec.reasons), (goal, form)


def test_where_no_nvidia_pc_fits_but_a_mac_does_the_headline_names_the_mac(knowledge):
    # A made-up $1,000 Mac mini with 48 GB: a whole PC with the cheapest card costs more.
    kn = with_mac(knowledge)
    rec = ask(kn, machine("vm-no-gpu"), "laptop", "USD", 1050)
    plain = ask(knowledge, machine("vm-no-gpu"), "laptop", "USD", 1050)
    assert rec.verdict == plain.verdict == "use-free-cloud" and rec.gpus == ()
    assert rec.mac_purchase.name == "Mac mini (M4 Pro, 48 GB)" and rec.mac_purchase.vram_gb == 36
    assert "Mac mini (M4 Pro, 48 GB)" in rec.headline and "$1,050" in rec.headline
    assert any(r.startswith("A Mac mini (M4 Pro, 48 GB) for $1,000 fits your budget where no PC") for r in rec.reasons)
    # With a desktop to put a card in, a 16 GB card fits: the Mac is the alternative.
    desk = ask(kn, machine("vm-no-gpu"), "desktop", "USD", 1050)
    assert desk.verdict == "upgrade-desktop" and "Mac" not in desk.headline
    assert any(r.startswith("For models too big for 16 GB, a Mac mini") for r in desk.reasons)
    # A price older than the age limit is no price.
    stale = with_mac(knowledge, date="2025-06")
    assert ask(stale, machine("vm-no-gpu"), "laptop", "USD", 1050).mac_purchase is None


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_report_keeps_the_mac_and_show_and_validate_accept_it(knowledge, lang):
    answers = Answers("yes", "no", "desktop", 6000, "USD", "llm-inference")
    mach = machine("vm-no-gpu", lang)
    rec = advise(answers, mach, knowledge, lang)
    report = build_report(answers, mach, (), rec, lang)
    assert validate_report(report, knowledge) == []
    saved = report["recommendation"]["mac_purchase"]               # kept through redaction
    assert saved["name"] == "Mac Studio (M3 Ultra, 96 GB)" and saved["price"] == 5299
    assert saved["vram_gb"] == 72 and saved["form_factor"] == "mac"
    shown = render_report(report, lang, knowledge)
    assert "Mac Studio (M3 Ultra, 96 GB)" in shown.replace("\n    ", " ").replace("\n", "")
