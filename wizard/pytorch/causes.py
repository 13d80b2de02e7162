"""Machine → findings about PyTorch: can the installed torch use this machine's GPU, and if not,
the one root cause and its fix.

"Why doesn't PyTorch see my GPU?" comes down to a handful of causes, each read from the snapshot
alone (so a recorded machine gets the answer a live one gets):
* the wrong build for the GPU's maker: a CPU build beside an NVIDIA, a ROCm-capable AMD or an
  Intel Arc GPU; a CUDA build on AMD or Intel; a ROCm build on NVIDIA;
* the right maker, but no kernels for this GPU: an NVIDIA architecture missing from the arch
  list, an AMD gfx target missing from a ROCm build;
* the NVIDIA driver older than the build's CUDA, or in a bad state (CUDA error 999 after a
  suspend), or GPUs hidden by CUDA_VISIBLE_DEVICES;
* an XPU build without Intel's GPU driver; a Mac Python that runs under Rosetta, a macOS too old.
What torch itself said (warnings, the GPU test's error lines) counts as much as the facts.
One finding per root cause: what a cause implies ("torch.cuda.is_available() is False") is told
inside it, not as a finding of its own. Each carries the command that fixes it, chosen by
`wizard.pytorch.choose.choose_for_machine`. Pure: reads the Machine, probes nothing.
"""

from __future__ import annotations

import re

from wizard.diagnosis import nvidia_cause
from wizard.diagnosis.findings import Finding, make_finding
from wizard.diagnosis.nvidia_cause import reason_of as nvidia_reason
from wizard.probe.facts import Machine, NotRunPython, TorchInfo
from wizard.pytorch import messages as said
from wizard.pytorch.choose import TorchChoice, choose_for_machine, macos_version_of, shell_quote
from wizard.pytorch.matrix import arch_support, driver_at_least, load_matrix, sm_name, version_tuple
from wizard.pytorch.probe import NOT_PYTHON
from wizard.pytorch.vendor_gpus import (
    OVERRIDE_TARGET,
    amd_gfx,
    hsa_override,
    intel_xpu_capable,
    rocm_gpus,
    rocm_targets,
)
from wizard.text.evidence import run_text
from wizard.text.i18n import t
from wizard.text.output import near_path

# NVIDIA reasons under which the GPU cannot be reached at all: the hardware finding is the cause.
_UNREACHABLE = {"container-no-gpu", "wsl-no-library", "container-no-library"}
# Values of CUDA_VISIBLE_DEVICES (and ROCm's) that hide every GPU.
_HIDE_ALL = re.compile(r"^\s*(|-1|none|void|nodevfiles)\s*$", re.I)
# The oldest C library current PyTorch wheels for Linux run on: manylinux_2_28 (glibc 2.28).
# PyTorch 2.6's release notes: its CUDA 12.6, aarch64, ROCm and XPU wheels are built on the
# Manylinux 2.28 platform, and from 2.7 on all Linux builds are
# (https://github.com/pytorch/pytorch/releases/tag/v2.6.0; RFC pytorch/pytorch#123649).
GLIBC_FLOOR = "2.28"
# NVIDIA's PyTorch for Jetson (JetPack wheels); PyPI's aarch64 wheels are for servers (SBSA).
JETSON_GUIDE = "https://docs.nvidia.com/deeplearning/frameworks/install-pytorch-jetson-platform/"
# The Python suggested to someone whose Python no GPU build serves, when the newest release has it.
_SUGGESTED_PYTHON = "3.12"


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


