"""The hardware probes, each bounded in time, and `assemble`: their facts as one `Machine`
(named afterwards by wizard.machine.identify; worded only when shown).

NVML answers from a child process (wizard.probe.nvml_job); the other GPUs and the chassis come
from the OS (sysfs, PowerShell, system_profiler). wizard.machine.live runs these with the system and
torch probes, all at once, for the wizard and the commands alike.
"""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from wizard.background import Background
from wizard.probe import chassis, nvidia_files, nvml, pci
from wizard.probe.facts import Benchmark, Gpu, Machine, NvidiaInfo, ProbeNote, TorchInfo
from wizard.probe.nvml_job import NVML_TIMEOUT, NvmlJob, run_nvml_child
from wizard.text.output import clean_arrived

if TYPE_CHECKING:
    from wizard.probe.system import SystemFacts

PLATFORM_TIMEOUT = 8.0


class NvidiaResult(NamedTuple):
    info: NvidiaInfo
    gpus: tuple[Gpu, ...]
    note: ProbeNote
    detail: str = ""


class HardwareResult(NamedTuple):
    gpus: tuple[Gpu, ...]
    chassis: str
    evidence: tuple[str, ...]
    notes: tuple[ProbeNote, ...]
    module: tuple[str, str] | None = None  # loaded NVIDIA kernel module (Linux): version, kind
    secure_boot: bool | None = None        # UEFI Secure Boot on (Linux)


def probe_nvidia(timeout: float = NVML_TIMEOUT, extra_path: list[str] | None = None,
                 job: NvmlJob | None = None) -> NvidiaResult:
    """NVML in a child process; a hang, crash or garbage becomes a status, never an exception.
    `job`: the child already started (wizard.probe.nvml_job), else it starts now."""
    result = job.result() if job is not None else run_nvml_child(timeout, extra_path)
    if result.status == "timeout":
        info = NvidiaInfo(status="timeout", reason="timeout")
        return NvidiaResult(info, (), ProbeNote("nvml", "timeout", round(result.seconds, 3), result.detail))
    data = nvml.parse_child_output(result.stdout) if result.status == "ok" else None
    if data is None:
        detail = result.detail or _last_line(result.stderr) or "no answer"
        info = NvidiaInfo(status="error", reason="crashed" if result.status == "crashed" else "nvml-error")
        return NvidiaResult(info, (), ProbeNote("nvml", "error", round(result.seconds, 3), detail), detail)
    info, gpus = nvml.to_model(data)
    status = "ok" if info.status in ("ok", "no-library", "no-device") else "error"
    detail = data.get("error", "")
    return NvidiaResult(info, gpus, ProbeNote("nvml", status, round(result.seconds, 3), detail or None), detail)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def probe_hardware(timeout: float = PLATFORM_TIMEOUT) -> HardwareResult:
    """GPUs seen without NVML (PCI / WMI / system_profiler) and the chassis, for this OS."""
    # psutil comes with it: +10-20 ms before the wizard's first screen, whose App imports this
    # module through wizard.machine.live (measured 2026-12-04).
    from wizard.probe.system import os_name

    start = time.monotonic()
    system = os_name()
    if system in ("Windows", "Darwin"):
        if system == "Windows":
            # Only this OS's probes: Windows' +5-11 ms and macOS' +4-6 ms on `check` elsewhere
            # (measured on Linux, 2026-12-04).
            from wizard.probe.windows import probe_chassis, probe_gpus
        else:
            from wizard.probe.macos import probe_chassis, probe_gpus  # see above
        gpus_job = Background(probe_gpus, timeout)
        kind, evidence, chassis_note = probe_chassis(timeout)
        gpus, gpu_note = gpus_job.result()
        return HardwareResult(gpus, kind, evidence, (gpu_note, chassis_note))

    # Each reader on its own: a file nobody expected (unreadable, garbled) costs that fact only.
    (gpus, skipped), pci_error = _guarded(pci.scan_linux, ((), ()))
    (kind, evidence), chassis_error = _guarded(chassis.detect_linux, ("unknown", ()))
    module, _ = _guarded(nvidia_files.loaded_module, None)
    secure_boot, _ = _guarded(nvidia_files.secure_boot, None)
    seconds = round(time.monotonic() - start, 3)
    detail = ("ignored: " + "; ".join(skipped)) if skipped else None
    notes = (ProbeNote("pci", "error" if pci_error else "ok", seconds, pci_error or detail),
             ProbeNote("chassis", "error" if chassis_error else "ok", seconds, chassis_error))
    return HardwareResult(gpus, kind, evidence, notes, module, secure_boot)


