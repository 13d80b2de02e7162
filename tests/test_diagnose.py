"""From raw NVML answers + other probes to the cause and the findings a beginner sees."""

from dataclasses import replace

import pytest

from wizard.diagnosis.diagnose import diagnose, hardware_findings
from wizard.diagnosis.nvidia_cause import nvidia_message, refine_reason
from wizard.machine.identify import assemble, recorded
from wizard.probe.facts import Gpu, Machine, NvidiaInfo, ProbeNote
from wizard.probe.gather import HardwareResult, NvidiaResult, merge_gpus
from wizard.probe.system import SystemFacts

NO_LIB = NvidiaInfo(status="no-library", reason="no-library", error_code=12)
PCI_1080TI = Gpu(vendor="nvidia", name="GeForce GTX 1080 Ti", source="pci", pci_id="10de:1b06",
                 kernel_driver="", bus_id="0000:01:00.0", vram_gb=11.0, compute_capability="6.1")
NOUVEAU = replace(PCI_1080TI, kernel_driver="nouveau")
NVML_4060 = Gpu(vendor="nvidia", name="NVIDIA GeForce RTX 4060 Laptop GPU", source="nvml", vram_gb=8.0,
                compute_capability="8.9", pci_id="10de:28e0", bus_id="00000000:01:00.0", laptop=True)
FACTS = SystemFacts("Linux", "Ubuntu 24.04", "x86_64", "3.12.3", "Intel Core i7", 8, 16, 31.2, 100.0, "host")


@pytest.mark.parametrize(
    "os_name, chassis, gpus, module, reason",
    [
        ("Darwin", "laptop", (), False, "macos"),
        ("Linux", "wsl", (), False, "wsl-no-library"),
        ("Linux", "container", (PCI_1080TI,), False, "container-no-gpu"),
        ("Linux", "container", (), True, "container-no-gpu"),   # host module visible, no devices
        ("Linux", "container", (), False, "container-no-library"),
        ("Linux", "desktop", (NOUVEAU,), False, "nouveau"),
        ("Linux", "desktop", (PCI_1080TI,), False, "driver-not-installed"),
        ("Windows", "desktop", (replace(PCI_1080TI, source="wmi", kernel_driver=""),), False, "windows-no-driver"),
        ("Linux", "vm", (), False, "no-nvidia-gpu"),
        ("Linux", "desktop", (), True, "no-library"),
    ],
)
def test_library_not_found_has_many_causes(os_name, chassis, gpus, module, reason):
    assert refine_reason(NO_LIB, os_name=os_name, chassis=chassis, gpus=gpus, module_loaded=module) == reason


def test_driver_not_loaded_with_nouveau_is_nouveau():
    info = NvidiaInfo(status="no-driver", reason="driver-not-loaded")
    assert refine_reason(info, os_name="Linux", chassis="desktop", gpus=(NOUVEAU,), module_loaded=False) == "nouveau"
    assert refine_reason(info, os_name="Linux", chassis="desktop", gpus=(), module_loaded=False) == "driver-not-loaded"


def _assemble(info, nvml_gpus=(), other=(), chassis="desktop", module=None):
    nvidia = NvidiaResult(info, tuple(nvml_gpus), ProbeNote("nvml", "ok", 0.1))
    hardware = HardwareResult(tuple(other), chassis, ("test",), (ProbeNote("pci", "ok", 0.0),), module)
    return assemble(FACTS, nvidia, hardware)


def test_assembled_machine_holds_the_cause_and_is_worded_in_the_readers_language():
    machine = _assemble(NO_LIB, other=(NOUVEAU,))
    assert machine.nvidia.reason == "nouveau" and machine.nvidia.message is None
    en, zh = nvidia_message(machine, "en"), nvidia_message(machine, "zh")
    assert "nouveau" in en and "reboot" in en
    assert "nouveau" in zh and "重启" in zh


def test_version_mismatch_keeps_the_loaded_module_version():
    info = NvidiaInfo(status="version-mismatch", reason="version-mismatch", error_code=18)
    machine = _assemble(info, other=(replace(PCI_1080TI, kernel_driver="nvidia"),),
                        module=("580.173.02", "proprietary"))
    assert machine.nvidia.driver_version == "580.173.02"
    assert machine.nvidia.kernel_module == "proprietary"
    [finding] = [f for f in diagnose(machine) if f.severity == "error"]
    assert finding.id == "nvidia-version-mismatch" and "Reboot" in finding.fix


def test_nvml_and_pci_views_of_one_gpu_are_merged_by_bus_id():
    pci_view = replace(NVML_4060, source="pci", bus_id="0000:01:00.0", kernel_driver="nvidia")
    igpu = Gpu(vendor="intel", name="Iris Xe", source="pci", bus_id="0000:00:02.0", kernel_driver="i915")
    merged = merge_gpus((NVML_4060,), (pci_view, igpu))
    assert [g.source for g in merged] == ["nvml", "pci"]
    assert merged[1].vendor == "intel"


def ids(machine: Machine) -> list[str]:
    return [f.id for f in hardware_findings(machine)]