class _Case:
    """Everything the rules below share about one machine."""

    def __init__(self, machine: Machine, lang: str):
        self.machine = machine
        self.lang = lang
        self.torch: TorchInfo = machine.torch  # type: ignore[assignment]
        self.version = self.torch.version or t("torch.findings.version-unknown", lang)
        self.unknown = t("check.unknown", lang)
        self.no_message = t("evidence.message.none", lang)
        self.choice = choose_for_machine(machine, lang=lang)
        self.fix = _fix_command(self.choice, lang)
        self.nvidia = [g for g in machine.nvidia_gpus() if g.kernel_driver not in ("vfio-pci", "pci-stub")]
        self.amd = [g for g in machine.gpus if g.vendor == "amd"]
        self.amd_rocm = rocm_gpus(machine)
        self.intel_xpu = [g for g in machine.gpus if intel_xpu_capable(g)]
        self.apple = [g for g in machine.gpus if g.vendor == "apple"]
        self.jetson = nvidia_cause.is_jetson(machine)
        self.wsl_amd = nvidia_cause.reason_of(machine) == "wsl-amd"
        self.said = said.torch_said(self.torch)
        bench = machine.benchmark
        if bench is not None and bench.gpu_error:
            cause = said.cause_of(bench.gpu_error)
            if cause:
                self.said.append(said.Said(cause, bench.gpu_error))

    def said_text(self, line: str | None) -> str:
        """A line a probe recorded, framed in the reader's language; "(no message)" for none."""
        return run_text(line, self.lang) if line else self.no_message

    def finding(self, fid: str, severity: str, **values: object) -> Finding:
        values.setdefault("version", self.version)
        values.setdefault("command", self.fix)
        return _finding(fid, severity, self.lang, **values)

    @property
    def unreachable(self) -> bool:
        """The NVIDIA GPU cannot be reached from here (container, WSL): the hardware finding says why."""
        return nvidia_reason(self.machine) in _UNREACHABLE

    def rocm_supported(self) -> bool:
        """This machine's AMD GPU is one PyTorch's ROCm builds serve (Linux, a listed target)."""
        return bool(self.amd_rocm) and (self.choice.variant or "").startswith("rocm")


def torch_findings(machine: Machine, lang: str = "en") -> list[Finding]:
    torch = machine.torch
    if torch is None:
        return []
    case = _Case(machine, lang)
    if case.jetson:
        return _jetson_findings(case)
    early = _status_findings(case)
    if early is not None:
        return early
    found = _build_findings(case)
    found += _macos_findings(case)
    if not found:
        found.append(_ready(case))
    skipped = _not_run_finding(case)  # what was checked is gpu-wizard's own, not the user's
    return [skipped, *found] if skipped is not None else found


# ------------------------------------------------------------------------------ status ---

def _status_findings(case: _Case) -> list[Finding] | None:
    """torch did not load (or is not there): that is the whole story."""
    torch = case.torch
    if torch.status == "ok":
        return None
    mac = _macos_too_old(case)
    if mac is not None and torch.status in ("import-error", "crashed"):
        return [mac]
    if torch.status == "not-installed" and torch.error_line == NOT_PYTHON:
        return [case.finding("torch-not-python", "warning", interpreter=torch.interpreter or "python")]
    if torch.status == "not-installed":
        skipped = _not_run_finding(case)
        platform = _platform_problem(case)
        if skipped is None and platform is not None:
            return [platform]
        return [skipped or case.finding("torch-not-installed", "info", interpreter=torch.interpreter or "python")]
    if torch.status == "timeout":
        return [case.finding("torch-timeout", "warning", error=case.said_text(torch.error_line))]
    if torch.status == "crashed":
        signal = torch.error_line or ""
        fid = "torch-crashed-cpu" if ("SIGILL" in signal or "illegal" in signal.lower()) else "torch-crashed"
        return [case.finding(fid, "error", signal=case.said_text(signal), command=_reinstall(case.fix))]
    error = torch.error_line or ""
    if " is not PyTorch: " in error:  # the torch probe's wording: the path follows it
        return [case.finding("torch-shadowed", "error", error=error.split(" is not PyTorch: ", 1)[1])]
    cause = said.cause_of(error)
    if cause == said.GLIBC_TOO_OLD:
        return [_glibc_finding(case, said.glibc_needed(error), error)]
    if cause == said.WRONG_LIBRARY:
        return [_wrong_library(case, error)]
    return [case.finding("torch-import-error", "error", error=case.said_text(error), command=_reinstall(case.fix))]