def _guarded(read, fallback):
    """(read(), None), or (fallback, why) when it raised."""
    try:
        return read(), None
    except Exception as exc:
        return fallback, f"{type(exc).__name__}: {exc}"[:300]


def merge_gpus(nvml_gpus: tuple[Gpu, ...], other: tuple[Gpu, ...]) -> tuple[Gpu, ...]:
    """NVML's view wins for the GPUs it sees; the rest (no driver, other vendors) are kept."""
    seen_bus = {_bus_key(g.bus_id) for g in nvml_gpus if g.bus_id}
    unmatched_nvml = [g for g in nvml_gpus if not g.bus_id]
    merged = list(nvml_gpus)
    for gpu in other:
        if gpu.bus_id and _bus_key(gpu.bus_id) in seen_bus:
            continue
        if gpu.vendor == "nvidia" and not gpu.bus_id:
            twin = next((g for g in unmatched_nvml if g.pci_id == gpu.pci_id or not gpu.pci_id), None)
            if twin is not None:
                unmatched_nvml.remove(twin)
                continue
        merged.append(gpu)
    return tuple(merged)


def _bus_key(bus_id: str) -> str:
    # NVML writes an 8-digit PCI domain ("00000000:01:00.0"), sysfs a 4-digit one.
    return bus_id.lower()[-12:]


def report_dir(preferred: Path | None = None) -> Path:
    """Where the report will be saved: the current directory, or home when it is not writable."""
    if preferred is not None:
        return preferred.parent if preferred.suffix else preferred
    try:
        cwd = Path.cwd()
        if os.access(cwd, os.W_OK):
            return cwd
    except OSError:
        pass
    return Path.home()


def assemble(
    facts: SystemFacts,
    nvidia: NvidiaResult,
    hardware: HardwareResult,
    torch: TorchInfo | None = None,
    benchmark: Benchmark | None = None,
    extra_notes: tuple[ProbeNote, ...] = (),
) -> Machine:
    gpus = merge_gpus(nvidia.gpus, hardware.gpus)
    info = nvidia.info
    if info.status != "ok" and hardware.module and not info.driver_version:
        info = replace(info, driver_version=hardware.module[0])
    if hardware.module:
        info = replace(info, kernel_module=hardware.module[1])
    if hardware.secure_boot is not None:
        info = replace(info, secure_boot=hardware.secure_boot)
    # OS strings may hold undecodable bytes (LANG=C host names, garbled sysfs files) or, from a
    # tampered tool or torch, escape sequences.
    return clean_arrived(Machine(
        os=facts.os,
        os_version=facts.os_version,
        arch=facts.arch,
        python_version=facts.python_version,
        cpu_model=facts.cpu_model,
        cpu_cores=facts.cpu_cores,
        cpu_threads=facts.cpu_threads,
        ram_gb=facts.ram_gb,
        disk_free_gb=facts.disk_free_gb,
        chassis=hardware.chassis,
        chassis_evidence=hardware.evidence,
        hostname=facts.hostname,
        nvidia=info,
        gpus=gpus,
        torch=torch,
        benchmark=benchmark,
        probes=(nvidia.note, *hardware.notes, *extra_notes),
    ))
