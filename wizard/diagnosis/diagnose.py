"""Machine → findings: what is wrong or worth knowing, with the fix. Pure; no probing here."""

from __future__ import annotations

from wizard.diagnosis import nvidia_cause
from wizard.diagnosis.findings import SEVERITY_RANK, Finding, make_finding
from wizard.diagnosis.judgement import disk_severity, ram_severity
from wizard.knowledge.content import ContentError
from wizard.probe.facts import Gpu, Machine
from wizard.text.i18n import t
from wizard.text.output import gb_text

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
# Windows Device Manager problem codes (Win32_VideoController.ConfigManagerErrorCode) that leave
# a card with its driver installed and no program able to use it.
_DISABLED, _STOPPED = 22, 43
_WINDOWS_PROBLEM = {_DISABLED: "nvidia-gpu-disabled", _STOPPED: "nvidia-gpu-stopped"}
# NVIDIA reasons a hidden card explains: the driver answers "no devices" (or is not reached)
# because the one card it would drive is disabled, stopped or failed to start.
_HIDDEN_EXPLAINS = {"no-device", "driver-not-loaded", "no-library", "nvml-error", "windows-no-driver",
                    "driver-not-installed"}


def _finding(fid: str, severity: str, lang: str, **values: object) -> Finding:
    return make_finding("findings", fid, severity, lang, **values)


def _gb(value: float | None, lang: str) -> str:
    return gb_text(value) if value is not None else t("check.unknown", lang)


def hardware_findings(machine: Machine, lang: str = "en") -> list[Finding]:
    found: list[Finding] = []
    nv = machine.nvidia
    reason = nvidia_cause.reason_of(machine)
    nvidia_gpus = machine.nvidia_gpus()
    nvml_gpus = [g for g in nvidia_gpus if g.source == "nvml"]
    first_nvidia = nvidia_gpus[0].name if nvidia_gpus else t("evidence.device.nvidia", lang)
    unknown = t("check.unknown", lang)

    hidden = _hidden_gpus(machine, lang)
    if nv.status == "ok" and nvml_gpus:
        names = ", ".join(sorted({g.name for g in nvml_gpus}))
        found.append(_finding("nvidia-ready", "ok", lang, names=names, driver=nv.driver_version or unknown,
                              cuda=nv.cuda_driver_version or unknown))
    elif hidden and reason in _HIDDEN_EXPLAINS:
        pass  # the card is there and switched off or failed to start: that is the cause, said below
    elif reason == "jetson":
        found.append(_finding("jetson-gpu", "info", lang, l4t=nv.driver_version or unknown))
    elif reason == "wsl-amd":
        found.append(_finding("wsl-amd-gpu", "info", lang))
    elif reason == "driver-not-loaded" and nv.secure_boot:
        # Rebooting changes nothing here: the module is refused until its key is enrolled.
        found.append(_finding("nvidia-secure-boot-blocked", "error", lang, name=first_nvidia))
    elif reason in _REASON_FINDING:
        fid, severity = _REASON_FINDING[reason]
        found.append(_finding(fid, severity, lang, name=first_nvidia))
    elif reason in _PROBE_FAILURES or nv.status in ("timeout", "error"):
        found.append(_finding("nvidia-probe-failed", "warning", lang,
                              message=nvidia_cause.nvidia_message(machine, lang)))

    found += hidden
    found += _mig_findings(machine, lang)
    for gpu in nvidia_gpus:
        if gpu.kernel_driver in ("vfio-pci", "pci-stub"):
            found.append(_finding("nvidia-reserved-for-vm", "warning", lang, name=gpu.name,
                                  driver=gpu.kernel_driver))

    for gpu in machine.gpus:
        if _counts_as_compute(gpu) and gpu.vram_gb is not None and gpu.vram_gb < LOW_VRAM_GB \
                and gpu.vendor != "apple":
            found.append(_finding("gpu-low-vram", "warning", lang, name=gpu.name, vram=_gb(gpu.vram_gb, lang)))

    amd: list[Gpu] = []
    intel: list[Gpu] = []
    if any(g.vendor in ("amd", "intel") for g in machine.gpus):
        # The AMD and Intel tables' module, for a machine with such a GPU only: +4 ms on
        # `check --json --no-torch` elsewhere (measured 2026-12-04; tests/test_check_cli.py).
        from wizard.pytorch.vendor_gpus import amd_is_apu, intel_xpu_capable, rocm_gpus

        amd = rocm_gpus(machine)
        if amd:
            found.append(_amd_finding(machine, amd, lang))
        igpus = [g for g in machine.gpus if g.vendor == "amd" and amd_is_apu(g)]
        if igpus and any(g.vendor == "amd" and not amd_is_apu(g) for g in machine.gpus) and machine.os == "Linux":
            # ROCm counts the processor's graphics as a GPU too, often as device 0, where programs crash.
            found.append(_finding("amd-igpu-beside-card", "info", lang, igpu=igpus[0].name, gpu=amd[0].name))
        intel = [g for g in machine.gpus if intel_xpu_capable(g)]
        if intel:
            found.append(_finding("intel-xpu-gpu", "info", lang, name=intel[0].name))
    apple = [g for g in machine.gpus if g.vendor == "apple"]
    if apple:
        found.append(_finding("apple-silicon", "info", lang, name=apple[0].name, ram=_gb(machine.ram_gb, lang)))

    if not nvidia_gpus and not amd and not apple and not intel and reason not in _REASON_FINDING \
            and reason not in ("jetson", "wsl-amd"):
        found.append(_finding("no-gpu", "info", lang))
    if ram_severity(machine.ram_gb) == "warning":
        found.append(_finding("low-ram", "warning", lang, ram=_gb(machine.ram_gb, lang)))
    if disk_severity(machine.disk_free_gb) == "warning":
        found.append(_finding("low-disk", "warning", lang, free=_gb(machine.disk_free_gb, lang)))
    return found


