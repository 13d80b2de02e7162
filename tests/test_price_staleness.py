"""Prices that age after gpu-wizard shipped: on the day it runs, a price older than the content's
`max_price_age_months` is said to be out of date, with its date, instead of offered as today's.

`now` is a parameter of the advice's price code (wizard.advise.hardware.new_hardware,
wizard.advise.money.price_text / price_notes, wizard.advise.market.MarketData.out_of_date), so these
tests set the day; one test also moves "today" under advise() itself, as a user would meet it.
"""

from __future__ import annotations

import datetime as dt
import tomllib

import pytest

from tests.test_advise import answers, plain_machine
from wizard.advise import advise, rank_platforms
from wizard.advise import market as market_module
from wizard.advise.hardware import new_hardware
from wizard.advise.market import months_between
from wizard.advise.money import money_range, number_text
from wizard.advise.recommendation import Draft
from wizard.knowledge.content import content_dir
from wizard.knowledge.load import load_knowledge
from wizard.text.i18n import t

SHIPPED = dt.date(2026, 12, 4)      # a day the content is current
YEARS_LATER = dt.date(2028, 6, 1)    # every shipped price is far past the limit by then


@pytest.fixture(scope="module")
def knowledge():
    return load_knowledge()


def _advice(knowledge, now, lang="en", currency="CNY", budget=9000, form="desktop"):
    goal = knowledge.goal("learning")
    draft = Draft(lang)
    values = {"goal": goal.label(lang), "min": number_text(goal.min_vram_gb),
              "comfortable": number_text(goal.comfortable_vram_gb)}
    platforms = rank_platforms(knowledge, goal, lang, currency == "CNY")
    chosen = answers(form_factor=form, budget_amount=budget, budget_currency=currency, has_nvidia="no")
    result = new_hardware(chosen, plain_machine(chassis=form), knowledge, goal, form, lang, draft, values,
                          platforms, now=now)
    return result, draft.reasons, values


def test_the_age_is_counted_from_the_day_it_runs(knowledge):
    market = knowledge.market
    limit = market.max_age_months
    assert not market.out_of_date("2026-08", dt.date(2026, 8, 31))
    assert not market.out_of_date("2026-08", dt.date(2026 + (8 + limit - 1) // 12, (8 + limit - 1) % 12 + 1, 1))
    assert market.out_of_date("2026-08", dt.date(2026 + (8 + limit) // 12, (8 + limit) % 12 + 1, 1))
    # A full date counts by its month, as the content's own check does.
    assert market.out_of_date("2026-08-22", YEARS_LATER) and not market.out_of_date("2026-08-22", SHIPPED)


def test_no_out_of_date_sentence_while_the_prices_are_current(knowledge):
    (verdict, _key, picks, _cheapest, _total), reasons, values = _advice(knowledge, SHIPPED)
    assert verdict == "upgrade-desktop" and picks
    assert not any("out of date" in r for r in reasons)
    assert "out of date" not in values["price"]
    assert any(r.startswith("Prices are ") for r in reasons)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_aged_prices_are_given_with_their_date_as_out_of_date(knowledge, lang):
    (verdict, _key, picks, _cheapest, _total), reasons, values = _advice(knowledge, YEARS_LATER, lang)
    assert picks
    dates = sorted({p.price_date for p in picks})
    expected = t("advice.reason.prices-out-of-date", lang, dates=t("advice.assume.joiner", lang).join(dates),
                 months=knowledge.market.max_age_months, today=YEARS_LATER.isoformat())
    assert expected in reasons
    # The headline's price carries its date and says it is old, instead of "about ¥…".
    top = picks[0]
    amount = money_range(top.price_low, top.price, "CNY", knowledge)
    assert values["price"] == t("advice.pick.price-dated", lang, amount=amount, date=top.price_date)
    assert values["price"] != t("advice.pick.price-about", lang, amount=amount)
    # No sentence calls them this month's street prices any more.
    assert not any(r == t("advice.reason.prices", lang, kinds=t("advice.price-kind.street", lang, date=d))
                   for r in reasons for d in dates)


def test_the_rest_of_a_pc_is_dated_too(knowledge):
    """A laptop owner is told the cost of a whole desktop: the rest-of-PC figure ages as well."""
    rest = knowledge.desktop_base("CNY")
    # A day on which the card prices are still current but the rest-of-PC figure is not.
    day = dt.date(2027, 4, 1)
    assert knowledge.market.out_of_date(rest.date, day)
    (_verdict, _key, picks, cheapest, _total), reasons, _values = _advice(knowledge, day, form="laptop",
                                                                         budget=60000)
    assert picks or cheapest
    assert any(rest.date in r and "out of date" in r for r in reasons)


def test_the_user_meets_it_through_advise_when_today_is_late(knowledge, monkeypatch):
    class LateDate(dt.date):
        @classmethod
        def today(cls):
            return cls(YEARS_LATER.year, YEARS_LATER.month, YEARS_LATER.day)

    class LateDt:
        date = LateDate

    monkeypatch.setattr(market_module, "dt", LateDt)
    rec = advise(answers(form_factor="desktop", budget_amount=9000, budget_currency="CNY", has_nvidia="no"),
                 plain_machine(chassis="desktop"), knowledge, "zh", ())
    assert rec.gpus
    assert any("已超过" in r and rec.gpus[0].price_date in r for r in rec.reasons)
    assert "已过时" in rec.headline


def test_the_sentence_is_in_both_languages_with_the_same_fields():
    for lang in ("en", "zh"):
        data = tomllib.loads((content_dir() / lang / "strings" / "advice.toml").read_text(encoding="utf-8"))
        sentence = data["reason"]["prices-out-of-date"]
        assert all(f"{{{name}}}" in sentence for name in ("dates", "months", "today"))
        assert "{amount}" in data["pick"]["price-dated"] and "{date}" in data["pick"]["price-dated"]


def test_the_shipped_content_is_current_for_a_year_after_its_date(knowledge):
    """The limit the run-time check uses is the one the content is checked against."""
    market = knowledge.market
    assert months_between(market.as_of, SHIPPED.isoformat()) <= market.max_age_months
    current = [p for p in market.prices if market.is_current(p.date)]
    assert current and not any(market.out_of_date(p.date, SHIPPED) for p in current)
