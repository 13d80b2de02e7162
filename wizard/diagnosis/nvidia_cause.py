"""Turn NVML's raw answer into the cause a beginner can act on, using the other probes.

NVML alone says "library not found" on a Mac, in a container without GPU access, on a PC whose
NVIDIA card has no driver, and on a laptop with no NVIDIA card at all: four different stories.
The PCI scan, the chassis and the loaded kernel module tell them apart. The probes
(wizard.probe) only gather those facts; wizard.machine.identify applies this to a machine they assembled
and to a recorded one. The cause is a code (`NvidiaInfo.reason`); `nvidia_message` words it when
it is shown, in the reader's language.
"""

from __future__ import annotations

import re
from dataclasses import replace

from wizard.probe.facts import Gpu, Machine, NvidiaInfo
from wizard.text.i18n import has, t

# Explanations that quote what happened in that run (seconds waited, the signal, the error).
_RUNTIME_DETAIL = {"timeout", "nvml-timeout", "crashed", "nvml-error"}


def refine_reason(
    info: NvidiaInfo,
    *,
    os_name: str,
    chassis: str,
    gpus: tuple[Gpu, ...],
    module_loaded: bool,
    gpu_scan_failed: bool = False,
    jetson: bool = False,
    amd_runtime: bool = False,
) -> str:
    """`jetson`: an NVIDIA Jetson (the GPU is part of the chip, no PCI card, no desktop NVML);
    `amd_runtime`: the Python checked carries AMD's ROCm runtime (a ROCm build of PyTorch)."""
    reason = info.reason or info.status
    nvidia_pci = [g for g in gpus if g.vendor == "nvidia" and g.source in ("pci", "wmi")]
    if jetson and info.status != "ok":
        return "jetson"
    if info.status == "no-library":
        if os_name == "Darwin":
            return "macos"
        if chassis == "wsl":
            # WSL's GPU may be AMD's: then no NVIDIA library is expected, ROCm for WSL is the way.
            return "wsl-amd" if amd_runtime else "wsl-no-library"
        if chassis == "container":
            return "container-no-gpu" if (nvidia_pci or module_loaded) else "container-no-library"
        if any(g.kernel_driver == "nouveau" for g in nvidia_pci):
            return "nouveau"
        if os_name == "Windows" and nvidia_pci:
            return "windows-no-driver"
        if nvidia_pci:
            return "driver-not-installed"
        if gpu_scan_failed and not module_loaded:
            return "gpus-unreadable"  # cannot tell "no card" from "card without a driver"
        if not module_loaded:
            return "no-nvidia-gpu"
        return "no-library"
    if info.status in ("no-driver", "no-device") and any(g.kernel_driver == "nouveau" for g in nvidia_pci):
        return "nouveau"
    if reason == "nvml-unknown" and chassis == "container":
        return "nvml-unknown-container"
    return reason


def is_jetson(machine: Machine) -> bool:
    """An NVIDIA Jetson: Linux on ARM with NVIDIA's Tegra kernel ("5.10.120-tegra"), or an
    NVIDIA kernel module whose version is an L4T release (35.3.1) rather than a driver (550.x)."""
    if machine.os != "Linux" or machine.arch not in ("aarch64", "arm64"):
        return False
    if re.search(r"-tegra\b", machine.os_version):
        return True
    version = machine.nvidia.driver_version or ""
    major = version.split(".")[0]
    return machine.nvidia.status != "ok" and major.isdigit() and int(major) < 100


def has_amd_runtime(machine: Machine) -> bool:
    """The Python checked has AMD's ROCm runtime: a ROCm (HIP) build of PyTorch."""
    torch = machine.torch
    return torch is not None and (torch.build == "rocm" or bool(torch.hip_version))


def context(machine: Machine) -> dict[str, bool]:
    """What refine_reason needs besides NVML's answer, read from the rest of the machine."""
    return {"jetson": is_jetson(machine), "amd_runtime": has_amd_runtime(machine)}