def _hidden_gpus(machine: Machine, lang: str) -> list[Finding]:
    """NVIDIA cards the system lists that the driver does not use: disabled or stopped in Windows'
    Device Manager, or seen on the PCI bus with no device in NVML (it failed to start: BIOS
    settings, a card newer than the driver). An error when no NVIDIA GPU works at all."""
    nv = machine.nvidia
    working = nv.status == "ok" and any(g.source == "nvml" for g in machine.nvidia_gpus())
    severity = "warning" if working else "error"
    found = []
    for gpu in machine.nvidia_gpus():
        fid = _WINDOWS_PROBLEM.get(gpu.config_error or 0) if gpu.source == "wmi" else None
        if fid:
            found.append(_finding(fid, severity, lang, name=gpu.name, code=gpu.config_error))
        elif gpu.source == "pci" and gpu.kernel_driver in (None, "", "nvidia") and \
                (working or nv.status == "no-device"):
            # The NVIDIA module is loaded (it answers), yet this card is not among its devices.
            found.append(_finding("nvidia-gpu-not-initialised", severity, lang, name=gpu.name,
                                  bus=gpu.bus_id or t("check.unknown", lang)))
    return found


def _mig_findings(machine: Machine, lang: str) -> list[Finding]:
    """GPUs split into MIG instances: a program uses one of them, selected by its UUID; MIG on
    with no instance at all leaves nothing to run on (an error). One finding for each case."""
    mig = [g for g in machine.nvidia_gpus() if g.mig_mode]
    split = [g for g in mig if g.mig_devices]
    empty = [g for g in mig if not g.mig_devices]
    found = []
    if split:
        instances = [u for g in split for u in g.mig_devices]
        found.append(_finding("nvidia-mig-enabled", "info", lang, name=split[0].name, count=len(instances),
                              example=instances[0]))
    if empty:
        found.append(_finding("nvidia-mig-no-instances", "error", lang, name=empty[0].name))
    return found


def _amd_finding(machine: Machine, amd: list[Gpu], lang: str) -> Finding:
    """What PyTorch can do with this AMD GPU, on this OS."""
    from wizard.pytorch.vendor_gpus import OVERRIDE_TARGET, amd_gfx, override_for, rocm_targets  # AMD only

    gpu = amd[0]
    gfx = amd_gfx(gpu)
    name = f"{gpu.name} ({gfx})" if gfx else gpu.name
    if machine.os == "Windows":
        return _finding("amd-gpu-windows", "info", lang, name=name)
    if machine.os != "Linux":
        return _finding("amd-gpu", "info", lang, name=name)
    if gfx is None:
        return _finding("amd-gpu", "info", lang, name=name)
    targets = rocm_targets()
    if gfx in targets:
        return _finding("amd-gpu-rocm", "info", lang, name=name, gfx=gfx)
    override = override_for(gfx, targets)
    if override:
        return _finding("amd-gpu-override", "warning", lang, name=name, gfx=gfx, override=override,
                        target=OVERRIDE_TARGET[override])
    return _finding("amd-gpu-unsupported", "warning", lang, name=gpu.name, gfx=gfx)


def _counts_as_compute(gpu: Gpu) -> bool:
    """Integrated graphics and unknown display adapters are not training hardware."""
    if gpu.vendor == "amd":
        from wizard.pytorch.vendor_gpus import amd_is_apu  # AMD only: see hardware_findings

        # APUs report a small carve-out as VRAM; a discrete card has its own memory.
        return not amd_is_apu(gpu) and (gpu.vram_gb is None or gpu.vram_gb >= 1)
    return gpu.vendor == "nvidia"


def diagnose(machine: Machine, lang: str = "en") -> list[Finding]:
    """All findings, hardware and PyTorch, worst first.

    Never "ready" beside "cannot": when anything is an error, the ok-findings that would
    contradict it ("NVIDIA GPU ready", "PyTorch can use the GPU") are left out.
    """
    findings = hardware_findings(machine, lang)
    if machine.torch is not None:
        # Only with a torch: causes and the torch matrix it reads cost +50 ms on `check --json
        # --no-torch`, which has none (measured 2026-12-04).
        from wizard.pytorch.causes import torch_findings

        try:
            findings.extend(torch_findings(machine, lang))
        except ContentError:
            # The torch matrix is damaged: the hardware findings still stand, and the CLI
            # names the file (wizard.knowledge.damaged.DAMAGED).
            pass
    ids = {f.id for f in findings}
    if ids & {"torch-rocm-gfx-missing", "torch-rocm-gfx-missing-override", "torch-rocm-gfx-unsupported"}:
        # The torch finding names the card's target and what to do: one finding for one cause.
        findings = [f for f in findings if f.id not in ("amd-gpu-unsupported", "amd-gpu-override")]
    if "torch-mig-not-selected" in ids or "torch-visible-devices-nowhere" in ids:
        # The torch finding says how to pick a MIG instance, with this machine's UUIDs.
        findings = [f for f in findings if f.id != "nvidia-mig-enabled"]
    severities = {f.severity for f in findings}
    if "error" in severities:
        findings = [f for f in findings if f.severity != "ok"]
    if not severities & {"error", "warning"}:
        # "…until the problem above is fixed" needs a problem above.
        findings = [f for f in findings if f.id != "torch-gpu-not-usable-yet"]
    return sorted(findings, key=lambda f: -SEVERITY_RANK[f.severity])