def torch_not_run(torch: TorchInfo) -> NotRunPython | None:
    """A Python found and not run whose files show PyTorch, when the one checked has none or is
    gpu-wizard's own: that is most likely the user's PyTorch, and the check was not about it."""
    if torch.status != "not-installed" and torch.interpreter_source != "own":
        return None
    return next((item for item in torch.not_run if item.torch_version), None)


def _not_run_finding(case: _Case) -> Finding | None:
    torch = case.torch
    skipped = torch_not_run(torch)
    if skipped is None:
        return None
    near = near_path(skipped.interpreter)
    # In the command the path is one word for the shell, whatever its folders are called.
    values = {"path": near, "quoted": shell_quote(near, case.machine.os), "interpreter": torch.interpreter or "python"}
    instead = t("torch.findings.torch-not-run.instead-none" if torch.status == "not-installed"
                else "torch.findings.torch-not-run.instead-own", case.lang, version=case.version, **values)
    return case.finding("torch-not-run", "warning", found=skipped.torch_version, instead=instead,
                        reason=t(f"check.not-run-reason.{skipped.reason}", case.lang), **values)


def _reinstall(command: str) -> str:
    return command.replace(" install ", " install --force-reinstall ", 1) if " install torch" in command else command


# ------------------------------------------------------- the platform, the environment ---

def _usable_gpu(case: _Case) -> str | None:
    """The GPU a PyTorch GPU build would use here as it is (driver working, a build for its
    maker on this OS exists): its name, or None."""
    machine = case.machine
    if case.nvidia and _nvidia_ready(machine):
        return case.nvidia[0].name
    if case.amd_rocm and machine.os == "Linux":
        gpu = case.amd_rocm[0]
        if amd_gfx(gpu) in rocm_targets() or hsa_override(amd_gfx(gpu) or ""):
            return gpu.name
    if case.intel_xpu and machine.os in ("Linux", "Windows"):
        return case.intel_xpu[0].name
    return None


def _platform_problem(case: _Case) -> Finding | None:
    """What keeps every GPU build off this machine, whatever is installed: a Python no GPU
    build serves (while a usable GPU sits idle), a C library older than the wheels need."""
    python = _python_problem(case)
    if python is not None:
        return python
    glibc = case.torch.glibc_version
    if case.machine.os == "Linux" and glibc and version_tuple(glibc) < version_tuple(GLIBC_FLOOR):
        return _glibc_finding(case, GLIBC_FLOOR, None)
    return None


def _python_problem(case: _Case) -> Finding | None:
    gpu = _usable_gpu(case)
    if gpu is None or case.choice.problem not in ("python-too-old", "python-unsupported"):
        return None
    matrix = load_matrix()
    low, high = matrix.python_range
    python = case.torch.python_version or case.machine.python_version
    py = ".".join(python.split(".")[:2])
    newest = matrix.choosable[0]
    suggest = _SUGGESTED_PYTHON if newest.supports_python(_SUGGESTED_PYTHON) else newest.python_min
    old = version_tuple(py) < version_tuple(low)
    state = t("torch.findings.python-state-cpu" if case.torch.status == "ok"
              else "torch.findings.python-state-none", case.lang, version=case.version)
    return case.finding("torch-python-no-gpu-build", "error", python=py, gpu=gpu, low=low, high=high,
                        newest=newest.version, newest_low=newest.python_min, newest_high=newest.python_max,
                        suggest=suggest, state=state,
                        age=t("torch.findings.python-old" if old else "torch.findings.python-new", case.lang))


def _glibc_finding(case: _Case, needed: str | None, error: str | None) -> Finding:
    have = case.torch.glibc_version or case.unknown
    told = t("torch.findings.glibc-said", case.lang, said=case.said_text(error)) if error else ""
    this = t("torch.findings.glibc-this", case.lang, needed=needed) if error and needed else ""
    return case.finding("torch-glibc-too-old", "error", have=have, this=this, floor=GLIBC_FLOOR, said=told)


