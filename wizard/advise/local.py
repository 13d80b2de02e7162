"""This computer's GPU: which one the advice would use, and whether it is enough for the goal."""

from __future__ import annotations

from typing import Any

from wizard.advise.money import number_text
from wizard.advise.recommendation import (
    APPLE_GPU_SHARE_LARGE,
    APPLE_GPU_SHARE_SMALL,
    APPLE_LARGE_RAM_GB,
    Draft,
    LocalGpu,
)
from wizard.diagnosis.findings import Finding
from wizard.knowledge.goals import Goal
from wizard.knowledge.records import Knowledge
from wizard.probe.facts import Gpu, Machine
from wizard.pytorch.causes import torch_not_run
from wizard.pytorch.choose import shell_quote
from wizard.pytorch.vendor_gpus import intel_xpu_capable
from wizard.text.i18n import t
from wizard.text.output import mid_sentence, near_path

# -------------------------------------------------------------------- this computer's GPU ---

def local_gpu(machine: Machine, knowledge: Knowledge) -> LocalGpu | None:
    """The GPU on this computer that deep learning could use, best first; None if none."""
    # Only a torch that imports says which GPU it can use.
    torch = machine.torch if machine.torch is not None and machine.torch.status == "ok" else None
    nvidia = [g for g in machine.nvidia_gpus() if not _is_display_only(g)]
    if nvidia:
        sizes = [_vram(g, knowledge) for g in nvidia]
        readings = [g.vram_gb if g.vram_gb is not None else size for g, size in zip(nvidia, sizes)]
        known = [r for r in readings if r is not None]
        best = max(range(len(nvidia)), key=lambda i: sizes[i] or 0)
        return LocalGpu(
            name=_short_name(nvidia[best].name), vendor="nvidia",
            vram_gb=sizes[best], reading_gb=readings[best],
            usable_now=bool(torch and torch.cuda_available and torch.build == "cuda"),
            count=len(nvidia), smallest_vram_gb=min(known) if known else None,
        )
    apple = [g for g in machine.gpus if g.vendor == "apple"]
    if apple:
        ram = machine.ram_gb
        share = APPLE_GPU_SHARE_LARGE if (ram or 0) > APPLE_LARGE_RAM_GB else APPLE_GPU_SHARE_SMALL
        return LocalGpu(
            name=apple[0].name, vendor="apple",
            vram_gb=round(ram * share, 1) if ram else None,
            usable_now=bool(torch and torch.mps_available),
        )
    amd = [g for g in machine.gpus if g.vendor == "amd" and (_vram(g, knowledge) or 0) >= 4]
    if amd and machine.os == "Linux":
        size = _vram(amd[0], knowledge)
        return LocalGpu(
            name=amd[0].name, vendor="amd", vram_gb=size, reading_gb=amd[0].vram_gb,
            usable_now=bool(torch and torch.cuda_available and torch.build == "rocm"),
            count=len(amd), smallest_vram_gb=size,
        )

    intel = [g for g in machine.gpus if intel_xpu_capable(g) and machine.os in ("Linux", "Windows")]
    if intel:
        size = _vram(intel[0], knowledge)
        return LocalGpu(
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


def current_gpu_verdict(local: LocalGpu, machine: Machine, goal: Goal, errors: list[Finding],
                         draft: Draft, values: dict[str, Any], has_command: bool) -> tuple[str, str]:
    unknown = t("check.unknown", draft.lang)
    values.update(gpu=local.name, vram=number_text(local.shown_gb) if local.shown_gb else unknown)
    if local.vram_gb is not None:
        draft.add("local-gpu", gpu=local.name, vram=number_text(local.shown_gb))
    else:
        draft.add("local-gpu-unknown-vram", gpu=local.name)
    draft.add("goal-need", goal=values["goal"], min=values["min"], comfortable=values["comfortable"])
    if local.vendor == "apple":
        draft.add("apple")
        if machine.ram_gb and local.vram_gb:
            draft.add("apple-memory", ram=number_text(machine.ram_gb), usable=number_text(local.vram_gb))
    elif local.vendor == "amd":
        draft.add("amd-linux")
    elif local.vendor == "intel":
        draft.add("intel-xpu")
    if local.count > 1 and local.smallest_vram_gb is not None:
        draft.add("several-gpus", count=local.count, vram=number_text(local.smallest_vram_gb))
    torch = machine.torch
    torch_installed = torch is not None and torch.status == "ok"
    torch_broken = torch is not None and torch.status in ("import-error", "crashed")
    # A working torch that cannot see a working GPU (the CPU wheel on an NVIDIA laptop) is the
    # most common broken setup; diagnose may or may not have a finding for it.
    torch_blind = torch_installed and not local.usable_now
    if errors or torch_broken or torch_blind:
        fix_first(errors, draft)
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
    skipped = torch_not_run(torch) if torch is not None else None
    if skipped is not None:
        near = near_path(skipped.interpreter)
        draft.add("torch-not-run", path=near, quoted=shell_quote(near, machine.os), version=skipped.torch_version,
                  reason=t(f"check.not-run-reason.{skipped.reason}", draft.lang))
    elif not torch_installed:
        draft.add("torch-not-installed" if has_command else "torch-not-installed-no-command")
    else:
        draft.add("torch-works")
    if local.vram_gb is None:
        return "use-current-gpu", "use-current-gpu-unknown-vram"
    if local.vram_gb < goal.comfortable_vram_gb:
        draft.add("tight", vram=number_text(local.shown_gb), comfortable=values["comfortable"])
        return "use-current-gpu", "use-current-gpu-tight"
    return "use-current-gpu", "use-current-gpu"


def describe_missing_gpu(local: LocalGpu | None, machine: Machine, goal: Goal, draft: Draft,
                          common: dict[str, Any]) -> None:
    if local is not None and local.vram_gb is not None:
        draft.add("local-gpu-too-small", gpu=local.name, vram=number_text(local.shown_gb), **common)
    amd_elsewhere = [g for g in machine.gpus if g.vendor == "amd"] if machine.os != "Linux" else []
    if amd_elsewhere and local is None:
        draft.add("amd-not-linux", gpu=amd_elsewhere[0].name)
    elif local is None:
        draft.add("no-local-gpu")


def fix_first(errors: list[Finding], draft: Draft) -> None:
    # The first error is the next step itself (wizard.diagnosis.judgement.leading), said with its fix
    # above the reasons: the reasons add the ones after it.
    for finding in errors[1:3]:
        draft.add("fix-first", title=finding.title.rstrip(".。"), fix=finding.fix)
