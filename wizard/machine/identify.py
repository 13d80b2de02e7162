"""Name what the probes found, before diagnosis, advice or output read a machine.

The probes (wizard.probe) hold facts only: PCI ids, the names the OS, the driver or pci.ids
report, versions, sizes, errors. Here our catalog (wizard.knowledge) names a GPU that only the
PCI bus saw, and the cause of the NVIDIA status is worked out, as a code. Every place that
assembles a machine from live probes, or re-reads a recorded one, goes through here. The Machine
holds no sentence: what it says is worded when it is shown, in the reader's language, so a
language switch re-renders the same Machine.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from wizard.diagnosis import nvidia_cause
from wizard.knowledge.content import ContentError
from wizard.probe.facts import Gpu, Machine
from wizard.probe.gather import HardwareResult, NvidiaResult
from wizard.probe.gather import assemble as assemble_facts
from wizard.probe.pci import names_a_laptop_part

if TYPE_CHECKING:
    from wizard.probe.facts import Benchmark, ProbeNote, TorchInfo
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
    # The catalog loads only for a GPU known by its PCI id alone: +75 ms on `check --json
    # --no-torch`, which on most machines has none (measured 2026-12-04).
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


def identify(machine: Machine) -> Machine:
    """A machine the probes just assembled: its GPUs named and the cause of its NVIDIA status
    worked out. Facts and codes only: the renderers word them in the reader's language
    (wizard.diagnosis.nvidia_cause.nvidia_message, wizard.pytorch.wording.torch_message)."""
    machine = replace(machine, gpus=name_gpus(machine.gpus))
    return replace(machine, nvidia=nvidia_cause.with_reason(machine))


def recorded(machine: Machine) -> Machine:
    """A recorded machine (a saved report, a fixture) as the facts it holds: the cause of its
    NVIDIA status worked out where an older report has none, and the sentences the report was
    saved with left out, to be worded again in the reader's language (an NVIDIA one that quotes
    its run stays: wizard.diagnosis.nvidia_cause.recorded). Its GPU names are what was
    recorded: the catalog of that day named them."""
    torch = replace(machine.torch, message=None) if machine.torch is not None else None
    return replace(machine, nvidia=nvidia_cause.recorded(machine), torch=torch)


def assemble(facts: SystemFacts, nvidia: NvidiaResult, hardware: HardwareResult,
             torch: TorchInfo | None = None, benchmark: Benchmark | None = None,
             extra_notes: tuple[ProbeNote, ...] = ()) -> Machine:
    """wizard.probe.gather.assemble, then identified: the machine the wizard's screens read."""
    return identify(assemble_facts(facts, nvidia, hardware, torch, benchmark, extra_notes))