def _wrong_library(case: _Case, text: str) -> Finding:
    """A CUDA library from outside the environment was loaded in place of torch's own."""
    torch = case.torch
    names = [name for name in torch.env_vars if name != "CUDA_PATH"] or ["LD_LIBRARY_PATH"]
    where = ", ".join(names)
    return case.finding("torch-library-path-shadow", "error", said=case.said_text(text), names=where,
                        name=names[0])


def _jetson_findings(case: _Case) -> list[Finding]:
    """An NVIDIA Jetson: its GPU is part of the chip, and only NVIDIA's JetPack builds of PyTorch
    use it (PyPI's aarch64 wheels are CPU-only there, or built for server GPUs)."""
    torch = case.torch
    l4t = case.machine.nvidia.driver_version or case.unknown
    if torch.status == "ok" and torch.cuda_available and torch.devices:
        return [_ready(case)]
    if torch.status == "not-installed":
        return [case.finding("torch-jetson-not-installed", "warning", l4t=l4t, guide=JETSON_GUIDE)]
    if torch.status == "ok":
        problem = t("torch.findings.jetson-no-cuda", case.lang, build=torch.build or case.unknown,
                    version=case.version)
    else:
        problem = t("torch.findings.jetson-load-error", case.lang, version=case.version,
                    error=case.said_text(torch.error_line))
    return [case.finding("torch-jetson-wrong-build", "error", l4t=l4t, guide=JETSON_GUIDE, problem=problem)]


# ------------------------------------------------------------------------------- builds ---

def _build_findings(case: _Case) -> list[Finding]:
    build = case.torch.build or "cpu"
    if build == "cpu":
        return _cpu_build(case)
    if build == "cuda":
        if case.nvidia:
            return _cuda_findings(case)
        return _wrong_maker(case, "cuda")
    if build == "rocm":
        if case.wsl_amd and not case.amd:
            return _wsl_rocm_findings(case)
        if case.amd:
            return _rocm_findings(case)
        return _wrong_maker(case, "rocm")
    if build == "xpu":
        if case.intel_xpu:
            return _xpu_findings(case)
        return _wrong_maker(case, "xpu")
    return []


def _sizes() -> dict[str, str]:
    """Download sizes of the CPU and CUDA builds, from the matrix's measured facts."""
    matrix = load_matrix()
    cpu, cuda = matrix.size("cpu"), matrix.size("cuda")
    return {"cpu_mb": _mb(cpu.download_mb if cpu else None), "cuda_mb": _mb(cuda.download_mb if cuda else None),
            "cpu_installed_mb": _mb(cpu.installed_mb if cpu else None)}


def _mb(value: float | None) -> str:
    return f"{value:,.0f}" if value is not None else "?"


def _cpu_build(case: _Case) -> list[Finding]:
    machine, lang = case.machine, case.lang
    platform = _platform_problem(case)
    if platform is not None and _usable_gpu(case):
        return [platform]
    if case.nvidia:
        ready = _nvidia_ready(machine)
        return [case.finding("torch-cpu-build-with-nvidia-gpu", "error" if ready else "warning",
                             gpu=case.nvidia[0].name,
                             driver_note="" if ready else t("torch.findings.driver-first", lang), **_sizes())]
    if case.amd_rocm and machine.os == "Linux":
        gpu = case.amd_rocm[0]
        if case.rocm_supported():
            override = "hsa-override" in case.choice.warning_ids
            note = case.choice.warnings[case.choice.warning_ids.index("hsa-override")] if override else ""
            return [case.finding("torch-cpu-build-with-amd-gpu", "error", gpu=gpu.name,
                                 gfx=amd_gfx(gpu) or case.unknown, note=f" {note}" if note else "")]
        return []  # no ROCm build serves this card: the AMD hardware finding says so
    if case.amd_rocm and machine.os == "Windows":
        return [case.finding("torch-cpu-build-amd-windows", "warning", gpu=case.amd_rocm[0].name)]
    if case.intel_xpu and machine.os in ("Linux", "Windows") and case.choice.variant == "xpu":
        return [case.finding("torch-cpu-build-with-intel-gpu", "error", gpu=case.intel_xpu[0].name)]
    return []


