"""New hardware: the cards worth buying for the goal and budget, and what a whole PC costs."""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

from wizard.advise.clouds import best_free_vram
from wizard.advise.laptop import buy_laptop
from wizard.advise.mac import laptop_memory_within, offer_mac
from wizard.advise.money import format_money, money_range, named, number_text, price_notes, price_text
from wizard.advise.recommendation import (
    MAX_PICKS,
    MIN_PICK_COMPUTE_CAPABILITY,
    PICK_SEGMENTS,
    PSU_HEADROOM_W,
    Draft,
    GpuPick,
    PlatformPick,
)
from wizard.answers import Answers
from wizard.diagnosis.judgement import KNOWN_CHASSIS
from wizard.knowledge.goals import Goal
from wizard.knowledge.records import CatalogGpu, Knowledge
from wizard.probe.facts import Machine
from wizard.text.i18n import t

# ------------------------------------------------------------------------ new hardware ---

def new_hardware(answers: Answers, machine: Machine, knowledge: Knowledge, goal: Goal, form: str,
                  lang: str, draft: Draft, values: dict[str, Any],
                  platforms: tuple[PlatformPick, ...], now: dt.date | None = None
                  ) -> tuple[str, str, tuple[GpuPick, ...], GpuPick | None, float | None]:
    """The hardware part of the advice. Prices are those of the buyer's market (a CNY budget
    shops with mainland prices; knowledge.price converts only when there is none); `now`
    (default: today) decides whether they have aged past the content's limit, and the advice
    then says so with their dates (wizard.advise.money.price_notes)."""
    currency = answers.budget_currency
    budget = answers.budget_amount
    free_vram = best_free_vram(knowledge, platforms, goal)
    free_ok = free_vram >= goal.min_vram_gb
    cloud_verdict = "use-free-cloud" if free_ok else "rent-cloud"
    if free_ok:
        draft.add("free-fits", vram=number_text(free_vram), goal=values["goal"])
    else:
        draft.add("free-too-small", vram=number_text(free_vram), min=values["min"], goal=values["goal"])
    is_mac = machine.os == "Darwin" or any(g.vendor == "apple" for g in machine.gpus)
    can_take_card = form == "desktop" and not is_mac

    if form == "server":
        draft.add("server-admin")
        return cloud_verdict, "server", (), None, None
    if form == "laptop-only":
        # Only a laptop will do: the laptop GPU class that meets the goal, never a desktop.
        if budget is not None and budget <= 0:
            draft.add("no-budget")
            return cloud_verdict, ("use-free-cloud-no-budget" if free_ok else "rent-cloud"), (), None, None
        picks, key = buy_laptop(budget, currency, knowledge, goal, lang, draft, values, now)
        if budget is not None:
            offer_mac(machine, knowledge, goal, form, budget, currency,
                      laptop_memory_within(knowledge, goal, budget, currency, lang) if key else 0.0,
                      lang, draft, values, now)
        if key is not None:
            return "buy-laptop", key, picks, None, None
        if draft.mac_purchase is not None:
            key = "mac-instead-free" if free_ok else "mac-instead-rent"
            return cloud_verdict, key, (), None, None
        return cloud_verdict, ("use-free-cloud" if free_ok else "rent-cloud"), (), None, None
    if is_mac:
        draft.add("apple-no-upgrade")
    elif form == "laptop" and answers.form_factor == "unsure" and machine.chassis not in KNOWN_CHASSIS:
        # A VM, container or WSL hides the computer underneath: say so, not "a laptop".
        draft.add("host-unknown")
    elif form == "laptop":
        draft.add("laptop")

    base = 0.0 if can_take_card else _desktop_base_cost(knowledge, currency)
    rest = knowledge.desktop_base(currency)
    base_dates = (rest.date,) if base and rest is not None else ()
    candidates = gpu_candidates(knowledge, goal, currency, lang)
    if budget is None:
        draft.add("unsure-budget", goal=values["goal"])
        picks = tuple(sorted(candidates, key=_cheapest_first)[:MAX_PICKS])
        price_notes(picks, knowledge, currency, draft, lang, now)
        return cloud_verdict, ("use-free-cloud-unsure-budget" if free_ok else "rent-cloud"), picks, None, None
    if budget <= 0:
        draft.add("no-budget")
        if form == "laptop":
            draft.add("laptop-plus-cloud")
        return cloud_verdict, ("use-free-cloud-no-budget" if free_ok else "rent-cloud"), (), None, None

    affordable = [c for c in candidates if c.price is not None and c.price + base <= budget]
    nvidia_gb = max((c.vram_gb for c in affordable), default=0.0)
    if not affordable:
        cheapest = min(candidates, key=_cheapest_first, default=None)
        budget_text = format_money(budget, currency, knowledge)
        if cheapest is not None:
            name = t("advice.headline.pc-with", lang, gpu=named(cheapest, lang)) if base else named(cheapest, lang)
            values.update(budget=budget_text, cheapest=name,
                          price=price_text(cheapest, knowledge, lang, total=base, now=now))
            if base:
                draft.add("too-small-desktop", goal=values["goal"], gpu=named(cheapest, lang),
                          total=format_money((cheapest.price or 0) + base, currency, knowledge),
                          budget=budget_text)
            else:
                draft.add("too-small", goal=values["goal"], gpu=named(cheapest, lang),
                          price=price_text(cheapest, knowledge, lang, now=now), budget=budget_text)
            price_notes((cheapest,), knowledge, currency, draft, lang, now, base_dates)
            key = "too-small" if free_ok else "rent-cloud-too-small"
        else:
            key = "use-free-cloud" if free_ok else "rent-cloud"
        if form == "laptop":
            draft.add("laptop-plus-cloud")
        if offer_mac(machine, knowledge, goal, form, budget, currency, nvidia_gb, lang, draft, values, now):
            key = "mac-instead-free" if free_ok else "mac-instead-rent"   # the Mac is what fits
        total = cheapest.price + base if cheapest is not None and cheapest.price is not None else None
        return cloud_verdict, key, (), cheapest, total

    picks = tuple(sorted(affordable, key=_ranker(knowledge, goal))[:MAX_PICKS])
    top = picks[0]
    values.update(pick=named(top, lang), price=price_text(top, knowledge, lang, now=now))
    if can_take_card:
        entry = knowledge.gpu(top.name)
        if entry.tdp_w:
            watts = entry.tdp_w
            psu = int(math.ceil((watts + PSU_HEADROOM_W) / 50.0) * 50)
            draft.add("desktop-check", watts=watts, psu=psu)
        else:
            draft.add("desktop-check-no-watts")
        verdict = "upgrade-desktop"
    else:
        draft.add("desktop-base", base=format_money(base, currency, knowledge),
                  date=rest.date if rest is not None else "")
        if top.price is not None:
            # The whole PC, as the guide advises people who don't build one: card + the rest.
            draft.add("pc-total", gpu=named(top, lang), total=money_range(
                top.price_low + base if top.price_low is not None else None, top.price + base,
                currency, knowledge))
        verdict = "buy-desktop"
    where_to_buy(knowledge, currency, draft, whole_pc=verdict == "buy-desktop")
    _multi_gpu_notes(goal, picks, budget, lang, draft)
    price_notes(picks, knowledge, currency, draft, lang, now, base_dates)
    draft.add("old-cards-skipped")
    offer_mac(machine, knowledge, goal, form, budget, currency, nvidia_gb, lang, draft, values, now)
    key = verdict
    if verdict == "buy-desktop" and answers.form_factor == "unsure" and machine.chassis not in KNOWN_CHASSIS:
        key = "buy-desktop-hidden"  # not "a laptop's GPU can't be upgraded": nobody said laptop
    return verdict, key, picks, None, None