def test_findings_per_situation():
    ok = _assemble(NvidiaInfo(status="ok", driver_version="580.95.05", cuda_driver_version="13.0"),
                   nvml_gpus=(NVML_4060,))
    assert ids(ok) == ["nvidia-ready"]
    assert "580.95.05" in hardware_findings(ok)[0].detail
    assert ids(_assemble(NO_LIB, chassis="vm")) == ["no-gpu"]
    assert ids(_assemble(NO_LIB, other=(PCI_1080TI,))) == ["nvidia-no-driver"]
    assert ids(_assemble(NO_LIB, other=(NOUVEAU,))) == ["nvidia-nouveau-bound"]
    assert ids(_assemble(NO_LIB, other=(PCI_1080TI,), chassis="container")) == ["container-without-gpu-access"]
    vfio = replace(PCI_1080TI, kernel_driver="vfio-pci")
    assert "nvidia-reserved-for-vm" in ids(_assemble(NO_LIB, other=(vfio,)))
    timeout = NvidiaInfo(status="timeout", reason="timeout")
    assert ids(_assemble(timeout, chassis="server")) == ["nvidia-probe-failed", "no-gpu"]


def test_small_gpu_warns_but_apple_unified_memory_does_not():
    small = Gpu(vendor="nvidia", name="GeForce GTX 1050", source="nvml", vram_gb=2.0)
    machine = _assemble(NvidiaInfo(status="ok", driver_version="470.1"), nvml_gpus=(small,))
    assert "gpu-low-vram" in ids(machine)
    m1 = Gpu(vendor="apple", name="Apple M1", source="system_profiler", vram_gb=8.0, unified_memory=True)
    mac = replace(_assemble(NO_LIB, other=(m1,)), os="Darwin")
    assert ids(mac) == ["apple-silicon"]


def test_amd_on_linux_is_explained():
    amd = Gpu(vendor="amd", name="Radeon RX 7900 XTX", source="pci", vram_gb=24.0, kernel_driver="amdgpu")
    assert ids(_assemble(NO_LIB, other=(amd,))) == ["amd-gpu"]


def test_findings_are_sorted_worst_first_and_translated():
    machine = _assemble(NO_LIB, other=(NOUVEAU, Gpu(vendor="nvidia", name="GT 710", source="pci", vram_gb=1.0)))
    found = diagnose(machine, "zh")
    assert found[0].severity == "error"
    assert "nouveau" in found[0].title and any("显存" in f.title for f in found)


def test_a_recorded_explanation_that_quotes_its_run_is_kept_and_the_others_worded_again():
    timeout = NvidiaInfo(status="timeout", reason="timeout")
    machine = _assemble(timeout, chassis="server")
    saved = recorded(replace(machine, nvidia=replace(machine.nvidia, message="waited 8 s for the driver")))
    assert nvidia_message(saved, "zh") == "waited 8 s for the driver"
    # A sentence the facts say again is left out when read, and worded in the reader's language.
    nouveau = _assemble(NO_LIB, other=(NOUVEAU,))
    saved = recorded(replace(nouveau, nvidia=replace(nouveau.nvidia, message="old English words")))
    assert saved.nvidia.message is None and "重启" in nvidia_message(saved, "zh")
    # Probed, a timeout is worded from the NVML note: how long it was waited for.
    waited = replace(machine, probes=(ProbeNote("nvml", "timeout", 8.0),))
    assert "8 seconds" in nvidia_message(waited, "en")


@pytest.mark.parametrize("system, module_name", [("Windows", "windows"), ("Darwin", "macos")])
def test_hardware_probe_uses_the_os_tools_off_linux(monkeypatch, system, module_name):
    import importlib

    from wizard.probe import gather
    from wizard.probe import system as system_facts

    module = importlib.import_module(f"wizard.probe.{module_name}")
    gpu = Gpu(vendor="nvidia", name="NVIDIA GeForce RTX 4060 Laptop GPU", source="wmi")
    monkeypatch.setattr(system_facts, "os_name", lambda: system)
    monkeypatch.setattr(module, "probe_gpus", lambda timeout: ((gpu,), ProbeNote(f"{module_name}-gpus", "ok")))
    monkeypatch.setattr(module, "probe_chassis",
                        lambda timeout: ("laptop", ("chassis type 10",), ProbeNote(f"{module_name}-chassis", "ok")))
    result = gather.probe_hardware()
    assert result.gpus == (gpu,) and result.chassis == "laptop"
    assert [n.name for n in result.notes] == [f"{module_name}-gpus", f"{module_name}-chassis"]


def test_the_system_facts_say_what_the_platform_module_says():
    """wizard.probe.system reads os.uname() instead of loading platform: the same three facts."""
    import platform
    import sys

    from wizard.probe import system

    assert system.uname() == (platform.system(), platform.release(), platform.machine())
    assert system.machine() == platform.machine()
    assert system.probe_system().python_version == platform.python_version()
    assert system.os_name() == ("Linux" if platform.system() not in ("Windows", "Darwin")
                                else platform.system())
    assert sys.platform != "linux" or platform.release() in system.os_version()