def _wrong_maker(case: _Case, build: str) -> list[Finding]:
    """A GPU build for a maker this machine has no GPU of."""
    if build == "cuda":
        if case.amd_rocm or case.amd:
            gpu = (case.amd_rocm or case.amd)[0]
            return [case.finding("torch-cuda-build-on-amd", "error", gpu=gpu.name)]
        if case.intel_xpu:
            return [case.finding("torch-cuda-build-on-intel", "error", gpu=case.intel_xpu[0].name)]
        if case.unreachable or case.machine.os == "Darwin":
            return []  # the NVIDIA GPU is out of reach (container, WSL): the hardware finding says why
        torch = case.torch
        return [case.finding("torch-cuda-build-without-gpu", "info", installed=_mb(torch.install_size_mb),
                             libraries=_mb(torch.libraries_size_mb), **_sizes())]
    if build == "rocm" and case.nvidia:
        return [case.finding("torch-rocm-build-on-nvidia", "error", gpu=case.nvidia[0].name)]
    return []


# --------------------------------------------------------------------------------- CUDA ---

def _cuda_findings(case: _Case) -> list[Finding]:
    """A CUDA build on a machine with an NVIDIA GPU: the first cause that explains it."""
    machine, torch = case.machine, case.torch
    found: list[Finding] = []
    driver_problem = _driver_too_old(case)
    if driver_problem is not None:
        found.append(driver_problem)
    arch = _arch_findings(case)
    found += arch
    arch_missing = any(f.id == "torch-gpu-arch-missing" for f in arch)
    if driver_problem is not None or arch_missing:
        return found
    if not _nvidia_ready(machine):
        return found  # no driver / nouveau / container …: the hardware finding is the cause
    unknown = said.first(case.said, said.UNKNOWN_ERROR)
    if unknown is not None:
        return found + [case.finding("torch-cuda-unknown-error", "error", said=unknown.text)]
    hidden = _hidden_by_env(case) or _points_nowhere(case)
    if hidden is not None:
        return found + [hidden]
    if any(g.mig_mode and not g.mig_devices for g in case.nvidia):
        return found  # MIG on with no instance: nothing can run there, the hardware finding says so
    mig = _mig_not_selected(case)
    if mig is not None:
        return found + [mig]
    wrong = said.first(case.said, said.WRONG_LIBRARY)
    if wrong is not None:
        return found + [_wrong_library(case, wrong.text)]
    tested = _test_findings(case)
    if tested:
        return found + tested
    if torch.cuda_available is False:
        hint = next((w for w in torch.torch_warnings if "CUDA" in w or "cuda" in w), None)
        return found + [case.finding("torch-cuda-not-available", "error",
                                     hint=hint or t("torch.findings.no-hint", case.lang))]
    return found


def _driver_too_old(case: _Case) -> Finding | None:
    """The driver cannot run this build's CUDA: by the floor, or because torch said so."""
    torch, machine = case.torch, case.machine
    driver = machine.nvidia.driver_version
    floor = load_matrix().driver_floor(torch.cuda_version, _os_key(machine))
    told = said.first(case.said, said.DRIVER_TOO_OLD)
    found_version = said.found_cuda_version(told.text) if told else None
    if driver and floor and not driver_at_least(driver, floor):
        return case.finding("torch-driver-too-old", "error", driver=driver, cuda=torch.cuda_version,
                            floor=floor)
    if told is not None:
        return case.finding("torch-driver-too-old-said", "error", cuda=torch.cuda_version or case.unknown,
                            floor=floor or case.unknown, driver_cuda=found_version
                            or machine.nvidia.cuda_driver_version or case.unknown, said=told.text)
    return None