def where_to_buy(knowledge: Knowledge, currency: str, draft: Draft, whole_pc: bool) -> None:
    """Where the buyer's market sells new cards and PCs safely, and a whole PC for those who
    would rather not assemble one (the guide's advice)."""
    market = knowledge.market.for_currency(currency)
    if market is not None and market.id in ("cn", "us"):
        draft.add(f"where-to-buy-{market.id}")
        if whole_pc:
            draft.add(f"whole-pc-{market.id}")


def gpu_candidates(knowledge: Knowledge, goal: Goal, currency: str, lang: str) -> list[GpuPick]:
    """Every card worth buying for `goal`, priced in `currency`; unpriced cards are left out."""
    out = []
    for gpu in knowledge.gpus:
        if not _worth_buying(gpu) or gpu.vram_gb < goal.min_vram_gb:
            continue
        price = knowledge.price(gpu, currency)
        if price is None or price.amount <= 0:
            continue
        out.append(GpuPick(
            name=gpu.name, vram_gb=gpu.vram_gb, why=_why(gpu, goal, lang), price=price.amount,
            currency=price.currency, price_kind=price.kind, price_date=price.date,
            price_approximate=price.approximate, price_converted_from=price.converted_from,
            price_converted_market=price.converted_market, price_low=price.low,
            price_reliability=price.reliability, form_factor="desktop",
        ))
    return out


def _worth_buying(gpu: CatalogGpu) -> bool:
    if gpu.vendor != "nvidia" or gpu.segment not in PICK_SEGMENTS or not gpu.has_tensor_cores:
        return False
    try:
        return float(gpu.compute_capability or 0) >= MIN_PICK_COMPUTE_CAPABILITY
    except ValueError:
        return False


def _why(gpu: CatalogGpu, goal: Goal, lang: str) -> str:
    fit = t("advice.pick.value-comfortable" if gpu.vram_gb >= goal.comfortable_vram_gb
            else "advice.pick.value-min", lang)
    if gpu.fp16_tensor_tflops:
        return t("advice.pick.why", lang, vram=number_text(gpu.vram_gb), tflops=number_text(gpu.fp16_tensor_tflops),
                 value=fit)
    return t("advice.pick.why-no-tflops", lang, vram=number_text(gpu.vram_gb))


def _ranker(knowledge: Knowledge, goal: Goal):
    """Best value for the goal: memory up to the comfortable size first, then compute per money."""
    def key(pick: GpuPick) -> tuple:
        tflops = knowledge.gpu(pick.name).fp16_tensor_tflops or 0.0
        value = tflops / pick.price if pick.price else 0.0
        return (-min(pick.vram_gb, goal.comfortable_vram_gb), -value, pick.price or 0, pick.name)
    return key


def _cheapest_first(pick: GpuPick) -> tuple:
    return (pick.price or 0, -pick.vram_gb, pick.name)


def _multi_gpu_notes(goal: Goal, picks: tuple[GpuPick, ...], budget: float, lang: str,
                     draft: Draft) -> None:
    note = goal.multi_gpu_note_zh if lang == "zh" else goal.multi_gpu_note_en
    if note and picks and picks[0].price and budget >= 2 * picks[0].price:
        draft.add("multi-gpu", note=note)
        draft.add("multi-gpu-limit")


def _desktop_base_cost(knowledge: Knowledge, currency: str) -> float:
    """The rest of a desktop PC in the buyer's market (content/market.toml; loading checks
    that every market has a current figure)."""
    price = knowledge.desktop_base(currency)
    if price is None:
        raise KeyError(f"no current rest-of-PC cost for {currency}")
    return price.amount
