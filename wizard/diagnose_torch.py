"""Machine → findings about PyTorch: does the installed torch fit this machine, and if not, the fix.

The questions students ask most ("why doesn't PyTorch see my GPU?") mostly come down to a
handful of mismatches between the installed build and the machine: a CPU build next to a
working NVIDIA GPU, a build without kernels for the GPU's architecture (RTX 50 on cu126,
Pascal on cu128+), a build for a newer CUDA than the driver, a ROCm build on NVIDIA or the
reverse, an Intel Python on an Apple Silicon Mac. Each finding carries the one command that
fixes it, chosen by `wizard.install.choose_for_machine`. Pure: reads the Machine, probes nothing.
"""

from __future__ import annotations

import re

from wizard.findings import Finding, make_finding
from wizard.i18n import t
from wizard.install import TorchChoice, choose_for_machine
from wizard.probe.model import Machine, TorchInfo
from wizard.torch_matrix import arch_support, driver_at_least, load_matrix, sm_name

# CUDA major → NVIDIA's minor-version-compatibility floor, for CUDA versions not in the matrix.
_COMPAT_BY_MAJOR = {"linux": {11: "450.80.02", 12: "525.60.13", 13: "580"},
                    "windows": {11: "452.39", 12: "528.33", 13: "580"}}
_ARCH_WARNING = re.compile(r"not compatible with the current PyTorch installation|no longer supports this GPU", re.I)


def _finding(fid: str, severity: str, lang: str, **values: object) -> Finding:
    return make_finding("torch.findings", fid, severity, lang, **values)


def _fix_command(choice: TorchChoice, lang: str) -> str:
    if choice.command:
        return choice.command
    if choice.cpu_fallback:
        return choice.cpu_fallback
    return t("torch.findings.no-command", lang, reason=choice.reason)


def _os_key(machine: Machine) -> str:
    return {"Windows": "windows", "Darwin": "macos"}.get(machine.os, "linux")


def _nvidia_ready(machine: Machine) -> bool:
    return machine.nvidia.status == "ok" and any(g.source == "nvml" for g in machine.nvidia_gpus())


def _capabilities(machine: Machine, torch: TorchInfo) -> list[tuple[str, str]]:
    """(GPU name, compute capability) for every NVIDIA GPU: NVML's view, else torch's devices."""
    found = [(g.name, g.compute_capability) for g in machine.nvidia_gpus() if g.compute_capability]
    if not found and torch.build == "cuda":
        found = [(d.name, d.capability) for d in torch.devices if d.capability and "." in d.capability]
    return found


def torch_findings(machine: Machine, lang: str = "en") -> list[Finding]:
    torch = machine.torch
    if torch is None:
        return []
    choice = choose_for_machine(machine, lang=lang)
    fix = _fix_command(choice, lang)
    version = torch.version or "?"
    nvidia = machine.nvidia_gpus()
    amd = [g for g in machine.gpus if g.vendor == "amd"]

    if torch.status == "not-installed":
        return [_finding("torch-not-installed", "info", lang, interpreter=torch.interpreter or "python",
                         command=fix)]
    if torch.status == "timeout":
        return [_finding("torch-timeout", "warning", lang, error=torch.error_line or "?")]
    if torch.status == "crashed":
        signal = torch.error_line or "?"
        fid = "torch-crashed-cpu" if ("SIGILL" in signal or "illegal" in signal.lower()) else "torch-crashed"
        return [_finding(fid, "error", lang, version=version, signal=signal, command=_reinstall(fix))]
    if torch.status == "import-error":
        error = torch.error_line or "?"
        if "is not PyTorch" in error:
            return [_finding("torch-shadowed", "error", lang, error=error)]
        return [_finding("torch-import-error", "error", lang, version=version, error=error,
                         command=_reinstall(fix))]

    found: list[Finding] = []
    build = torch.build or "cpu"
    sizes = _typical_sizes()
    if build == "cpu" and nvidia:
        severity = "error" if _nvidia_ready(machine) else "warning"
        key = "torch-cpu-build-with-nvidia-gpu"
        found.append(_finding(key, severity, lang, version=version, gpu=nvidia[0].name, command=fix,
                              driver_note=t("torch.findings.driver-first", lang)
                              if severity == "warning" else "", **sizes))
    if build == "cuda" and not nvidia and not amd and machine.os != "Darwin":
        found.append(_finding("torch-cuda-build-without-gpu", "info", lang, version=version, command=fix,
                              installed=_mb(torch.install_size_mb), libraries=_mb(torch.libraries_size_mb),
                              **sizes))
    if build == "rocm" and nvidia and not amd:
        found.append(_finding("torch-rocm-build-on-nvidia", "error", lang, version=version,
                              gpu=nvidia[0].name, command=fix))
    if build == "cuda" and amd and not nvidia:
        found.append(_finding("torch-cuda-build-on-amd", "error", lang, version=version,
                              gpu=amd[0].name, command=fix))
    if build == "cuda":
        found.extend(_cuda_findings(machine, torch, choice, fix, lang))
    if machine.os == "Darwin":
        found.extend(_mac_findings(machine, torch, fix, lang))
    if not found:
        found.append(_ready(torch, machine, lang))
    return found