def _arch_findings(case: _Case) -> list[Finding]:
    """Kernels for each NVIDIA GPU's architecture: from the arch list, torch's warning, the test."""
    torch, machine = case.torch, case.machine
    arch_list = tuple(torch.arch_list)
    capabilities = _capabilities(machine, torch)
    found = []
    for name, cc in capabilities if arch_list else []:
        support = arch_support(arch_list, cc)
        if support is None:
            found.append(case.finding("torch-gpu-arch-missing", "error", gpu=name, sm=sm_name(cc),
                                      arch=" ".join(arch_list)))
        elif support == "ptx":
            found.append(case.finding("torch-gpu-arch-ptx-only", "warning", gpu=name, sm=sm_name(cc),
                                      arch=" ".join(arch_list)))
    if any(f.id == "torch-gpu-arch-missing" for f in found):
        return found
    evidence = said.first(case.said, said.NO_KERNEL_IMAGE) or said.first(case.said, said.ARCH_NOT_COMPATIBLE)
    if evidence is not None:  # torch itself said so, even where the arch list was not readable
        first: tuple[str, str | None] = capabilities[0] if capabilities else (case.nvidia[0].name, None)
        name, first_cc = first
        found = [f for f in found if f.id != "torch-gpu-arch-ptx-only"]
        found.append(case.finding("torch-gpu-arch-missing", "error", gpu=name,
                                  sm=sm_name(first_cc) if first_cc else case.unknown,
                                  arch=" ".join(arch_list) or evidence.text))
    return found


def _hidden_by_env(case: _Case) -> Finding | None:
    torch = case.torch
    for setting in torch.visible_devices_env:
        name, _, value = setting.partition("=")
        if _HIDE_ALL.match(value) and not torch.device_count:
            return case.finding("torch-gpus-hidden", "error", setting=setting, name=name)
    return None


_ROCM_SELECTORS = ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES")


def _visible_setting(case: _Case, names: tuple[str, ...] = ("CUDA_VISIBLE_DEVICES",)) -> tuple[str, str] | None:
    """(name, value) of the first of `names` the checked Python saw set, if any."""
    seen = dict(setting.partition("=")[::2] for setting in case.torch.visible_devices_env)
    return next(((name, seen[name]) for name in names if name in seen), None)


def _points_nowhere(case: _Case, rocm: bool = False) -> Finding | None:
    """CUDA_VISIBLE_DEVICES (HIP_VISIBLE_DEVICES for ROCm) names GPUs this machine does not have
    (an index past the last GPU, a UUID of another machine's GPU or MIG instance), so CUDA sees
    none of them."""
    torch = case.torch
    setting = _visible_setting(case, _ROCM_SELECTORS if rocm else ("CUDA_VISIBLE_DEVICES",))
    if setting is None or torch.device_count or torch.cuda_available:
        return None
    name, value = setting
    nvml = case.amd if rocm else [g for g in case.nvidia if g.source == "nvml"]
    if not nvml:
        return None
    uuids = {u.lower() for g in nvml for u in (g.uuid, *g.mig_devices) if u}
    entries = [e.strip() for e in value.split(",") if e.strip()]
    if not entries or _HIDE_ALL.match(value):
        return None
    first = entries[0]  # CUDA stops at the first entry it cannot find
    if first.isdigit():
        missing = int(first) >= len(nvml)
    elif first.upper().startswith(("GPU-", "MIG-")):
        # A redacted report keeps GPU-<uuid>: then it cannot be checked.
        missing = bool(uuids) and "<" not in first and first.lower() not in uuids
    else:
        missing = False
    if not missing:
        return None
    indexes = ", ".join(str(i) for i in range(len(nvml)))
    mig = next((g.mig_devices[0] for g in nvml if g.mig_devices), None)
    example = mig or "0"
    return case.finding("torch-visible-devices-nowhere", "error", setting=f"{name}={value}", name=name,
                        entry=first, count=len(nvml), indexes=indexes, example=example)


