"""Name what the probes found, and word it, before diagnosis, advice or output read a machine.

The probes (wizard.probe) hold facts only: PCI ids, the names the OS, the driver or pci.ids
report, versions, sizes, errors. Here our catalog (wizard.knowledge) names a GPU that only the
PCI bus saw, and the torch probe's facts get their sentence in the reader's language. Every
place that assembles a machine from live probes, or re-reads a recorded one, goes through here.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from wizard.diagnosis import nvidia_cause
from wizard.knowledge.content import ContentError
from wizard.probe.facts import Gpu, Machine
from wizard.probe.pci import names_a_laptop_part

if TYPE_CHECKING:
    from wizard.probe.facts import Benchmark, ProbeNote, TorchInfo
    from wizard.probe.gather import HardwareResult, NvidiaResult
    from wizard.probe.system import SystemFacts


def name_gpus(gpus: tuple[Gpu, ...]) -> tuple[Gpu, ...]:
    """GPUs the PCI scan found, named (and sized) from the catalog where it knows their id."""
    return tuple(_named(gpu) for gpu in gpus)


def name_hardware(result: HardwareResult) -> HardwareResult:
    """The hardware probe's result with its GPUs named, for screens that show them before the
    whole machine is assembled."""
    return result._replace(gpus=name_gpus(result.gpus))


def _named(gpu: Gpu) -> Gpu:
    # Only the PCI scan reports a bare id: NVML, WMI and system_profiler name the card themselves.
    if gpu.source != "pci" or not gpu.pci_id:
        return gpu
    # The catalog, and the torch sentences below, load only for a machine that needs them: on
    # most machines `check --no-torch` reads neither.
    from wizard.knowledge.lookup import gpus_for_pci_id

    try:
        entries = gpus_for_pci_id(gpu.pci_id)
    except ContentError:  # names then stay pci.ids'; the CLI reports the damaged file
        return gpu
    if len(entries) != 1:
        # One id for several models (RX 7900 XT and XTX): naming one of them would be a guess,
        # so pci.ids' name for the id, which lists them all, stays.
        return gpu
    entry = entries[0]
    vram = gpu.vram_gb
    if vram is None and entry.vram_gb and entry.vendor == gpu.vendor:
        vram = float(entry.vram_gb)
    return replace(
        gpu,
        name=entry.name,
        vram_gb=vram,
        laptop=True if entry.is_laptop or names_a_laptop_part(entry.name) else None,
        compute_capability=entry.compute_capability if gpu.vendor == "nvidia" else None,
    )


def identify(machine: Machine, lang: str) -> Machine:
    """A machine the probes just assembled: its GPUs named, the cause of its NVIDIA status worked
    out, and that status and its torch worded in `lang`."""
    machine = replace(machine, gpus=name_gpus(machine.gpus))
    machine = replace(machine, nvidia=nvidia_cause.explained(machine, lang))
    if machine.torch is not None:
        from wizard.pytorch.wording import worded

        machine = replace(machine, torch=worded(machine.torch, lang))
    return machine


def localize(machine: Machine, lang: str) -> Machine:
    """A recorded machine's NVIDIA and torch status explained again in `lang`. Its GPU names
    are what was recorded: the catalog of that day named them."""
    if machine.torch is not None:
        from wizard.pytorch.wording import worded

        machine = replace(machine, torch=worded(machine.torch, lang))
    return nvidia_cause.localize(machine, lang)


def assemble(facts: SystemFacts, nvidia: NvidiaResult, hardware: HardwareResult, lang: str,
             torch: TorchInfo | None = None, benchmark: Benchmark | None = None,
             extra_notes: tuple[ProbeNote, ...] = ()) -> Machine:
    """wizard.probe.gather.assemble, then identified: the machine the wizard's screens read."""
    from wizard.probe.gather import assemble as assemble_facts

    return identify(assemble_facts(facts, nvidia, hardware, torch, benchmark, extra_notes), lang)
