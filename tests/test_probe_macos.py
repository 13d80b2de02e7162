"""macOS probes: parsers fed the real recorded outputs, probes run against a faked runner."""

from __future__ import annotations

import json
import os
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.realoutputs import section, sections
from wizard.probe import macos
from wizard.probe.facts import to_dict
from wizard.probe.macos import (
    chassis_from_facts,
    cpu_model_from_sysctl,
    is_apple_silicon,
    is_translated,
    is_vm_from_sysctl,
    memsize_from_sysctl,
    parse_spdisplays_json,
    parse_spdisplays_text,
    parse_sphardware,
    parse_sysctl,
)
from wizard.probe.runner import RunResult

SILICON_TEXT = "macos-spdisplays-apple-silicon-plain.txt"
SILICON_JSON = "macos-spdisplays-apple-silicon-json.txt"
INTEL_AMD = "macos-spdisplays-intel-amd.txt"
INTEL_NVIDIA = "macos-spdisplays-intel-nvidia.txt"
SYSCTL = "macos-sysctl-and-hardware.txt"
GIB = 1024**3


def essentials(gpu) -> tuple:
    return (gpu.vendor, gpu.name, gpu.vram_gb, gpu.pci_id, gpu.laptop, gpu.unified_memory)


# --- SPDisplaysDataType, plain text ----------------------------------------------------------

def test_m1_macbook_air_shares_its_memory_with_the_gpu():
    text = section(SILICON_TEXT, "MacBook Air (M1").output
    memory = int(re.search(r"Memory: (\d+) GB", text).group(1)) * GIB  # from the same report
    (gpu,) = parse_spdisplays_text(text, memory)
    assert (gpu.vendor, gpu.name, gpu.source) == ("apple", "Apple M1", "system_profiler")
    assert (gpu.vram_gb, gpu.unified_memory, gpu.gpu_cores, gpu.pci_id) == (16.0, True, 8, None)
    assert parse_spdisplays_text(text, None)[0].vram_gb is None


def test_m3_with_an_external_monitor_is_still_one_gpu():
    (gpu,) = parse_spdisplays_text(section(SILICON_TEXT, "Apple M3").output, 8 * GIB)
    assert (gpu.name, gpu.gpu_cores, gpu.vram_gb) == ("Apple M3", 10, 8.0)


def test_imac_pro_vega_64():
    (gpu,) = parse_spdisplays_text(section(INTEL_AMD, "Vega 64").output)
    assert essentials(gpu) == ("amd", "Radeon Pro Vega 64", 16.0, "1002:6860", None, None)


def test_macbook_pro_2018_intel_igpu_without_a_vendor_id():
    # The Radeon Pro 560X entry of this machine is not retrievable (TRUNCATED in INDEX.md).
    (gpu,) = parse_spdisplays_text(section(INTEL_AMD, "560X").output)
    assert essentials(gpu) == ("intel", "Intel UHD Graphics 630", 1.5, "8086:3e9b", None, True)


def test_old_ati_driver_name_falls_back_to_the_heading():
    (gpu,) = parse_spdisplays_text(section(INTEL_AMD, "iMac7,1").output)
    assert essentials(gpu) == ("amd", "ATI Radeon HD 2600 Pro", 0.25, "1002:9583", None, None)


def test_mac_pro_with_two_monitors_and_blank_serial_lines():
    (gpu,) = parse_spdisplays_text(section(INTEL_AMD, "HD 5770").output)
    assert essentials(gpu) == ("amd", "ATI Radeon HD 5770", 1.0, "1002:68b8", None, None)


def test_iris_pro_and_gt_750m_copied_with_tabs():
    iris, nvidia = parse_spdisplays_text(section(INTEL_NVIDIA, "GT 750M").output)
    assert essentials(iris) == ("intel", "Intel Iris Pro", 1.5, "8086:0d26", None, True)
    assert essentials(nvidia) == ("nvidia", "NVIDIA GeForce GT 750M", 2.0, "10de:0fe9", True, None)


def test_gt_330m_reports_dynamic_vram_but_is_discrete():
    intel, nvidia = parse_spdisplays_text(section(INTEL_NVIDIA, "GT 330M").output)
    assert essentials(intel) == ("intel", "Intel HD Graphics", 0.28, "8086:0046", None, True)
    assert essentials(nvidia) == ("nvidia", "NVIDIA GeForce GT 330M", 0.5, "10de:0a29", True, None)


