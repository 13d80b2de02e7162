"""Machine → findings: what is wrong or worth knowing, with the fix. Pure; no probing here."""

from __future__ import annotations

from wizard.content import ContentError
from wizard.diagnose_torch import torch_findings
from wizard.findings import SEVERITY_RANK, Finding, make_finding
from wizard.probe.model import Gpu, Machine

LOW_VRAM_GB = 4.0
# NVML reasons that mean "we could not find out", not "this is broken".
_PROBE_FAILURES = {"timeout", "nvml-timeout", "crashed", "nvml-error", "nvml-unknown",
                   "nvml-unknown-container", "bindings-broken", "bindings-missing", "driver-too-old"}
_REASON_FINDING = {
    "nouveau": ("nvidia-nouveau-bound", "error"),
    "driver-not-installed": ("nvidia-no-driver", "error"),
    "windows-no-driver": ("nvidia-no-driver", "error"),
    "version-mismatch": ("nvidia-version-mismatch", "error"),
    "driver-not-loaded": ("nvidia-driver-not-loaded", "error"),
    "no-permission": ("nvidia-no-permission", "error"),
    "gpu-lost": ("nvidia-gpu-lost", "error"),
    "reset-required": ("nvidia-gpu-lost", "error"),
    "container-no-gpu": ("container-without-gpu-access", "error"),
    "wsl-no-library": ("wsl-nvidia-library-missing", "error"),
    "gpus-unreadable": ("gpus-unknown", "warning"),
}


def _finding(fid: str, severity: str, lang: str, **values: object) -> Finding:
    return make_finding("findings", fid, severity, lang, **values)


def _gb(value: float | None) -> str:
    return f"{value:g}" if value is not None else "?"


def hardware_findings(machine: Machine, lang: str = "en") -> list[Finding]:
    found: list[Finding] = []
    nv = machine.nvidia
    nvidia_gpus = machine.nvidia_gpus()
    nvml_gpus = [g for g in nvidia_gpus if g.source == "nvml"]
    first_nvidia = nvidia_gpus[0].name if nvidia_gpus else "NVIDIA GPU"

    if nv.status == "ok" and nvml_gpus:
        names = ", ".join(sorted({g.name for g in nvml_gpus}))
        found.append(_finding("nvidia-ready", "ok", lang, names=names, driver=nv.driver_version or "?",
                              cuda=nv.cuda_driver_version or "?"))
    elif nv.reason in _REASON_FINDING:
        fid, severity = _REASON_FINDING[nv.reason]
        found.append(_finding(fid, severity, lang, name=first_nvidia))
    elif nv.reason in _PROBE_FAILURES or nv.status in ("timeout", "error"):
        found.append(_finding("nvidia-probe-failed", "warning", lang, message=nv.message or nv.status))

    for gpu in nvidia_gpus:
        if gpu.kernel_driver in ("vfio-pci", "pci-stub"):
            found.append(_finding("nvidia-reserved-for-vm", "warning", lang, name=gpu.name,
                                  driver=gpu.kernel_driver))

    for gpu in machine.gpus:
        if _counts_as_compute(gpu) and gpu.vram_gb is not None and gpu.vram_gb < LOW_VRAM_GB \
                and gpu.vendor != "apple":
            found.append(_finding("gpu-low-vram", "warning", lang, name=gpu.name, vram=_gb(gpu.vram_gb)))

    amd = [g for g in machine.gpus if g.vendor == "amd" and _counts_as_compute(g)]
    if amd:
        found.append(_finding("amd-gpu", "info", lang, name=amd[0].name))
    apple = [g for g in machine.gpus if g.vendor == "apple"]
    if apple:
        found.append(_finding("apple-silicon", "info", lang, name=apple[0].name, ram=_gb(machine.ram_gb)))

    if not nvidia_gpus and not amd and not apple and nv.reason not in _REASON_FINDING:
        found.append(_finding("no-gpu", "info", lang))
    return found


def _counts_as_compute(gpu: Gpu) -> bool:
    """Integrated graphics and unknown display adapters are not training hardware."""
    if gpu.vendor == "amd":
        # APUs report a small carve-out as VRAM; a discrete card has its own memory.
        return gpu.unified_memory is not True and (gpu.vram_gb is None or gpu.vram_gb >= 1)
    return gpu.vendor == "nvidia"


def diagnose(machine: Machine, lang: str = "en") -> list[Finding]:
    """All findings, hardware and PyTorch, worst first."""
    findings = hardware_findings(machine, lang)
    if machine.torch is not None:
        try:
            findings.extend(torch_findings(machine, lang))
        except ContentError:
            # The torch matrix is damaged: the hardware findings still stand, and the CLI
            # names the file (wizard.content.DAMAGED).
            pass
    return sorted(findings, key=lambda f: -SEVERITY_RANK[f.severity])