def _mig_not_selected(case: _Case) -> Finding | None:
    """MIG GPUs and no MIG instance chosen: CUDA shows a process one instance, while torch counts
    the physical GPUs, so it fails on the second ("device >= 0 && device < num_gpus")."""
    mig = [g for g in case.nvidia if g.mig_mode]
    if not mig:
        return None
    setting = _visible_setting(case)
    if setting is not None and setting[1].strip().upper().startswith("MIG-"):
        return None
    instances = [u for g in mig for u in g.mig_devices]
    failed = said.first(case.said, said.MIG_NOT_SELECTED) is not None or \
        any(t.status != "ok" for t in case.torch.gpu_tests) or case.torch.cuda_available is False
    if not failed or not instances:
        return None
    return case.finding("torch-mig-not-selected", "error", gpu=mig[0].name, count=len(instances),
                        example=instances[0])


def _wsl_rocm_findings(case: _Case) -> list[Finding]:
    """A ROCm build of PyTorch in WSL: only AMD's WSL builds reach the Windows driver."""
    torch = case.torch
    if torch.cuda_available and torch.devices:
        return _test_findings(case)
    return [case.finding("torch-rocm-wsl-not-available", "error")]


def _test_findings(case: _Case) -> list[Finding]:
    """The tiny kernel failed or hung on a device, for a reason the rules above did not name."""
    found = []
    for test in case.torch.gpu_tests:
        device = f"{test.device} ({test.name})" if test.name else test.device
        if test.status == "timeout":
            found.append(case.finding("torch-gpu-test-timeout", "error", device=device,
                                      error=case.said_text(test.error_line)))
        elif test.status == "failed":
            cause = said.cause_of(test.error_line)
            if cause == said.OUT_OF_MEMORY:
                found.append(case.finding("torch-gpu-memory-full", "warning", device=device,
                                          error=case.said_text(test.error_line)))
            elif cause not in (said.NO_KERNEL_IMAGE, said.INVALID_DEVICE_FUNCTION, said.UNKNOWN_ERROR,
                               said.DRIVER_TOO_OLD, said.MIG_NOT_SELECTED, said.WRONG_LIBRARY):
                found.append(case.finding("torch-gpu-test-failed", "error", device=device,
                                          error=case.said_text(test.error_line)))
    return found


# --------------------------------------------------------------------------------- ROCm ---

def _rocm_findings(case: _Case) -> list[Finding]:
    torch = case.torch
    found: list[Finding] = []
    devices: list[tuple[str, str | None]] = [
        (d.name, d.capability) for d in torch.devices if d.capability and d.capability.startswith("gfx")]
    if not devices:
        devices = [(g.name, amd_gfx(g)) for g in case.amd_rocm or case.amd if amd_gfx(g)]
    built = {a.split(":")[0] for a in torch.arch_list if a.startswith("gfx")}
    missing = [(name, gfx) for name, gfx in devices if built and gfx not in built]
    invalid = said.first(case.said, said.INVALID_DEVICE_FUNCTION)
    if not missing and invalid is not None and devices:
        missing = [devices[0]]
    for name, gfx in missing[:1]:  # one cause: this build has no kernels for the card
        found.append(_gfx_missing(case, name, gfx, built))
    if found:
        return found
    if torch.cuda_available is False and case.rocm_supported():
        hidden = _hidden_by_env(case) or _points_nowhere(case, rocm=True)
        return [hidden] if hidden else [case.finding("torch-rocm-not-available", "error",
                                                     gpu=case.amd_rocm[0].name)]
    return found + _test_findings(case)


