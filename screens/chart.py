"""Bar charts in plain terminal characters: the picks (and your GPU) on price and value.

Text, not a plotting widget, so the chart reads the same over SSH, without colour, in a
snapshot and in LANG=C (where the bar character falls back to '#').
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from wizard.advise import format_money
from wizard.text.i18n import t
from wizard.text.output import cell_width

MAX_LABEL = 26


@dataclass(frozen=True)
class Bar:
    label: str
    value: float | None   # None: nothing to draw (no price known)
    text: str             # the number as shown after the bar


def _fit(label: str, width: int) -> str:
    """Cut a label to `width` terminal cells (Chinese characters take two) and pad it."""
    out = ""
    for ch in label:
        if cell_width(out + ch) > width - (1 if cell_width(label) > width else 0):
            out += "…"
            break
        out += ch
    return out + " " * (width - cell_width(out))


def render(bars: Iterable[Bar], width: int = 76, fill: str = "█") -> list[str]:
    """One line per bar: label, a bar scaled to the largest value, then the number."""
    bars = list(bars)
    if not bars:
        return []
    label_width = min(MAX_LABEL, max(cell_width(b.label) for b in bars))
    text_width = max(cell_width(b.text) for b in bars)
    room = max(4, width - label_width - text_width - 2)
    top = max((b.value for b in bars if b.value), default=0.0)
    lines = []
    for bar in bars:
        length = 0
        if bar.value and top:
            length = max(1, round(room * bar.value / top))
        lines.append(f"{_fit(bar.label, label_width)} {fill * length}{' ' * (room - length)} {bar.text}".rstrip())
    return lines


def comparison(rec: Any, machine: Any, knowledge: Any, currency: str,
               lang: str) -> tuple[list[Bar], list[Bar]]:
    """(price bars, speed-per-price bars) for the picks, plus this computer's GPU if known."""
    rows: list[tuple[str, float | None, float | None]] = []  # label, price, fp16 tensor TFLOPS
    for pick in rec.gpus or ((rec.cheapest_adequate,) if rec.cheapest_adequate else ()):
        entry = knowledge.find_gpu(pick.name)
        rows.append((pick.name, pick.price, entry.fp16_tensor_tflops if entry else None))
    mine = _own_gpu(machine, knowledge, currency, lang)
    if mine is not None and rows:
        rows.append(mine)
    if not rows:
        return [], []
    symbol_unit = format_money(1000, currency, knowledge)
    prices = [Bar(label, price, format_money(price, currency, knowledge) if price else
                  t("ui.result.no_price", lang)) for label, price, _ in rows]
    value = []
    for label, price, tflops in rows:
        if price and tflops:
            per = tflops * 1000 / price
            value.append(Bar(label, per, t("ui.result.per_money", lang, value=f"{per:.1f}",
                                           money=symbol_unit)))
        else:
            value.append(Bar(label, None, t("ui.result.no_value", lang)))
    return prices, value


def _own_gpu(machine: Any, knowledge: Any, currency: str,
             lang: str) -> tuple[str, float | None, float | None] | None:
    nvidia = [g for g in machine.nvidia_gpus() if g.vram_gb or g.source == "nvml"]
    if not nvidia:
        return None
    gpu = max(nvidia, key=lambda g: g.vram_gb or 0)
    entry = knowledge.find_gpu(gpu.name, gpu.vram_gb, gpu.laptop)
    if entry is None:
        return None
    price = knowledge.price(entry, currency)
    label = t("ui.result.yours", lang, gpu=entry.name)
    return (label, price.amount if price else None, entry.fp16_tensor_tflops)
