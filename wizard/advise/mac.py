"""A Mac as the purchase, where its unified memory is the better answer for running local LLMs.

A Mac's GPU shares the computer's memory: macOS lets it use about 2/3 of it, 3/4 on Macs with
more than 36 GB (records.APPLE_GPU_SHARE_*), so a 96 GB Mac Studio holds models that no single
NVIDIA card within the same money does. The price of that memory: no CUDA (PyTorch's "mps"
device, MLX, llama.cpp instead), and slower generation and much slower training than on an
NVIDIA card. The advice offers a Mac (Draft.mac_purchase → Recommendation.mac_purchase, with
reasons saying all of that) when, and only when:

  * the goal is running local LLMs (MAC_GOALS) and there is a budget;
  * the buyer's market has a current Apple price (content/market.toml [[mac_price]], never
    converted from another market) for a Mac of the kind wanted: a Mac mini or Mac Studio
    beside a desktop PC, a MacBook for someone who can only use a laptop;
  * that Mac costs no more than the budget and its GPU share is enough for the goal;
  * and no NVIDIA option within the budget (a card for this desktop, a whole PC, or a laptop
    GPU class) has as much memory as that share; or the buyer is on a Mac already, where no
    card can be added and staying on macOS is a reason of its own.

Of the Macs that qualify, the one with the most usable memory (the cheapest of equals). The
verdict and its headline stay those of the NVIDIA advice; only where no NVIDIA option fits the
budget at all does the headline name the Mac (the verdict stays the cloud one, for now).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from wizard.advise.laptop import laptop_classes, laptop_pick
from wizard.advise.market import MacPrice
from wizard.advise.money import format_money, number_text, price_text
from wizard.advise.recommendation import (
    APPLE_GPU_SHARE_LARGE,
    APPLE_GPU_SHARE_SMALL,
    APPLE_LARGE_RAM_GB,
    Draft,
    GpuPick,
)
from wizard.knowledge.goals import Goal
from wizard.knowledge.records import Knowledge
from wizard.probe.facts import Machine
from wizard.text.i18n import t

# Goals a Mac's memory serves: running models, not training them (CUDA-only tools, slow training).
MAC_GOALS = ("llm-inference",)
# The kind of Mac for each form factor the advice works with: a desktop Mac where the NVIDIA
# answer is a card or a whole desktop PC, a MacBook where only a laptop will do.
MAC_FORM = {"desktop": "desktop", "laptop": "desktop", "laptop-only": "laptop"}


def gpu_share(memory_gb: float) -> float:
    """The part of a Mac's memory its GPU may use by default."""
    return APPLE_GPU_SHARE_LARGE if memory_gb > APPLE_LARGE_RAM_GB else APPLE_GPU_SHARE_SMALL


def usable_gb(memory_gb: float) -> float:
    return round(memory_gb * gpu_share(memory_gb), 1)


def mac_pick(row: MacPrice, lang: str) -> GpuPick:
    """A Mac configuration as a pick: `vram_gb` is what its GPU can use, not its memory."""
    usable = usable_gb(row.memory_gb)
    why = t("advice.mac.why", lang, ram=row.memory_gb, usable=number_text(usable),
            share=_share_text(row.memory_gb, lang), chip=row.chip)
    return GpuPick(name=row.label(), vram_gb=usable, why=why, price=float(row.amount), currency=row.currency,
                   price_kind="mac", price_date=row.date, price_low=row.low,
                   price_reliability=row.reliability, form_factor="mac")


def laptop_memory_within(knowledge: Knowledge, goal: Goal, budget: float, currency: str, lang: str) -> float:
    """The most GPU memory of a laptop GPU class enough for `goal` that the budget may buy (one
    without a dated price counts: the budget cannot rule it out, as in wizard.advise.laptop)."""
    sizes = [p.vram_gb for p in (laptop_pick(g, knowledge, currency, lang) for g in laptop_classes(knowledge, goal))
             if p.price is None or (p.price_low if p.price_low is not None else p.price) <= budget]
    return max(sizes, default=0.0)


def offer_mac(machine: Machine, knowledge: Knowledge, goal: Goal, form: str, budget: float | None,
              currency: str, nvidia_gb: float, lang: str, draft: Draft, values: dict[str, Any],
              now: dt.date | None = None) -> GpuPick | None:
    """The Mac to offer beside the NVIDIA advice (module docstring), with its reasons added to
    `draft` and kept in draft.mac_purchase; None when a Mac is not the better answer here.
    `nvidia_gb` is the most memory of an NVIDIA option within the budget, 0 when none fits."""
    kind = MAC_FORM.get(form)
    market = knowledge.market.for_currency(currency)
    if goal.id not in MAC_GOALS or budget is None or budget <= 0 or kind is None or market is None:
        return None
    on_mac = machine.os == "Darwin"
    rows = knowledge.market.mac_prices_in(market.id, kind)
    if not rows:
        if on_mac and knowledge.market.no_mac_price(market.id, kind) is not None:
            draft.add(f"mac-unpriced-{kind}", market=market.name(lang))
        return None
    fits = [r for r in rows if r.amount <= budget and usable_gb(r.memory_gb) >= goal.min_vram_gb
            and (on_mac or usable_gb(r.memory_gb) > nvidia_gb)]
    if not fits:
        return None
    row = max(fits, key=lambda r: (usable_gb(r.memory_gb), -r.amount, r.model))
    pick = mac_pick(row, lang)
    said = dict(mac=pick.name, price=price_text(pick, knowledge, lang, now=now), ram=row.memory_gb,
                usable=number_text(pick.vram_gb), share=_share_text(row.memory_gb, lang))
    if on_mac:
        draft.add("mac-on-mac", **said)
    elif nvidia_gb <= 0:
        draft.add("mac-fits-budget", **said)
    else:
        draft.add("mac-more-memory", nvidia=number_text(nvidia_gb), **said)
    draft.add("mac-trade-off")
    draft.add("mac-price", market=market.name(lang), date=row.date)
    values.update(mac=pick.name, mac_price=said["price"], usable=said["usable"],
                  budget=format_money(budget, currency, knowledge))
    draft.mac_purchase = pick
    return pick


def _share_text(memory_gb: float, lang: str) -> str:
    large = gpu_share(memory_gb) == APPLE_GPU_SHARE_LARGE
    return t("advice.mac.share-large" if large else "advice.mac.share-small", lang)