def _mb(value: float | None) -> str:
    return f"{value:,.0f}" if value is not None else "?"


def _typical_sizes() -> dict[str, str]:
    """Download sizes of the CPU and CUDA builds, from the matrix's measured facts."""
    matrix = load_matrix()
    cpu, cuda = matrix.size("cpu"), matrix.size("cuda")
    return {"cpu_mb": _mb(cpu.download_mb if cpu else None), "cuda_mb": _mb(cuda.download_mb if cuda else None),
            "cpu_installed_mb": _mb(cpu.installed_mb if cpu else None)}


def _reinstall(command: str) -> str:
    return command.replace(" install ", " install --force-reinstall ", 1) if " install torch" in command else command


def _cuda_findings(machine: Machine, torch: TorchInfo, choice: TorchChoice, fix: str,
                   lang: str) -> list[Finding]:
    found: list[Finding] = []
    version = torch.version or "?"
    arch_list = tuple(torch.arch_list)
    capabilities = _capabilities(machine, torch)
    arch_problem = False
    if arch_list:
        for name, cc in capabilities:
            support = arch_support(arch_list, cc)
            if support is None:
                arch_problem = True
                found.append(_finding("torch-gpu-arch-missing", "error", lang, version=version, gpu=name,
                                      sm=sm_name(cc), arch=" ".join(arch_list), command=fix))
            elif support == "ptx":
                found.append(_finding("torch-gpu-arch-ptx-only", "warning", lang, version=version, gpu=name,
                                      sm=sm_name(cc), arch=" ".join(arch_list), command=fix))
    if not arch_problem:
        warning = next((w for w in torch.torch_warnings if _ARCH_WARNING.search(w)), None)
        if warning:  # torch itself said so, even where the arch list was not readable
            gpu = capabilities[0][0] if capabilities else (nvidia_name(machine) or "GPU")
            arch_problem = True
            found.append(_finding("torch-gpu-arch-missing", "error", lang, version=version, gpu=gpu,
                                  sm=sm_name(capabilities[0][1]) if capabilities else "?",
                                  arch=" ".join(arch_list) or warning, command=fix))

    driver = machine.nvidia.driver_version
    floor = _driver_floor(torch.cuda_version, _os_key(machine))
    driver_problem = False
    if driver and floor and not driver_at_least(driver, floor):
        driver_problem = True
        found.append(_finding("torch-driver-too-old", "error", lang, version=version, driver=driver,
                              cuda=torch.cuda_version, floor=floor, command=fix))
    if torch.cuda_available is False and _nvidia_ready(machine) and not arch_problem and not driver_problem:
        hint = torch.torch_warnings[0] if torch.torch_warnings else t("torch.findings.no-hint", lang)
        found.append(_finding("torch-cuda-not-available", "warning", lang, version=version, hint=hint))
    return found


def nvidia_name(machine: Machine) -> str | None:
    gpus = machine.nvidia_gpus()
    return gpus[0].name if gpus else None


def _driver_floor(cuda_version: str | None, os_name: str) -> str | None:
    if not cuda_version:
        return None
    matrix = load_matrix()
    variant = matrix.variants.get("cu" + cuda_version.replace(".", ""))
    if variant is not None and variant.kind == "cuda":
        return variant.compat_floor(os_name)
    try:
        major = int(cuda_version.split(".")[0])
    except ValueError:
        return None
    return _COMPAT_BY_MAJOR.get(os_name, _COMPAT_BY_MAJOR["linux"]).get(major)


def _mac_findings(machine: Machine, torch: TorchInfo, fix: str, lang: str) -> list[Finding]:
    apple = [g for g in machine.gpus if g.vendor == "apple"]
    apple_silicon = bool(apple) or machine.arch == "arm64"
    if not apple_silicon or torch.mps_available:
        return []
    if torch.python_arch == "x86_64":
        return [_finding("torch-mac-rosetta-python", "error", lang, version=torch.version or "?")]
    if torch.mps_built is False:
        return [_finding("torch-mps-not-built", "error", lang, version=torch.version or "?", command=fix)]
    return [_finding("torch-mps-unavailable", "warning", lang, version=torch.version or "?",
                     os_version=machine.os_version)]


def _ready(torch: TorchInfo, machine: Machine, lang: str) -> Finding:
    version = torch.version or "?"
    if torch.cuda_available and torch.devices:
        # ROCm builds drive AMD GPUs through the same torch.cuda API and device name.
        return _finding("torch-ready", "ok", lang, version=version, target="cuda",
                        device=", ".join(d.name for d in torch.devices))
    if torch.mps_available:
        return _finding("torch-ready", "ok", lang, version=version, target="mps", device="Apple GPU (MPS)")
    if torch.xpu_available:
        return _finding("torch-ready", "ok", lang, version=version, target="xpu",
                        device=", ".join(d.name for d in torch.devices) or "Intel GPU (XPU)")
    if any(g.vendor in ("nvidia", "amd") for g in machine.gpus):
        # The GPU is there but not usable yet (driver, container, build): the other findings say why.
        return _finding("torch-gpu-not-usable-yet", "info", lang, version=version)
    return _finding("torch-cpu-only", "info", lang, version=version)
