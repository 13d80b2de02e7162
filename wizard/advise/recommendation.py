"""The advice's records (what a recommendation holds) and the fixed numbers it reasons with."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from wizard.text.i18n import t

# Cards worth buying today: tensor cores and supported by PyTorch's current CUDA 12.8/13
# wheels (Turing and newer). Older cards still work when owned, but are not picks.
MIN_PICK_COMPUTE_CAPABILITY = 7.5
PICK_SEGMENTS = ("desktop", "workstation")
MAX_PICKS = 3
# Goals whose smallest useful GPU is this small start fine on a CPU (course work, small vision
# models); above it, "I don't need a GPU" gets an answer instead of agreement.
CPU_ENOUGH_VRAM_GB = 4
# macOS lets the GPU wire about 2/3 of unified memory on small Macs and 3/4 on large ones.
APPLE_GPU_SHARE_SMALL, APPLE_GPU_SHARE_LARGE, APPLE_LARGE_RAM_GB = 0.66, 0.75, 36
# A power supply of about the card's power plus 400 W matches NVIDIA's published PSU
# recommendations for RTX 30-50 cards (e.g. 4090: 450 W → 850 W).
PSU_HEADROOM_W = 400


@dataclass(frozen=True)
class GpuPick:
    name: str
    vram_gb: float
    why: str
    price: float | None = None
    currency: str | None = None
    price_kind: str | None = None    # "street" (new) | "used"
    price_date: str | None = None
    price_approximate: bool = False
    price_converted_from: str | None = None
    price_converted_market: str | None = None   # whose street price was converted ("us")
    price_low: float | None = None   # the low end when the price is a range (price is the top)
    price_reliability: str | None = None   # content/market.toml's: high, medium, low
    form_factor: str = "desktop"     # where the card goes: "desktop" | "laptop"; "mac": a whole Mac


@dataclass(frozen=True)
class PlatformPick:
    id: str
    name: str
    url: str
    why: str
    kind: str = "free"


@dataclass(frozen=True)
class Recommendation:
    verdict: str
    headline: str
    reasons: tuple[str, ...]
    torch_command: str | None = None
    gpus: tuple[GpuPick, ...] = ()
    platforms: tuple[PlatformPick, ...] = ()
    goal: str = ""
    form_factor: str = ""                 # the one the advice used (answer or assumption)
    assumed: tuple[str, ...] = ()         # answers that were "not sure" and got a default
    cheapest_adequate: GpuPick | None = None  # set when the budget is too small for any pick
    # What that cheapest option costs in all: the card, plus a desktop around it when the user
    # has none to put it in (a laptop): why a card cheaper than the budget still does not fit.
    cheapest_total: float | None = None
    # The one thing to do next (wizard.diagnosis.judgement.ACTIONS) and the finding it answers. The
    # install command is kept only when installing is the action: beside "keep what works"
    # a newer release is named (newer_torch), never given as a line to run.
    action: str = "none"
    action_finding: str | None = None
    newer_torch: str | None = None
    torch_version: str | None = None      # the release the command installs
    torch_target: str | None = None       # the device it targets: cuda, xpu, mps, cpu
    # A Mac to buy instead, where its unified memory is the better answer (wizard.advise.mac):
    # name, price, and in vram_gb the share of its memory its GPU can use. Beside the picks,
    # never one of them: the picks are NVIDIA cards.
    mac_purchase: GpuPick | None = None


@dataclass(frozen=True)
class LocalGpu:
    name: str
    vendor: str
    vram_gb: float | None         # what a model can use (Apple: the GPU's share of RAM)
    usable_now: bool              # the installed torch already runs on it
    count: int = 1
    smallest_vram_gb: float | None = None
    # What the driver reported (140.4 for an H200 sold as 141 GB): the number every screen
    # shows for this card. vram_gb, the marketed size, is what goals are compared with.
    reading_gb: float | None = None

    @property
    def shown_gb(self) -> float | None:
        return self.reading_gb if self.reading_gb is not None else self.vram_gb


@dataclass
class Draft:
    """The recommendation being assembled; reasons keep their order and never repeat."""

    lang: str
    reasons: list[str] = field(default_factory=list)
    mac_purchase: GpuPick | None = None   # Recommendation.mac_purchase, once the advice offers one

    def add(self, key: str, **values: Any) -> None:
        text = t(f"advice.reason.{key}", self.lang, **values)
        if text not in self.reasons:
            self.reasons.append(text)
