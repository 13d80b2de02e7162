"""Answers + machine + knowledge → the recommendation (the `[recommendation]` table).

Pure and deterministic: no probing, no clock, no network; the same inputs give the same
advice, so it is table-tested over recorded machines. The order of the questions below is
the order a good TA would ask them: does the student need a GPU at all; does this computer
already have one that is enough (then use it, or fix its setup first); if not, can this
computer take a card; what does the budget buy; and what is free meanwhile.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from wizard.answers import Answers
from wizard.findings import Finding
from wizard.i18n import has, t
from wizard.knowledge import CatalogGpu, Goal, Knowledge, Platform
from wizard.probe.model import Gpu, Machine

# Cards worth buying today: tensor cores and supported by PyTorch's current CUDA 12.8/13
# wheels (Turing and newer). Older cards still work when owned, but are not picks.
MIN_PICK_COMPUTE_CAPABILITY = 7.5
PICK_SEGMENTS = ("desktop", "workstation")
# Chassis a probe can see; anything else (VM, container, WSL) hides the computer underneath.
KNOWN_CHASSIS = ("desktop", "laptop", "server")
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
    form_factor: str = "desktop"     # where the card goes: "desktop" | "laptop"


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


@dataclass(frozen=True)
class _LocalGpu:
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
class _Draft:
    """The recommendation being assembled; reasons keep their order and never repeat."""

    lang: str
    reasons: list[str] = field(default_factory=list)

    def add(self, key: str, **values: Any) -> None:
        text = t(f"advice.reason.{key}", self.lang, **values)
        if text not in self.reasons:
            self.reasons.append(text)


def advise(answers: Answers, machine: Machine, knowledge: Knowledge, lang: str = "en",
           findings: Iterable[Finding] = (), torch_choice: Any = None) -> Recommendation:
    """The advice for this user and machine.

    `findings` come from wizard.diagnose; `torch_choice` is wizard.install's choice for this
    machine (anything with `.command` and `.reason`); without it no command is given.
    """
    findings = tuple(findings)
    draft = _Draft(lang)
    assumed: list[str] = []
    goal = _goal(answers, knowledge, assumed)
    goal_label = goal_phrase(goal, lang)
    form = _form_factor(answers, machine, assumed)
    if answers.need_gpu == "unsure":
        assumed.append("need_gpu")
    if answers.has_nvidia == "unsure":
        assumed.append("has_nvidia")
    if answers.budget_amount is None:
        assumed.append("budget_amount")
    local = local_gpu(machine, knowledge)
    errors = [f for f in findings if f.severity == "error"]
    torch_command = getattr(torch_choice, "command", None) if torch_choice is not None else None
    region_cn = answers.budget_currency == "CNY" or lang == "zh"
    platforms = rank_platforms(knowledge, goal, lang, region_cn)
    platform_name = platforms[0].name if platforms else t("advice.headline.no-platform", lang)
    common = {"goal": goal_label, "min": _num(goal.min_vram_gb),
              "comfortable": _num(goal.comfortable_vram_gb)}

    _answer_disagreements(answers, machine, draft)
    if form == "server" and machine.chassis == "server":
        draft.add("server-ssh")

    verdict: str
    headline_key: str
    values: dict[str, Any] = dict(common, platform=platform_name)
    picks: tuple[GpuPick, ...] = ()
    cheapest: GpuPick | None = None
    cheapest_total: float | None = None
    shown_platforms = platforms

    said_no = answers.need_gpu == "no"
    local_enough = local is not None and (local.vram_gb is None or local.vram_gb >= goal.min_vram_gb)
    if said_no and goal.min_vram_gb > CPU_ENOUGH_VRAM_GB:
        # The goal answers the "no": never "you don't need a GPU for fine-tuning LLMs".
        draft.add("said-no-gpu-heavy-goal", **common)
    if said_no and goal.min_vram_gb <= CPU_ENOUGH_VRAM_GB:
        verdict, headline_key = "no-gpu-needed", "no-gpu-needed"
        draft.add("cpu-start")
        _fix_first(errors, draft)
        shown_platforms = tuple(p for p in platforms if p.kind != "paid")
    elif local is not None and local_enough:
        verdict, headline_key = _current_gpu_verdict(local, machine, goal, errors, draft, values,
                                                     has_command=bool(torch_command))
        shown_platforms = tuple(p for p in platforms if p.kind != "paid")
        if verdict == "use-current-gpu" and local.vram_gb is not None:
            # A working GPU here: a cloud GPU is only worth naming when it is bigger (an H200
            # server is never sent to free T4s).
            shown_platforms = tuple(p for p in platforms
                                    if knowledge.platform(p.id).max_vram_gb > local.vram_gb
                                    and local.vram_gb < goal.comfortable_vram_gb)
    elif said_no:
        # No GPU here and none wanted: a cloud GPU, not a purchase.
        draft.add("goal-need", **common)
        _describe_missing_gpu(local, machine, goal, draft, common)
        _fix_first(errors, draft)
        free_vram = _best_free_vram(knowledge, platforms, goal)
        if free_vram >= goal.min_vram_gb:
            draft.add("free-fits", vram=_num(free_vram), goal=goal_label)
            verdict, headline_key = "use-free-cloud", "said-no-use-free-cloud"
            shown_platforms = tuple(p for p in platforms if p.kind != "paid") or platforms
        else:
            draft.add("free-too-small", vram=_num(free_vram), min=common["min"], goal=goal_label)
            verdict, headline_key = "rent-cloud", "said-no-rent-cloud"
            shown_platforms = tuple(p for p in platforms if p.kind == "paid") + tuple(
                p for p in platforms if p.kind != "paid")
        values["platform"] = shown_platforms[0].name if shown_platforms else platform_name
    else:
        draft.add("goal-need", **common)
        _describe_missing_gpu(local, machine, goal, draft, common)
        _fix_first(errors, draft)
        verdict, headline_key, picks, cheapest, cheapest_total = _new_hardware(
            answers, machine, knowledge, goal, form, lang, draft, values, platforms)
        if verdict == "use-free-cloud":
            shown_platforms = tuple(p for p in platforms if p.kind != "paid") or platforms
        elif verdict == "rent-cloud":
            shown_platforms = tuple(p for p in platforms if p.kind == "paid") + tuple(
                p for p in platforms if p.kind != "paid")
        values["platform"] = shown_platforms[0].name if shown_platforms else platform_name

    if machine.ram_gb is not None and machine.ram_gb < goal.min_ram_gb and verdict not in (
            "buy-desktop", "buy-laptop", "use-free-cloud", "rent-cloud"):
        # The goal step warned about it; the advice that works on this computer says it too.
        draft.add("ram-short", ram=_num(machine.ram_gb), need=_num(goal.min_ram_gb), goal=goal_label)
    if torch_choice is not None and torch_command is None and getattr(torch_choice, "reason", None):
        draft.add("no-torch-command", reason=torch_choice.reason)
    if torch_choice is not None and "gpu-limits" in (getattr(torch_choice, "warning_ids", None) or ()):
        # The newest PyTorch dropped this GPU (Maxwell, Pascal, Volta after 2.14.1): it still
        # works, frozen on an old release, and that belongs in the advice, not only the command.
        draft.add("gpu-support-ended", version=torch_choice.torch_version)

    headline = t(f"advice.headline.{headline_key}", lang, **values)
    if assumed:
        headline = t("advice.headline.assumed", lang, headline=headline.rstrip(".。"),
                     assumptions=_assumption_text(assumed, form, goal_label, lang,
                                                  bool(machine.nvidia_gpus()),
                                                  machine.chassis not in KNOWN_CHASSIS))
    return Recommendation(
        verdict=verdict,
        headline=headline,
        reasons=tuple(draft.reasons),
        torch_command=torch_command,
        gpus=picks,
        platforms=shown_platforms[:MAX_PICKS],
        goal=goal.id,
        form_factor=form,
        assumed=tuple(assumed),
        cheapest_adequate=cheapest,
        cheapest_total=cheapest_total,
    )


# ------------------------------------------------------------------------- the answers ---

def _goal(answers: Answers, knowledge: Knowledge, assumed: list[str]) -> Goal:
    try:
        return knowledge.goal(answers.goal)
    except KeyError:
        # Answers are validated against the knowledge before they get here; this only
        # guards a caller that skipped that, so the advice still has a goal.
        assumed.append("goal")
        return knowledge.goals[0]


def goal_phrase(goal: Goal, lang: str) -> str:
    """The goal as it reads inside a sentence: "enough for fine-tuning LLMs"."""
    key = f"advice.goal-phrase.{goal.id}"
    if has(key, lang):
        return t(key, lang)
    return re.sub(r"\s*[(（].*?[)）]\s*", " ", goal.label(lang)).strip()


def _form_factor(answers: Answers, machine: Machine, assumed: list[str]) -> str:
    if answers.form_factor != "unsure":
        return answers.form_factor
    assumed.append("form_factor")
    if machine.chassis in KNOWN_CHASSIS:
        return machine.chassis
    # Can't tell (VM, container, WSL): assume the computer can't take a card, the cautious
    # choice; a desktop owner loses nothing but a suggestion.
    return "laptop"


def _assumption_text(assumed: list[str], form: str, goal_label: str, lang: str,
                     nvidia_found: bool, host_hidden: bool = False) -> str:
    parts = []
    for name in assumed:
        key = f"form_factor-{form}" if name == "form_factor" else name
        if name == "form_factor" and host_hidden:
            key = "form_factor-hidden"
        if name == "has_nvidia" and not nvidia_found:
            key = "has_nvidia-none"  # "the GPU found here is yours" needs a GPU found
        parts.append(t(f"advice.assume.{key}", lang, goal=goal_label))
    return t("advice.assume.joiner", lang).join(parts)


def _answer_disagreements(answers: Answers, machine: Machine, draft: _Draft) -> None:
    """What this computer shows wins over the answer; say so when they differ."""
    nvidia = machine.nvidia_gpus()
    if answers.has_nvidia == "yes" and not nvidia:
        draft.add("said-nvidia-not-found")
    elif answers.has_nvidia == "no" and nvidia:
        draft.add("said-no-nvidia-found", gpu=nvidia[0].name)
    if answers.form_factor in ("desktop", "laptop") and machine.chassis in ("vm", "container", "wsl"):
        # The advice is about the physical computer; this program only sees a guest inside it.
        draft.add(f"runs-inside-{machine.chassis}")


# -------------------------------------------------------------------- this computer's GPU ---

def local_gpu(machine: Machine, knowledge: Knowledge) -> _LocalGpu | None:
    """The GPU on this computer that deep learning could use, best first; None if none."""
    # Only a torch that imports says which GPU it can use.
    torch = machine.torch if machine.torch is not None and machine.torch.status == "ok" else None
    nvidia = [g for g in machine.nvidia_gpus() if not _is_display_only(g)]
    if nvidia:
        sizes = [_vram(g, knowledge) for g in nvidia]
        readings = [g.vram_gb if g.vram_gb is not None else size for g, size in zip(nvidia, sizes)]
        known = [r for r in readings if r is not None]
        best = max(range(len(nvidia)), key=lambda i: sizes[i] or 0)
        return _LocalGpu(
            name=_short_name(nvidia[best].name), vendor="nvidia",
            vram_gb=sizes[best], reading_gb=readings[best],
            usable_now=bool(torch and torch.cuda_available and torch.build == "cuda"),
            count=len(nvidia), smallest_vram_gb=min(known) if known else None,
        )
    apple = [g for g in machine.gpus if g.vendor == "apple"]
    if apple:
        ram = machine.ram_gb
        share = APPLE_GPU_SHARE_LARGE if (ram or 0) > APPLE_LARGE_RAM_GB else APPLE_GPU_SHARE_SMALL
        return _LocalGpu(
            name=apple[0].name, vendor="apple",
            vram_gb=round(ram * share, 1) if ram else None,
            usable_now=bool(torch and torch.mps_available),
        )
    amd = [g for g in machine.gpus if g.vendor == "amd" and (_vram(g, knowledge) or 0) >= 4]
    if amd and machine.os == "Linux":
        size = _vram(amd[0], knowledge)
        return _LocalGpu(
            name=amd[0].name, vendor="amd", vram_gb=size, reading_gb=amd[0].vram_gb,
            usable_now=bool(torch and torch.cuda_available and torch.build == "rocm"),
            count=len(amd), smallest_vram_gb=size,
        )
    from wizard.vendor_gpus import intel_xpu_capable

    intel = [g for g in machine.gpus if intel_xpu_capable(g) and machine.os in ("Linux", "Windows")]
    if intel:
        size = _vram(intel[0], knowledge)
        return _LocalGpu(
            name=intel[0].name, vendor="intel", vram_gb=size, reading_gb=intel[0].vram_gb,
            usable_now=bool(torch and torch.xpu_available and torch.build == "xpu"),
            count=len(intel), smallest_vram_gb=size,
        )
    return None


def _is_display_only(gpu: Gpu) -> bool:
    # A PCI function without memory size and bound to vfio is passed to a VM, not usable here.
    return gpu.kernel_driver in ("vfio-pci", "pci-stub")


def _vram(gpu: Gpu, knowledge: Knowledge) -> float | None:
    """The card's marketed memory when the catalog knows it, else what the driver reported.

    Drivers report a little less than the box says (a 12 GB card reads 11.99 GB), and the
    goals' needs are in marketed sizes, so comparing the raw reading would fail a 12 GB
    card for a 12 GB goal.
    """
    entry = knowledge.find_gpu(gpu.name, gpu.vram_gb)
    if entry is not None and not entry.unified_memory:
        return float(entry.vram_gb)
    if gpu.vram_gb is not None:
        return gpu.vram_gb
    return None


def _short_name(name: str) -> str:
    return name.removeprefix("NVIDIA ").strip()


def _current_gpu_verdict(local: _LocalGpu, machine: Machine, goal: Goal, errors: list[Finding],
                         draft: _Draft, values: dict[str, Any], has_command: bool) -> tuple[str, str]:
    unknown = t("guide.live.unknown", draft.lang)
    values.update(gpu=local.name, vram=_num(local.shown_gb) if local.shown_gb else unknown)
    if local.vram_gb is not None:
        draft.add("local-gpu", gpu=local.name, vram=_num(local.shown_gb))
    else:
        draft.add("local-gpu-unknown-vram", gpu=local.name)
    draft.add("goal-need", goal=values["goal"], min=values["min"], comfortable=values["comfortable"])
    if local.vendor == "apple":
        draft.add("apple")
        if machine.ram_gb and local.vram_gb:
            draft.add("apple-memory", ram=_num(machine.ram_gb), usable=_num(local.vram_gb))
    elif local.vendor == "amd":
        draft.add("amd-linux")
    elif local.vendor == "intel":
        draft.add("intel-xpu")
    if local.count > 1 and local.smallest_vram_gb is not None:
        draft.add("several-gpus", count=local.count, vram=_num(local.smallest_vram_gb))
    torch = machine.torch
    torch_installed = torch is not None and torch.status == "ok"
    torch_broken = torch is not None and torch.status in ("import-error", "crashed")
    # A working torch that cannot see a working GPU (the CPU wheel on an NVIDIA laptop) is the
    # most common broken setup; diagnose may or may not have a finding for it.
    torch_blind = torch_installed and not local.usable_now
    if errors or torch_broken or torch_blind:
        _fix_first(errors, draft)
        if errors:
            problem = errors[0].title
        elif torch_broken:
            problem = t("advice.headline.problem-torch-broken", draft.lang)
        else:
            problem = t("advice.headline.problem-torch-blind", draft.lang)
        if (torch_blind or torch_broken) and not errors:
            draft.add("torch-not-on-gpu" if has_command else "torch-not-on-gpu-no-command")
        values["problem"] = mid_sentence(problem.rstrip(".。"))
        return "fix-setup", ("fix-setup" if local.vram_gb is not None else "fix-setup-unknown-vram")
    if not torch_installed:
        draft.add("torch-not-installed" if has_command else "torch-not-installed-no-command")
    else:
        draft.add("torch-works")
    if local.vram_gb is None:
        return "use-current-gpu", "use-current-gpu-unknown-vram"
    if local.vram_gb < goal.comfortable_vram_gb:
        draft.add("tight", vram=_num(local.shown_gb), comfortable=values["comfortable"])
        return "use-current-gpu", "use-current-gpu-tight"
    return "use-current-gpu", "use-current-gpu"


def _describe_missing_gpu(local: _LocalGpu | None, machine: Machine, goal: Goal, draft: _Draft,
                          common: dict[str, Any]) -> None:
    if local is not None and local.vram_gb is not None:
        draft.add("local-gpu-too-small", gpu=local.name, vram=_num(local.shown_gb), **common)
    amd_elsewhere = [g for g in machine.gpus if g.vendor == "amd"] if machine.os != "Linux" else []
    if amd_elsewhere and local is None:
        draft.add("amd-not-linux", gpu=amd_elsewhere[0].name)
    elif local is None:
        draft.add("no-local-gpu")


def _fix_first(errors: list[Finding], draft: _Draft) -> None:
    for finding in errors[:3]:
        draft.add("fix-first", title=finding.title.rstrip(".。"), fix=finding.fix)


# ------------------------------------------------------------------------ new hardware ---

def _new_hardware(answers: Answers, machine: Machine, knowledge: Knowledge, goal: Goal, form: str,
                  lang: str, draft: _Draft, values: dict[str, Any],
                  platforms: tuple[PlatformPick, ...]
                  ) -> tuple[str, str, tuple[GpuPick, ...], GpuPick | None, float | None]:
    currency = answers.budget_currency
    budget = answers.budget_amount
    free_vram = _best_free_vram(knowledge, platforms, goal)
    free_ok = free_vram >= goal.min_vram_gb
    cloud_verdict = "use-free-cloud" if free_ok else "rent-cloud"
    if free_ok:
        draft.add("free-fits", vram=_num(free_vram), goal=values["goal"])
    else:
        draft.add("free-too-small", vram=_num(free_vram), min=values["min"], goal=values["goal"])
    is_mac = machine.os == "Darwin" or any(g.vendor == "apple" for g in machine.gpus)
    can_take_card = form == "desktop" and not is_mac

    if form == "server":
        draft.add("server-admin")
        return cloud_verdict, "server", (), None, None
    if is_mac:
        draft.add("apple-no-upgrade")
    elif form == "laptop" and answers.form_factor == "unsure" and machine.chassis not in KNOWN_CHASSIS:
        # A VM, container or WSL hides the computer underneath: say so, not "a laptop".
        draft.add("host-unknown")
    elif form == "laptop":
        draft.add("laptop")

    base = 0.0 if can_take_card else _desktop_base_cost(knowledge, currency)
    candidates = gpu_candidates(knowledge, goal, currency, lang)
    if budget is None:
        draft.add("unsure-budget", goal=values["goal"])
        picks = tuple(sorted(candidates, key=_cheapest_first)[:MAX_PICKS])
        _price_notes(picks, knowledge, currency, draft, lang)
        return cloud_verdict, ("use-free-cloud-unsure-budget" if free_ok else "rent-cloud"), picks, None, None
    if budget <= 0:
        draft.add("no-budget")
        if form == "laptop":
            draft.add("laptop-plus-cloud")
        return cloud_verdict, ("use-free-cloud-no-budget" if free_ok else "rent-cloud"), (), None, None

    affordable = [c for c in candidates if c.price is not None and c.price + base <= budget]
    if not affordable:
        cheapest = min(candidates, key=_cheapest_first, default=None)
        budget_text = format_money(budget, currency, knowledge)
        if cheapest is not None:
            name = t("advice.headline.pc-with", lang, gpu=_named(cheapest, lang)) if base else _named(cheapest, lang)
            values.update(budget=budget_text, cheapest=name,
                          price=_price_text(cheapest, knowledge, lang, total=base))
            if base:
                draft.add("too-small-desktop", goal=values["goal"], gpu=_named(cheapest, lang),
                          total=format_money((cheapest.price or 0) + base, currency, knowledge),
                          budget=budget_text)
            else:
                draft.add("too-small", goal=values["goal"], gpu=_named(cheapest, lang),
                          price=_price_text(cheapest, knowledge, lang), budget=budget_text)
            _price_notes((cheapest,), knowledge, currency, draft, lang)
            key = "too-small" if free_ok else "rent-cloud-too-small"
        else:
            key = "use-free-cloud" if free_ok else "rent-cloud"
        if form == "laptop":
            draft.add("laptop-plus-cloud")
        total = cheapest.price + base if cheapest is not None and cheapest.price is not None else None
        return cloud_verdict, key, (), cheapest, total

    picks = tuple(sorted(affordable, key=_ranker(knowledge, goal))[:MAX_PICKS])
    top = picks[0]
    values.update(pick=_named(top, lang), price=_price_text(top, knowledge, lang))
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
        rest = knowledge.desktop_base(currency)
        draft.add("desktop-base", base=format_money(base, currency, knowledge),
                  date=rest.date if rest is not None else "")
        verdict = "buy-desktop"
    _multi_gpu_notes(goal, picks, budget, lang, draft)
    _price_notes(picks, knowledge, currency, draft, lang)
    draft.add("old-cards-skipped")
    key = verdict
    if verdict == "buy-desktop" and answers.form_factor == "unsure" and machine.chassis not in KNOWN_CHASSIS:
        key = "buy-desktop-hidden"  # not "a laptop's GPU can't be upgraded": nobody said laptop
    return verdict, key, picks, None, None


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
            price_converted_market=price.converted_market, form_factor="desktop",
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
        return t("advice.pick.why", lang, vram=_num(gpu.vram_gb), tflops=_num(gpu.fp16_tensor_tflops),
                 value=fit)
    return t("advice.pick.why-no-tflops", lang, vram=_num(gpu.vram_gb))


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
                     draft: _Draft) -> None:
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


# ----------------------------------------------------------------------------- clouds ---

def rank_platforms(knowledge: Knowledge, goal: Goal, lang: str,
                   region_cn: bool) -> tuple[PlatformPick, ...]:
    """Cloud platforms best first: enough GPU memory for the goal, reachable from the user's
    region (mainland China: no VPN needed), free before paid, then the data file's order."""
    def key(item: tuple[int, Platform]) -> tuple:
        index, p = item
        fits = p.max_vram_gb >= goal.min_vram_gb
        if region_cn:
            blocked = p.cn_access == "vpn"
            access = CN_ACCESS_RANK.get(p.cn_access, 2)
        else:
            blocked = False
            access = 0 if p.region == "global" else 1
        return (not fits, blocked, p.kind == "paid", access, index)

    ranked = sorted(enumerate(knowledge.platforms), key=key)
    return tuple(_platform_pick(p, goal, lang, region_cn) for _, p in ranked)


