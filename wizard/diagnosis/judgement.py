"""What a machine's state means, decided once for every screen and command.

How serious each part is (the NVIDIA driver, PyTorch, memory, disk), whether a student can start
today, and the one thing to do next. Codes only, no words: `wizard.presentation` words them, and
`check`, `report show`, the wizard's panels and result page, the headless run and the roster all
render what it says, so no two of them can grade the same machine differently.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wizard.diagnosis.findings import Finding, worst

if TYPE_CHECKING:
    from wizard.probe.facts import Gpu, Machine, TorchInfo

# Below these a deep-learning course is painful: 8 GB of RAM is what a notebook, a browser and
# a data loader need at once; the GPU build of PyTorch alone takes 5-8 GB of disk.
LOW_RAM_GB = 8
LOW_DISK_GB = 10.0

# The one thing to do next:
#   install  install (or replace) PyTorch: the command is the fix
#   fix      fix something else first (a driver, a reboot, a setting): the finding's fix says how
#   keep     what is installed works: keep it (a newer build may be offered, labelled optional)
#   cloud    use a cloud GPU        buy    buy or upgrade hardware        none   nothing to do
ACTIONS = ("install", "fix", "keep", "cloud", "buy", "none")

# Findings that installing the right PyTorch build fixes: their fix is the install command.
INSTALL_FIXES = frozenset({
    "torch-not-installed", "torch-crashed", "torch-import-error",
    "torch-cpu-build-with-nvidia-gpu", "torch-cpu-build-with-amd-gpu", "torch-cpu-build-with-intel-gpu",
    "torch-rocm-build-on-nvidia", "torch-cuda-build-on-amd", "torch-cuda-build-on-intel",
    "torch-gpu-arch-missing", "torch-gpu-arch-ptx-only", "torch-mps-not-built",
    "torch-rocm-gfx-missing", "torch-rocm-gfx-unsupported",
})
# Warnings about what the machine is (little memory, little disk, a small GPU): worth saying,
# never the thing to do first.
SYSTEM_FINDINGS = frozenset({"low-ram", "low-disk"})
LIMITS = SYSTEM_FINDINGS | {"gpu-low-vram", "nvidia-reserved-for-vm"}
# The NVIDIA findings: the driver line's mark is theirs.
NVIDIA_FINDINGS = frozenset({
    "nvidia-nouveau-bound", "nvidia-no-driver", "nvidia-version-mismatch", "nvidia-driver-not-loaded",
    "nvidia-no-permission", "nvidia-gpu-lost", "container-without-gpu-access", "wsl-nvidia-library-missing",
    "gpus-unknown", "nvidia-probe-failed", "nvidia-gpu-disabled", "nvidia-gpu-stopped",
    "nvidia-gpu-not-initialised", "jetson-gpu", "nvidia-mig-enabled", "nvidia-mig-no-instances",
    "nvidia-secure-boot-blocked",
})
# Chassis a probe can see; anything else (VM, container, WSL) hides the computer underneath.
KNOWN_CHASSIS = ("desktop", "laptop", "server")
BUY_VERDICTS = frozenset({"buy-desktop", "buy-laptop", "upgrade-desktop"})
CLOUD_VERDICTS = frozenset({"use-free-cloud", "rent-cloud"})


@dataclass(frozen=True)
class Action:
    kind: str                     # one of ACTIONS
    finding: str | None = None    # the id of the finding it answers, when one does
    upgrade: bool = False         # kind "keep": a newer build exists, offered as optional


def detected_form_factor(chassis: str | None) -> str | None:
    """The form-factor answer this computer shows (pre-selected by the wizard, assumed by the
    advice for "not sure"); None when it cannot tell (a VM, a container, WSL)."""
    return chassis if chassis in KNOWN_CHASSIS else None


def detected_has_nvidia(gpus: Iterable[Gpu], fully_checked: bool) -> str | None:
    """The "do you have NVIDIA" answer the checks show: "yes" for any NVIDIA GPU seen, "no" only
    when both GPU checks ran to the end, None when they cannot tell."""
    if any(g.vendor == "nvidia" for g in gpus):
        return "yes"
    return "no" if fully_checked else None


def ram_severity(ram_gb: float | None) -> str | None:
    """"warning" below LOW_RAM_GB; None when there is nothing to say."""
    return "warning" if ram_gb is not None and ram_gb < LOW_RAM_GB else None


def disk_severity(free_gb: float | None) -> str | None:
    if free_gb is None:
        return None
    return "warning" if free_gb < LOW_DISK_GB else "ok"


def gpu_severity(gpu: Gpu) -> str:
    """A GPU in the list: ✓ what PyTorch can drive as found, ⚠ an NVIDIA card the driver does not see."""
    if gpu.vendor == "apple" or (gpu.vendor == "nvidia" and gpu.source == "nvml"):
        return "ok"
    return "warning" if gpu.vendor == "nvidia" else "info"


def nvidia_severity(machine: Machine, findings: Iterable[Finding]) -> str:
    """The NVIDIA driver's line: ✓ working, else the mark of the finding that says why, else
    • (no NVIDIA card, a Mac: nothing to fix)."""
    if machine.nvidia.status == "ok":
        return "ok"
    mine = [f for f in findings if f.id in NVIDIA_FINDINGS]
    return worst(mine) if mine else "info"


def torch_severity(machine: Machine, findings: Iterable[Finding]) -> str:
    """PyTorch's line: the worst PyTorch finding; ✓ only when PyTorch really uses a GPU."""
    torch = machine.torch
    findings = list(findings)
    mine = [f for f in findings if f.id.startswith("torch-")]
    if mine:
        severity = worst(mine)
        if severity == "ok" and (torch is None or not torch_uses_gpu(torch, findings)):
            return "info"
        return severity
    if torch is None:
        return "info"
    if torch.status in ("import-error", "crashed"):
        return "error"
    if torch.status != "ok":
        return "warning"
    return "ok" if torch_uses_gpu(torch, findings) else "info"


