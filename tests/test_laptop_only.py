"""A buyer who can only use a laptop (the guide's own case) is answered with a laptop: the laptop
GPU class that meets the goal, its memory and power, within the budget where a dated price
exists, and never a desktop."""

from __future__ import annotations

import pytest

from tests.recorded import machine
from wizard.advise import advise
from wizard.answers import FORM_FACTORS, Answers, answers_problems
from wizard.knowledge.load import load_knowledge
from wizard.report.building import build_report
from wizard.report.show import render_report
from wizard.report.validate import validate_report
from wizard.text.i18n import t

BUDGETS = [("USD", 800), ("USD", 1500), ("USD", 4000), ("CNY", 5000), ("CNY", 9000), ("CNY", 30000)]


@pytest.fixture(scope="module")
def knowledge():
    return load_knowledge()


def test_laptop_only_is_an_answer():
    assert "laptop-only" in FORM_FACTORS
    assert answers_problems({"form_factor": "laptop-only"}, "answers") == []
    for lang in ("en", "zh"):
        assert t("guide.options.form_factor.laptop-only", lang) != t("guide.options.form_factor.laptop", lang)


@pytest.mark.parametrize("currency, budget", BUDGETS)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_laptop_only_buyer_is_never_sent_to_a_desktop(currency, budget, lang, knowledge):
    for goal in knowledge.goals:
        answers = Answers("yes", "no", "laptop-only", budget, currency, goal.id)
        rec = advise(answers, machine("vm-no-gpu", lang), knowledge, lang)
        assert rec.verdict in ("buy-laptop", "use-free-cloud", "rent-cloud"), (goal.id, rec.verdict)
        if rec.verdict != "buy-laptop":
            assert not rec.gpus
            continue
        assert rec.gpus and rec.gpus[0].name in rec.headline
        for pick in rec.gpus:
            entry = knowledge.gpu(pick.name)
            assert entry.segment == "laptop" and pick.form_factor == "laptop"
            assert entry.vram_gb >= goal.min_vram_gb
            if pick.price is not None:
                assert pick.currency == currency                 # the buyer's own market
                assert (pick.price_low or pick.price) <= budget
            assert str(entry.tdp_w_max) in pick.why               # the power to look for
        reasons = " ".join(rec.reasons)
        assert t("advice.reason.laptop-caution", lang) in reasons
        assert t("advice.reason.laptop-only", lang) in reasons


def test_a_goal_no_laptop_gpu_can_hold_goes_to_the_cloud(knowledge):
    from dataclasses import replace

    biggest = max(g.vram_gb for g in knowledge.gpus if g.segment == "laptop")
    huge = replace(knowledge.goals[0], id="huge", min_vram_gb=biggest + 1, comfortable_vram_gb=biggest + 8)
    bigger = replace(knowledge, goals=knowledge.goals + (huge,))
    rec = advise(Answers("yes", "no", "laptop-only", 5000, "USD", "huge"), machine("vm-no-gpu"), bigger)
    assert rec.verdict in ("use-free-cloud", "rent-cloud") and not rec.gpus
    assert any(t("advice.reason.laptop-too-small", "en", goal="", min=f"{biggest + 1:g}")[:30] in r
               for r in rec.reasons), rec.reasons


def test_nothing_to_spend_is_a_cloud_gpu(knowledge):
    rec = advise(Answers("yes", "no", "laptop-only", 0, "USD", "learning"), machine("vm-no-gpu"), knowledge)
    assert rec.verdict == "use-free-cloud" and not rec.gpus


def test_a_budget_below_every_priced_laptop_says_so(knowledge):
    priced = [p for p in knowledge.market.laptop_prices if p.market == "us"]
    assert priced, "the US market has at least one dated laptop price"
    unpriced_classes = {g.name for g in knowledge.gpus if g.segment == "laptop"} - {p.gpu for p in priced}
    rec = advise(Answers("yes", "no", "laptop-only", 100, "USD", "learning"), machine("vm-no-gpu"), knowledge)
    # A laptop without a dated price cannot be ruled out by the budget; one with a price can.
    assert all(p.name in unpriced_classes for p in rec.gpus)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_report_keeps_the_answer_and_reads_it_back(lang, knowledge):
    answers = Answers("yes", "no", "laptop-only", 1500, "USD", "learning")
    m = machine("vm-no-gpu", lang)
    rec = advise(answers, m, knowledge, lang)
    report = build_report(answers, m, [], rec, lang)
    assert report["answers"]["form_factor"] == "laptop-only"
    assert report["recommendation"]["verdict"] == "buy-laptop"
    assert validate_report(report, knowledge) == []
    shown = render_report(report, lang, knowledge)
    assert t("report.value.laptop-only", lang) in shown
    assert t("present.action.buy-laptop", lang).split("；")[0].split(";")[0][:20] in shown.replace("\n", "")
