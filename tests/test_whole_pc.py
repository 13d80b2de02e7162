"""A desktop buyer without a PC gets the whole PC's total with its date, and where to buy in their
own market (for mainland China: JD's own store, the licensed card makers, a whole PC for those
who would rather not assemble one), in both languages."""

from __future__ import annotations

import pytest

from tests.recorded import machine
from wizard.advise import advise
from wizard.answers import Answers
from wizard.knowledge.load import load_knowledge
from wizard.text.i18n import t


@pytest.fixture(scope="module")
def knowledge():
    return load_knowledge()


@pytest.mark.parametrize("currency, budget, market", [("USD", 1500, "us"), ("USD", 3000, "us"),
                                                      ("CNY", 9000, "cn"), ("CNY", 20000, "cn")])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_laptop_owner_buying_a_desktop_gets_the_total_and_where_to_buy(currency, budget, market, lang, knowledge):
    rec = advise(Answers("yes", "no", "laptop", budget, currency, "learning"), machine("vm-no-gpu", lang),
                 knowledge, lang)
    assert rec.verdict == "buy-desktop"
    top = rec.gpus[0]
    rest = knowledge.desktop_base(currency)
    total = top.price + rest.amount
    assert total <= budget                                    # the card and the rest of the PC
    reasons = " ".join(rec.reasons)
    assert t(f"advice.reason.where-to-buy-{market}", lang) in reasons
    assert t(f"advice.reason.whole-pc-{market}", lang) in reasons
    assert f"{total:,.0f}" in reasons                         # the total, from the same numbers
    other = "us" if market == "cn" else "cn"
    assert t(f"advice.reason.where-to-buy-{other}", lang) not in reasons


def test_a_desktop_owner_adding_a_card_is_told_where_but_not_to_buy_a_pc(knowledge):
    rec = advise(Answers("yes", "no", "desktop", 9000, "CNY", "learning"), machine("vm-no-gpu", "zh"), knowledge, "zh")
    assert rec.verdict == "upgrade-desktop"
    reasons = " ".join(rec.reasons)
    assert t("advice.reason.where-to-buy-cn", "zh") in reasons
    assert t("advice.reason.whole-pc-cn", "zh") not in reasons