def torch_uses_gpu(torch: TorchInfo, findings: Iterable[Finding]) -> bool:
    """PyTorch can really use a GPU. "Available" is not "usable": a build without the GPU's
    kernels reports cuda_available and fails at the first kernel (an error finding)."""
    available = bool(torch.cuda_available or torch.mps_available or torch.xpu_available)
    tests_failed = any(test.status != "ok" for test in torch.gpu_tests)
    return available and not tests_failed and not _torch_error(findings)


def _torch_error(findings: Iterable[Finding]) -> bool:
    return any(f.id.startswith("torch-") and f.severity == "error" for f in findings)


def ready(machine: Machine, findings: Iterable[Finding], verdict: str | None) -> bool:
    """Can start the course today: PyTorch works, nothing is broken, and either it uses the GPU
    or this student does not need one."""
    findings = list(findings)
    torch = machine.torch
    if torch is None or torch.status != "ok" or any(f.severity == "error" for f in findings):
        return False
    return (torch_uses_gpu(torch, findings) or verdict == "no-gpu-needed") and verdict != "fix-setup"


def leading(findings: Iterable[Finding]) -> Finding | None:
    """The finding to act on first: the first error, else the first warning that is not a
    limit of the machine (findings come worst first)."""
    findings = list(findings)
    for finding in findings:
        if finding.severity == "error":
            return finding
    return next((f for f in findings if f.severity == "warning" and f.id not in LIMITS), None)


def decide(machine: Machine, findings: Iterable[Finding], verdict: str | None = None,
           newer: Any = None) -> Action:
    """The one thing to do next. `verdict` is the advice's (None for `check`); `newer` is the
    PyTorch version the matrix would install, when known (a keep may then offer it)."""
    findings = list(findings)
    torch = machine.torch
    working = torch is not None and torch.status == "ok" and torch_uses_gpu(torch, findings)
    first = leading(findings)
    if first is not None and (first.severity == "error" or not working):
        # A PyTorch that runs on the GPU is kept whatever a warning says (a card served by
        # PTX only, a busy GPU): the warnings are listed, only an error comes first.
        return Action("install" if first.id in INSTALL_FIXES else "fix", first.id)
    if verdict in BUY_VERDICTS:
        return Action("buy")
    if verdict in CLOUD_VERDICTS:
        return Action("cloud")
    if torch is None:
        return Action("none")
    if torch.status == "not-installed":
        return Action("install", "torch-not-installed")
    if torch.status != "ok":
        return Action("none")
    blind = verdict == "fix-setup" and not torch_uses_gpu(torch, findings)
    if blind:   # a working torch that cannot see a working GPU, with no finding of its own
        return Action("install")
    return Action("keep", upgrade=is_older(torch.version, newer))


def is_older(installed: str | None, offered: Any) -> bool:
    """The installed PyTorch is an older release (by major.minor) than the one offered."""
    if not installed or not isinstance(offered, str) or not offered:
        return False
    # Only for an installed torch and an offered release: +2.5 ms on `check --json --no-torch` and
    # +3 ms on `report summarize` at the top, which never compare versions (measured 2026-12-04).
    from packaging.version import InvalidVersion, Version

    try:
        have, new = Version(installed), Version(offered)
    except InvalidVersion:
        return False
    return (have.major, have.minor) < (new.major, new.minor)