def test_mac_mini_geforce_9400():
    (gpu,) = parse_spdisplays_text(section(INTEL_NVIDIA, "GeForce 9400").output)
    assert essentials(gpu) == ("nvidia", "NVIDIA GeForce 9400", 0.25, "10de:0861", None, None)


def test_every_plain_text_section_gives_gpus_and_no_monitors():
    for name in (SILICON_TEXT, INTEL_AMD, INTEL_NVIDIA):
        for s in sections(name):
            gpus = parse_spdisplays_text(s.output, 16 * GIB)
            assert 1 <= len(gpus) <= 2, s.machine
            assert not {g.name for g in gpus} & {"Color LCD", "iMac", "E2441", "W2261"}


# --- SPDisplaysDataType, JSON ----------------------------------------------------------------

def test_complete_m1_json_uses_sppci_model_not_the_localisation_key():
    (gpu,) = parse_spdisplays_json(section(SILICON_JSON, "7-core GPU").output, 8 * GIB)
    assert (gpu.vendor, gpu.name, gpu.gpu_cores, gpu.vram_gb, gpu.unified_memory) == (
        "apple", "Apple M1", 7, 8.0, True)


def test_monitor_serials_never_reach_the_gpu():
    text = section(SILICON_JSON, "7-core GPU").output
    assert '"_spdisplays_display-serial-number" : "00000000"' in text
    (gpu,) = parse_spdisplays_json(text, 8 * GIB)
    assert "Color LCD" not in str(to_dict(gpu)) and "00000000" not in str(to_dict(gpu))


@pytest.mark.parametrize("machine", ["macOS 11 Big Sur", "M3 Pro"])
def test_truncated_json_gives_nothing_without_raising(machine):
    assert parse_spdisplays_json(section(SILICON_JSON, machine).output, 8 * GIB) == ()


def test_m1_json_with_only_the_localisation_key_still_names_the_chip():
    data = json.loads(section(SILICON_JSON, "7-core GPU").output)
    del data["SPDisplaysDataType"][0]["sppci_model"]
    (gpu,) = parse_spdisplays_json(json.dumps(data), None)
    assert (gpu.name, gpu.vendor) == ("Apple M1", "apple")


def test_intel_mac_json_built_from_the_vega_64_section():
    # No real Intel-Mac JSON capture exists; the values are the Vega 64 section's, under the
    # keys that system_profiler -json uses for them.
    item = {"_name": "Radeon Pro Vega 64", "sppci_model": "Radeon Pro Vega 64",
            "sppci_bus": "spdisplays_pcie_device", "spdisplays_vram": "16 GB",
            "spdisplays_vendor": "AMD (0x1002)", "spdisplays_device-id": "0x6860",
            "sppci_device_type": "spdisplays_gpu"}
    (gpu,) = parse_spdisplays_json(json.dumps({"SPDisplaysDataType": [item]}), 64 * GIB)
    assert essentials(gpu) == ("amd", "Radeon Pro Vega 64", 16.0, "1002:6860", None, None)


def test_json_garbage_gives_nothing():
    for text in ("", "{}", "[]", '{"SPDisplaysDataType": "x"}', "system_profiler: error"):
        assert parse_spdisplays_json(text, None) == ()


# --- sysctl ----------------------------------------------------------------------------------

def test_m1_pro_sysctl():
    values = parse_sysctl(section(SYSCTL, "M1 Pro (targettype").output)
    assert cpu_model_from_sysctl(values) == "Apple M1 Pro"
    assert memsize_from_sysctl(values) == 32 * GIB
    assert is_apple_silicon(values) and not is_vm_from_sysctl(values) and not is_translated(values)
    assert values["kern.version"].startswith("Darwin Kernel Version 23.4.0: Fri Mar 15")


def test_intel_macos_vm():
    values = parse_sysctl(section(SYSCTL, "VIRTUAL MACHINE").output)
    assert cpu_model_from_sysctl(values) == "Intel(R) Core(TM) i7-8700B CPU @ 3.20GHz"
    assert is_vm_from_sysctl(values) and not is_apple_silicon(values)
    del values["kern.hv_vmm_present"]
    assert is_vm_from_sysctl(values)  # the VMM cpu feature alone says so too


