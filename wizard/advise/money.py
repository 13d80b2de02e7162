"""Money as people read it: prices, budgets and price notes, in the buyer's currency."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from wizard.advise.recommendation import Draft, GpuPick
from wizard.knowledge.records import Knowledge
from wizard.text.i18n import t
from wizard.text.output import gb_text

# ------------------------------------------------------------------------------ money ---

def format_money(amount: float, currency: str, knowledge: Knowledge) -> str:
    try:
        symbol = knowledge.currency(currency).symbol
    except KeyError:
        return f"{amount:,.0f} {currency}"
    return f"{symbol}{amount:,.0f}"


def named(pick: GpuPick, lang: str) -> str:
    """ "a used GeForce RTX 3090" where the price is a second-hand one: the buyer must know."""
    return t("advice.pick.used-name", lang, name=pick.name) if pick.price_kind == "used" else pick.name


def money_range(low: float | None, high: float, currency: str, knowledge: Knowledge) -> str:
    """ "¥4,699–¥6,587" for a range, "¥6,587" without one: each end a full amount, so the
    upper end the budget is compared with reads as itself."""
    top = format_money(high, currency, knowledge)
    if low is None or low >= high:
        return top
    return f"{format_money(low, currency, knowledge)}–{top}"


def price_text(pick: GpuPick, knowledge: Knowledge, lang: str, total: float = 0.0,
               now: dt.date | None = None) -> str:
    """ "about ¥4,699–5,899", or, once the price has aged past the content's limit on the day
    `now` (default: today), "¥4,699–5,899 as of 2026-08, now out of date"."""
    low = pick.price_low + total if pick.price_low is not None else None
    amount = money_range(low, (pick.price or 0) + total, pick.currency or "", knowledge)
    if pick.price_date and knowledge.market.out_of_date(pick.price_date, now):
        return t("advice.pick.price-dated", lang, amount=amount, date=pick.price_date)
    # A total with the rest of the PC is an estimate, whatever the card's price is.
    key = "advice.pick.price-about" if pick.price_approximate or total else "advice.pick.price"
    return t(key, lang, amount=amount)


def price_notes(picks: Iterable[GpuPick], knowledge: Knowledge, currency: str, draft: Draft,
                 lang: str, now: dt.date | None = None, other_dates: Iterable[str] = ()) -> None:
    """What the prices are, from when, and how far to trust them. A price older than the
    content's age limit on the day `now` (default: today) is said to be out of date, with its
    date, instead of being offered as today's; `other_dates` are those of other figures the
    advice used (the rest of a PC)."""
    picks = tuple(picks)
    joiner = t("advice.assume.joiner", lang)
    market = knowledge.market
    stale = sorted({d for d in (*(p.price_date for p in picks if p.price_date), *other_dates)
                    if market.out_of_date(d, now)})
    if stale:
        today = now or dt.date.today()
        draft.add("prices-out-of-date", dates=joiner.join(stale), months=market.max_age_months,
                  today=today.isoformat())
    dates: dict[str, list[str]] = {}
    for pick in picks:
        if pick.price_kind and not (pick.price_date and pick.price_date in stale):
            seen = dates.setdefault(pick.price_kind, [])
            if (pick.price_date or "?") not in seen:
                seen.append(pick.price_date or "?")
    kinds = [t(f"advice.price-kind.{kind}", lang, date=joiner.join(sorted(d))) for kind, d in dates.items()]
    if kinds:
        draft.add("prices", kinds=joiner.join(kinds))
    if any(p.price_low is not None for p in picks):
        draft.add("prices-range")
    for level in ("medium", "low"):
        names = [p.name for p in picks if p.price_reliability == level]
        if names:
            draft.add(f"prices-reliability-{level}", names=joiner.join(names))
    if any(p.price_kind == "used" for p in picks):
        draft.add("used-card")
    converted = next((p for p in picks if p.price_converted_from), None)
    if converted is not None and converted.price_converted_from:
        try:
            rate = knowledge.rate(converted.price_converted_from, currency)
            source = knowledge.market.market(converted.price_converted_market or "")
            here = knowledge.market.for_currency(currency)
        except KeyError:
            return
        draft.add("prices-converted", currency=currency, source_market=source.name(lang),
                  market=here.name(lang) if here else currency,
                  rate=f"1 {converted.price_converted_from} = {rate.rate:.2f} {currency}", rate_date=rate.date)


def number_text(value: float | None) -> str:
    """Sizes as people say them: 12, 10.6, 141 (never 11.99): wizard.text.output's one rule."""
    return "unknown" if value is None else gb_text(value)