CN_ACCESS_RANK = {"direct": 0, "slow": 1, "unknown": 2, "vpn": 3}


def _platform_pick(p: Platform, goal: Goal, lang: str, region_cn: bool) -> PlatformPick:
    parts = [p.summary(lang)]
    if region_cn and p.needs_vpn_from_cn:
        parts.append(t("advice.platform.vpn", lang))
    return PlatformPick(id=p.id, name=p.display_name(lang), url=p.url,
                        why=t("advice.platform.sep", lang).join(parts), kind=p.kind)


def _best_free_vram(knowledge: Knowledge, platforms: tuple[PlatformPick, ...], goal: Goal) -> float:
    """The free GPU memory of the best-ranked free platform that fits, else the largest free one."""
    by_id = {p.id: p for p in knowledge.platforms}
    free = [by_id[p.id] for p in platforms if p.kind != "paid" and p.id in by_id]
    for p in free:
        if (p.free_vram_gb or 0) >= goal.min_vram_gb:
            return float(p.free_vram_gb or 0)
    return max((float(p.free_vram_gb or 0) for p in free), default=0.0)


# ------------------------------------------------------------------------------ money ---

def format_money(amount: float, currency: str, knowledge: Knowledge) -> str:
    try:
        symbol = knowledge.currency(currency).symbol
    except KeyError:
        return f"{amount:,.0f} {currency}"
    return f"{symbol}{amount:,.0f}"