def test_intel_macbook_pro_is_not_a_vm():
    values = parse_sysctl(section(SYSCTL, "i7-4980HQ").output)
    assert cpu_model_from_sysctl(values) == "Intel(R) Core(TM) i7-4980HQ CPU @ 2.80GHz"
    assert memsize_from_sysctl(values) == 16 * GIB
    assert not is_vm_from_sysctl(values)  # VMX (can host VMs) is not VMM
    assert values["machdep.cpu.cache.L2_associativity"] == "8"


@pytest.mark.parametrize("command, brand, rosetta", [
    ("sysctl machdep.cpu", "Apple M1", False),
    ("sysctl -A machdep.cpu", "Apple processor", False),  # the 2020 launch brand string
    ("sysctl -a | grep machdep.cpu", "Apple M1", True),  # x86-only CPUID keys on an Apple chip
])
def test_m1_brand_strings_and_rosetta(command, brand, rosetta):
    (match,) = [s for s in sections(SYSCTL) if s.command == command]
    values = parse_sysctl(match.output)
    assert cpu_model_from_sysctl(values) == brand
    assert is_translated(values) is rosetta


def test_proc_translated_flag():
    assert is_translated({"sysctl.proc_translated": "1"})
    assert not is_translated({"sysctl.proc_translated": "0", "machdep.cpu.brand_string": "Apple M2"})


def test_sysctl_ignores_prompts_and_prose():
    assert parse_sysctl(section(SYSCTL, '14" 2021').output) == {}
    assert parse_sysctl("$ sysctl machdep.cpu\n% sysctl -A machdep.cpu\n") == {}


# --- SPHardwareDataType and chassis ----------------------------------------------------------

def test_sphardware_text_keeps_no_serials():
    facts = parse_sphardware(section(SYSCTL, "M1 Max").output)
    assert facts == {"machine_name": "MacBook Pro", "model_id": "MacBookPro18,2",
                     "chip": "Apple M1 Max"}
    air = parse_sphardware(section(SILICON_TEXT, "MacBook Air (M1").output)
    assert air["model_id"] == "MacBookAir10,1" and "SERIAL" not in str(air)


def test_sphardware_of_the_2023_mac14_id():
    first, second = section(SYSCTL, "Mac14,10").output.split("\nAnd\n")
    assert parse_sphardware(first)["model_id"] == "MacBookPro18,1"
    assert parse_sphardware(second) == {"machine_name": "MacBook Pro", "model_id": "Mac14,10",
                                        "chip": "Apple M2 Pro"}


def test_sphardware_json():
    # Built from the M1 Max text section's values under system_profiler's JSON keys.
    data = {"SPHardwareDataType": [{"_name": "hardware_overview", "machine_name": "MacBook Pro",
                                    "machine_model": "MacBookPro18,2", "chip_type": "Apple M1 Max",
                                    "serial_number": "REDACTED"}]}
    assert parse_sphardware(json.dumps(data)) == {
        "machine_name": "MacBook Pro", "model_id": "MacBookPro18,2", "chip": "Apple M1 Max"}


def test_chassis_from_recorded_model_ids():
    said = re.search(r"give you (\S+)", section(SYSCTL, "14\" 2021").output).group(1)
    assert chassis_from_facts(said, None, None, False)[0] == "laptop"  # MacBookPro18,3
    mini = re.search(r"(Macmini\d+,\d+)", section(INTEL_NVIDIA, "GeForce 9400").machine).group(1)
    assert chassis_from_facts(mini, None, None, False)[0] == "desktop"
    imac = re.search(r"(iMac\d+,\d+)", section(INTEL_AMD, "iMac7,1").machine).group(1)
    assert chassis_from_facts(imac, None, None, False)[0] == "desktop"


