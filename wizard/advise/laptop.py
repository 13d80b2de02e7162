"""For a buyer who can only use a laptop: which laptop GPU class meets the goal within the budget.

The guide's own case: no room for a desktop, the computer goes to class. A laptop GPU cannot be
upgraded, runs at a power (TGP) the laptop maker sets, and is slower than the desktop card of the
same name; a desktop gives more for the money. The advice says all of that, names the class, the
memory and the power to look for, and the laptop's price where a dated one exists.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from wizard.advise.money import format_money, money_range, number_text
from wizard.advise.recommendation import MAX_PICKS, Draft, GpuPick
from wizard.knowledge.goals import Goal
from wizard.knowledge.records import Knowledge
from wizard.text.i18n import t

# The laptop GPUs sold new today: the RTX 50 series (older laptop parts are in the catalog to
# name what a student owns, not to buy).
BUYABLE_SERIES = "GeForce RTX 50"


def laptop_classes(knowledge: Knowledge, goal: Goal) -> list[Any]:
    """The buyable laptop GPUs with memory enough for `goal`, smallest (cheapest) first."""
    found = [g for g in knowledge.gpus if g.segment == "laptop" and g.vendor == "nvidia"
             and g.name.startswith(BUYABLE_SERIES) and g.vram_gb >= goal.min_vram_gb]
    return sorted(found, key=lambda g: (g.vram_gb, g.tdp_w_max or 0, g.name))


def laptop_pick(gpu: Any, knowledge: Knowledge, currency: str, lang: str) -> GpuPick:
    market = knowledge.market.for_currency(currency)
    prices = knowledge.market.laptop_prices_of(gpu.name, market.id) if market is not None else ()
    price = prices[0] if prices else None
    why = t("advice.laptop.why", lang, vram=number_text(gpu.vram_gb),
            low=gpu.tdp_w_min or gpu.tdp_w or "", high=gpu.tdp_w_max or gpu.tdp_w or "",
            desktop=gpu.desktop_equivalent or gpu.name.replace(" Laptop GPU", ""))
    return GpuPick(
        name=gpu.name, vram_gb=gpu.vram_gb, why=why,
        price=price.amount if price else None, currency=price.currency if price else currency,
        price_kind="laptop" if price else None, price_date=price.date if price else None,
        price_approximate=True, price_low=price.low if price else None,
        price_reliability=price.reliability if price else None, form_factor="laptop",
    )


def buy_laptop(budget: float | None, currency: str, knowledge: Knowledge, goal: Goal, lang: str,
               draft: Draft, values: dict[str, Any], now: dt.date | None = None
               ) -> tuple[tuple[GpuPick, ...], str | None]:
    """The laptop picks within the budget (a laptop without a dated price is kept: the budget
    cannot rule it out), and the headline key; None when no laptop GPU fits the goal or budget."""
    classes = laptop_classes(knowledge, goal)
    draft.add("laptop-only")
    if not classes:
        draft.add("laptop-too-small", goal=values["goal"], min=values["min"])
        return (), None
    picks = [laptop_pick(g, knowledge, currency, lang) for g in classes]
    affordable = [p for p in picks if budget is None or p.price is None
                  or (p.price_low if p.price_low is not None else p.price) <= budget]
    if not affordable:
        cheapest = min(picks, key=lambda p: p.price_low or p.price or 0)
        draft.add("laptop-over-budget", gpu=cheapest.name, price=_price(cheapest, knowledge),
                  budget=format_money(budget or 0, currency, knowledge))
        return (), None
    chosen = tuple(affordable[:MAX_PICKS])
    top = chosen[0]
    draft.add("laptop-tgp", gpu=top.name)
    draft.add("laptop-caution")
    if any(p.price is None for p in chosen):
        draft.add("laptop-no-price")
    values.update(pick=top.name, vram=number_text(top.vram_gb),
                  price=_price(top, knowledge) if top.price is not None else t("advice.laptop.unpriced", lang))
    return chosen, "buy-laptop"


def _price(pick: GpuPick, knowledge: Knowledge) -> str:
    return money_range(pick.price_low, pick.price or 0, pick.currency or "", knowledge)