def _named(pick: GpuPick, lang: str) -> str:
    """ "a used GeForce RTX 3090" where the price is a second-hand one: the buyer must know."""
    return t("advice.pick.used-name", lang, name=pick.name) if pick.price_kind == "used" else pick.name


def _price_text(pick: GpuPick, knowledge: Knowledge, lang: str, total: float = 0.0) -> str:
    amount = format_money((pick.price or 0) + total, pick.currency or "", knowledge)
    # A total with the rest of the PC is an estimate, whatever the card's price is.
    key = "advice.pick.price-about" if pick.price_approximate or total else "advice.pick.price"
    return t(key, lang, amount=amount)


def _price_notes(picks: Iterable[GpuPick], knowledge: Knowledge, currency: str, draft: _Draft,
                 lang: str) -> None:
    picks = tuple(picks)
    dates: dict[str, list[str]] = {}
    for pick in picks:
        if pick.price_kind:
            seen = dates.setdefault(pick.price_kind, [])
            if (pick.price_date or "?") not in seen:
                seen.append(pick.price_date or "?")
    joiner = t("advice.assume.joiner", lang)
    kinds = [t(f"advice.price-kind.{kind}", lang, date=joiner.join(sorted(d))) for kind, d in dates.items()]
    if kinds:
        draft.add("prices", kinds=t("advice.assume.joiner", lang).join(kinds))
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


def _num(value: float | None) -> str:
    """Sizes as people say them: 12, 10.6, 141 (never 11.99): wizard.textout's one rule."""
    from wizard.textout import gb_text

    return "unknown" if value is None else gb_text(value)


def mid_sentence(title: str) -> str:
    """A finding's title placed after a colon inside a sentence: "This PyTorch has…" becomes
    "this PyTorch has…"; names ("PyTorch", "NVIDIA", "GeForce …") keep their capitals."""
    first, _, rest = title.partition(" ")
    if first[:1].isupper() and first[1:].islower() and first.isalpha() and first not in _NAMES:
        return first.lower() + (" " + rest if rest else "")
    return title


# Capitalised words that are names, not sentence starts.
_NAMES = frozenset({"Docker", "Windows", "Linux", "Ubuntu", "Fedora", "Apple", "Intel", "Kaggle",
                    "Colab", "Python", "Mac", "WSL"})