def test_mac14_ids_need_the_name_or_the_battery():
    facts = parse_sphardware(section(SYSCTL, "Mac14,10").output.split("\nAnd\n")[1])
    assert chassis_from_facts(facts["model_id"], None, None, False) == (
        "unknown", ("model identifier: Mac14,10",))
    assert chassis_from_facts(facts["model_id"], facts["machine_name"], None, False) == (
        "laptop", ("model name: MacBook Pro",))
    assert chassis_from_facts("Mac14,10", None, True, False)[0] == "laptop"
    assert chassis_from_facts("Mac14,3", None, False, False)[0] == "desktop"


@pytest.mark.parametrize("name, kind", [
    ("MacBook Air", "laptop"), ("Mac mini", "desktop"), ("iMac", "desktop"),
    ("Mac Studio", "desktop"), ("Mac Pro", "desktop"), ("Xserve", "server"),
])
def test_chassis_from_machine_names(name, kind):
    assert chassis_from_facts("Mac15,12", name, None, False)[0] == kind


def test_vm_comes_first():
    values = parse_sysctl(section(SYSCTL, "VIRTUAL MACHINE").output)
    kind, evidence = chassis_from_facts(None, "Mac mini", False, is_vm_from_sysctl(values))
    assert kind == "vm" and evidence == ("kern.hv_vmm_present is 1",)
    assert chassis_from_facts("VirtualMac2,1", None, None, False)[0] == "vm"


# --- probes with a faked runner --------------------------------------------------------------

class FakeRunner:
    """Answers by the program's name and first arguments; records every call without the path
    (the probes prefer /usr/sbin/... when it exists)."""

    def __init__(self, answers: dict[tuple[str, ...], RunResult]):
        self.answers, self.calls = answers, []

    def __call__(self, argv, timeout, **kwargs):
        assert isinstance(argv, list) and timeout > 0
        argv = [os.path.basename(argv[0]), *argv[1:]]
        self.calls.append(argv)
        for prefix, result in self.answers.items():
            if tuple(argv[:len(prefix)]) == prefix:
                return result
        return RunResult("not-found", detail=f"{argv[0]} was not found")


def ok(stdout: str, code: int = 0) -> RunResult:
    return RunResult("ok", code, stdout, "", 0.4)


M1_JSON = section(SILICON_JSON, "7-core GPU").output


def test_probe_gpus_json(monkeypatch):
    runner = FakeRunner({("system_profiler", "SPDisplaysDataType"): ok(M1_JSON)})
    monkeypatch.setattr(macos, "run_bounded", runner)
    monkeypatch.setattr(macos, "_memsize", lambda: 16 * GIB)
    (gpu,), note = macos.probe_gpus(timeout=5.0)
    assert (gpu.name, gpu.vram_gb, note.status) == ("Apple M1", 16.0, "ok")
    assert runner.calls == [["system_profiler", "SPDisplaysDataType", "-json"]]


def test_probe_gpus_reads_plain_text_from_old_macos(monkeypatch):
    text = section(INTEL_NVIDIA, "GeForce 9400").output
    monkeypatch.setattr(macos, "run_bounded", FakeRunner({("system_profiler",): ok(text)}))
    gpus, note = macos.probe_gpus()
    assert [g.name for g in gpus] == ["NVIDIA GeForce 9400"] and note.status == "ok"


@pytest.mark.parametrize("result, status", [
    (RunResult("timeout", seconds=8.0, detail="no answer within 8 s"), "timeout"),
    (RunResult("not-found", detail="system_profiler was not found"), "unavailable"),
    (RunResult("crashed", -9, "", "", 1.0, "killed by SIGKILL"), "error"),
    (ok("", 1), "error"),
    (ok("2024-05-01 system_profiler[123] an unexpected log line"), "error"),
])
def test_probe_gpus_failures(monkeypatch, result, status):
    monkeypatch.setattr(macos, "run_bounded", FakeRunner({("system_profiler",): result}))
    gpus, note = macos.probe_gpus()
    assert gpus == () and note.status == status and note.detail and note.name == "macos-gpus"


def test_probe_chassis(monkeypatch):
    hardware = json.dumps({"SPHardwareDataType": [{"machine_name": "MacBook Air",
                                                   "machine_model": "Mac14,2"}]})
    runner = FakeRunner({("sysctl",): ok("hw.model: Mac14,2\nkern.hv_vmm_present: 0\n"),
                         ("system_profiler", "SPHardwareDataType"): ok(hardware)})
    monkeypatch.setattr(macos, "run_bounded", runner)
    monkeypatch.setattr(macos, "_has_battery", lambda: None)
    kind, evidence, note = macos.probe_chassis(timeout=4.0)
    assert (kind, evidence, note.status) == ("laptop", ("model name: MacBook Air",), "ok")