def _gfx_missing(case: _Case, name: str, gfx: str | None, built: set[str]) -> Finding:
    gfx = gfx or "?"
    arch = " ".join(sorted(built)) or "?"
    override = hsa_override(gfx) if gfx != "?" else None
    target = OVERRIDE_TARGET.get(override or "")
    rocm_choice = (case.choice.variant or "").startswith("rocm")
    if override and target and (target in built or rocm_choice):
        # RDNA2/RDNA3 cards near a built target run its kernels when told to: unofficial, but common.
        reinstall = "" if target in built else t("torch.findings.override-reinstall", case.lang,
                                                 target=target, command=case.fix)
        return case.finding("torch-rocm-gfx-missing-override", "error", gpu=name, gfx=gfx, arch=arch,
                            override=override, target=target, reinstall=reinstall)
    if rocm_choice:
        return case.finding("torch-rocm-gfx-missing", "error", gpu=name, gfx=gfx, arch=arch)
    return case.finding("torch-rocm-gfx-unsupported", "error", gpu=name, gfx=gfx, arch=arch)


# ---------------------------------------------------------------------------------- XPU ---

def _xpu_findings(case: _Case) -> list[Finding]:
    torch = case.torch
    if torch.xpu_available is False:
        return [case.finding("torch-xpu-not-available", "error", gpu=case.intel_xpu[0].name)]
    return _test_findings(case)


# ---------------------------------------------------------------------------------- Mac ---

def _macos_findings(case: _Case) -> list[Finding]:
    machine, torch = case.machine, case.torch
    if machine.os != "Darwin":
        return []
    too_old = _macos_too_old(case)
    if too_old is not None:
        return [too_old]
    apple_silicon = bool(case.apple) or machine.arch == "arm64"
    if not apple_silicon or torch.mps_available:
        return _test_findings(case) if torch.mps_available else []
    if torch.python_arch == "x86_64":
        return [case.finding("torch-mac-rosetta-python", "error")]
    if torch.mps_built is False:
        return [case.finding("torch-mps-not-built", "error")]
    return [case.finding("torch-mps-unavailable", "error", os_version=machine.os_version)]


def _macos_too_old(case: _Case) -> Finding | None:
    """torch from a release whose macOS wheels need a newer macOS than this Mac has."""
    machine, torch = case.machine, case.torch
    if machine.os != "Darwin" or not torch.version:
        return None
    have = macos_version_of(machine.os_version)
    release = load_matrix().release(torch.version)
    if not have or release is None:
        return None
    needed = release.macos_min
    if torch.status == "ok" and not torch.mps_available and torch.python_arch != "x86_64":
        needed = release.mps_macos_min or needed  # it loads, but uses the Apple GPU only from here on
    if not needed or version_tuple(have) >= version_tuple(needed):
        return None
    return case.finding("torch-macos-too-old", "error", macos=have, needed=needed)


# -------------------------------------------------------------------------------- ready ---

def _ready(case: _Case) -> Finding:
    torch = case.torch
    if torch.cuda_available and torch.devices:
        # ROCm builds drive AMD GPUs through the same torch.cuda API and device name.
        return case.finding("torch-ready", "ok", target="cuda", device=", ".join(d.name for d in torch.devices),
                            tested=_tested(torch, case.lang))
    if torch.mps_available:
        return case.finding("torch-ready", "ok", target="mps", device=t("evidence.device.apple-mps", case.lang),
                            tested=_tested(torch, case.lang))
    if torch.xpu_available:
        return case.finding("torch-ready", "ok", target="xpu",
                            device=", ".join(d.name for d in torch.devices)
                            or t("evidence.device.intel-xpu", case.lang),
                            tested=_tested(torch, case.lang))
    if case.nvidia or case.amd_rocm or case.intel_xpu or case.unreachable:
        # The GPU is there but not usable yet: the hardware finding (driver, container) says why.
        return case.finding("torch-gpu-not-usable-yet", "info")
    return case.finding("torch-cpu-only", "info")


def _tested(torch: TorchInfo, lang: str) -> str:
    ok = [test.device for test in torch.gpu_tests if test.status == "ok"]
    return t("torch.findings.tested", lang, devices=", ".join(ok)) if ok else ""