def reason_of(machine: Machine) -> str:
    """The cause behind NVML's status, worked out from the snapshot alone.

    Probing stores a refined `reason`, but a report written by an older version, or a machine
    file written by hand, may carry only the status; "library not found" then means four
    different things (a Mac, a container without --gpus, a card without a driver, no card) that
    the PCI scan, the chassis and the kernel module tell apart here, as they do at probe time.
    """
    nv = machine.nvidia
    if nv.status == "ok":
        return "ok"
    if nv.status == "no-library" or nv.reason in (None, "no-library"):
        scan_failed = any(p.name == "pci" and p.status == "error" for p in machine.probes)
        return refine_reason(replace(nv, reason=None), os_name=machine.os, chassis=machine.chassis,
                             gpus=machine.gpus,
                             module_loaded=nv.kernel_module is not None or nv.driver_version is not None,
                             gpu_scan_failed=scan_failed, **context(machine))
    if is_jetson(machine):
        return "jetson"
    reason = nv.reason or refine_reason(nv, os_name=machine.os, chassis=machine.chassis, gpus=machine.gpus,
                                        module_loaded=nv.kernel_module is not None)
    return "driver-not-loaded" if reason == "no-driver" else reason


def message(info: NvidiaInfo, lang: str, gpu_count: int = 0, detail: str = "",
            seconds: float | None = None) -> str:
    unknown = t("check.unknown", lang)
    if info.status == "ok":
        return t("nvml.ok", lang, driver=info.driver_version or unknown, count=gpu_count,
                 cuda=info.cuda_driver_version or unknown)
    key = f"nvml.{info.reason}"
    if not info.reason or not has(key):
        key = "nvml.nvml-error"
    return t(key, lang, seconds=f"{seconds:g}" if seconds else unknown, detail=detail,
             error=detail or info.status)


def with_reason(machine: Machine) -> NvidiaInfo:
    """The NVIDIA facts of a machine the probes just assembled, with their cause (`reason`): a
    code, worded only when shown (nvidia_message). No sentence: what NVML printed is the nvml
    probe note's detail."""
    info = machine.nvidia
    scan_failed = any(p.name == "pci" and p.status == "error" for p in machine.probes)
    reason = refine_reason(info, os_name=machine.os, chassis=machine.chassis, gpus=machine.gpus,
                           module_loaded=info.kernel_module is not None, gpu_scan_failed=scan_failed,
                           **context(machine))
    return replace(info, reason=None if info.status == "ok" else reason, message=None)


def recorded(machine: Machine) -> NvidiaInfo:
    """A recorded machine's NVIDIA facts: the cause worked out where a report from before reasons
    were kept has none, and the sentence the report was saved with dropped wherever the facts say
    it again in any language. It stays only where it quotes its run (how long NVML was waited
    for, what it printed) or names a cause this version has no words for: then it is the record."""
    info = machine.nvidia
    if info.status != "ok" and info.reason is None:
        info = replace(info, reason=reason_of(machine))
    return info if _keeps_recorded(info) else replace(info, message=None)


def _keeps_recorded(info: NvidiaInfo) -> bool:
    return info.status != "ok" and (info.reason in _RUNTIME_DETAIL or not has(f"nvml.{info.reason}"))


def nvidia_message(machine: Machine, lang: str) -> str:
    """The NVIDIA status as a beginner reads it, in `lang`, from the facts: the cause (`reason`),
    the driver and CUDA versions, and what the NVML helper said and how long it was waited for
    (the nvml probe note's detail and seconds). A recorded machine's sentence is said as it was
    saved where it quotes its run (`recorded`)."""
    info = machine.nvidia
    if info.status != "ok" and info.reason is None:  # a machine neither identified nor recorded
        info = replace(info, reason=reason_of(machine))
    if info.message and _keeps_recorded(info):
        return info.message
    note = next((p for p in machine.probes if p.name == "nvml"), None)
    seconds = note.seconds if note is not None and info.status == "timeout" else None
    count = sum(1 for g in machine.gpus if g.source == "nvml")
    return message(info, lang, count, (note.detail if note else None) or "", seconds)