def test_probe_chassis_vm_from_sysctl(monkeypatch):
    vm = section(SYSCTL, "VIRTUAL MACHINE").output
    monkeypatch.setattr(macos, "run_bounded", FakeRunner({("sysctl",): ok(vm)}))
    monkeypatch.setattr(macos, "_has_battery", lambda: False)
    assert macos.probe_chassis()[0] == "vm"


def test_probe_chassis_with_nothing_working(monkeypatch):
    monkeypatch.setattr(macos, "run_bounded", FakeRunner({}))
    monkeypatch.setattr(macos, "_has_battery", lambda: None)
    kind, evidence, note = macos.probe_chassis()
    assert (kind, evidence, note.status) == ("unknown", (), "unavailable")


def test_sysctl_asks_again_key_by_key_after_an_unknown_key(monkeypatch):
    def runner(argv, timeout, **kwargs):
        argv = [os.path.basename(argv[0]), *argv[1:]]
        runner.calls.append(argv)
        if len(argv) > 2:  # the batch: one unknown oid fails it
            return ok("hw.model: MacBookPro11,3\n", 1)
        return ok("hw.memsize: 17179869184\n") if argv[1] == "hw.memsize" else ok("", 1)
    runner.calls = []
    monkeypatch.setattr(macos, "run_bounded", runner)
    values = macos.sysctl_values(("hw.model", "hw.memsize", "hw.optional.arm64"))
    assert values == {"hw.model": "MacBookPro11,3", "hw.memsize": "17179869184"}
    assert runner.calls[1:] == [["sysctl", "hw.memsize"], ["sysctl", "hw.optional.arm64"]]


def test_cpu_model_and_rosetta(monkeypatch):
    m1_pro = section(SYSCTL, "M1 Pro (targettype").output
    monkeypatch.setattr(macos, "run_bounded", FakeRunner({("sysctl",): ok(m1_pro)}))
    assert macos.cpu_model() == "Apple M1 Pro"
    monkeypatch.setattr(macos, "_sysctl_int_in_process", lambda name: None)
    monkeypatch.setattr(macos, "run_bounded",
                        FakeRunner({("sysctl",): ok("sysctl.proc_translated: 1\n")}))
    assert macos.is_rosetta() is True
    monkeypatch.setattr(macos, "run_bounded", FakeRunner({}))
    assert macos.is_rosetta() is None and macos.cpu_model() is None
    monkeypatch.setattr(macos, "_sysctl_int_in_process", lambda name: 0)
    assert macos.is_rosetta() is False


def test_in_process_sysctl_is_skipped_off_macos():
    assert macos._sysctl_int_in_process("sysctl.proc_translated") is None  # Linux CI


# --- never raise -----------------------------------------------------------------------------

_item = st.dictionaries(
    st.sampled_from(["_name", "sppci_model", "spdisplays_vendor", "spdisplays_vram", "sppci_cores",
                     "sppci_bus", "spdisplays_device-id", "sppci_device_type"]),
    st.none() | st.integers() | st.text(max_size=20) | st.lists(st.integers(), max_size=2),
    max_size=8)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300), st.lists(_item, max_size=3), st.none() | st.integers(0, 2**40))
@example("Chipset Model: Apple M1\nTotal Number of Cores: \u00b2\nhw.memsize: \u00b2",
         [{"sppci_model": "Apple M1", "sppci_cores": "\u00b2"}], None)  # digits int() refuses
def test_parsers_never_raise(text, items, memsize):
    parse_spdisplays_text(text, memsize)
    parse_spdisplays_json(text, memsize)
    for gpu in parse_spdisplays_json(json.dumps({"SPDisplaysDataType": items}), memsize):
        assert gpu.source == "system_profiler" and gpu.name
    facts = parse_sphardware(text)
    values = parse_sysctl(text)
    chassis_from_facts(facts.get("model_id"), facts.get("machine_name"), None,
                       is_vm_from_sysctl(values))
