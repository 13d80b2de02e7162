"""Windows probes: parsers fed the real recorded WMI outputs, probes run against a faked runner."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.realoutputs import section, sections
from wizard.probe import windows
from wizard.probe.chassis import CHASSIS_TYPES
from wizard.probe.facts import to_dict
from wizard.probe.runner import RunResult
from wizard.probe.windows import (
    is_virtual_machine,
    parse_chassis_json,
    parse_chassis_types,
    parse_registry_vram,
    parse_video_controllers,
    read_display_adapters,
    skip_reason,
)

WMIC = "windows-wmic-win32-videocontroller.txt"
PS = "windows-powershell-win32-videocontroller.txt"
CHASSIS = "chassis-types-dmidecode-and-win32-systemenclosure.txt"
GIB = 1024**3


def wmic_records(machine: str) -> list[dict[str, str]]:
    """The adapters of a real wmic section as plain dicts (split on blank lines, first '=')."""
    text = section(WMIC, machine).output.replace("&amp;", "&")
    blocks = [b for b in re.split(r"\n\s*\n", text) if "=" in b]
    return [dict(line.split("=", 1) for line in b.strip().splitlines()) for b in blocks]


def as_powershell_json(record: dict[str, str]) -> dict:
    """The fields GPU_SCRIPT selects, typed as ConvertTo-Json writes them (numbers stay numbers)."""
    def number(key):
        return int(record[key]) if record.get(key) else None
    return {
        "Name": record["Name"], "PNPDeviceID": record["PNPDeviceID"],
        "AdapterCompatibility": record["AdapterCompatibility"], "AdapterRAM": number("AdapterRAM"),
        "ConfigManagerErrorCode": number("ConfigManagerErrorCode"),
        "InfFilename": record["InfFilename"],
    }


# --- Win32_VideoController text --------------------------------------------------------------

def test_french_rtx_2060_super_with_escaped_ampersands_and_capped_adapter_ram():
    (gpu,) = parse_video_controllers(section(WMIC, "RTX 2060 SUPER").output)
    assert (gpu.vendor, gpu.name, gpu.source) == ("nvidia", "NVIDIA GeForce RTX 2060 SUPER", "wmi")
    assert gpu.pci_id == "10de:1f06"  # only found once "&amp;" is undone
    assert gpu.vram_gb is None  # AdapterRAM=4293918720 on an 8 GB card: "at least 4 GB"
    assert gpu.kernel_driver is None and gpu.laptop is None


def test_rdp_adapter_is_skipped_and_the_two_real_gpus_are_kept():
    text = section(WMIC, "GTX 950").output
    intel, nvidia = parse_video_controllers(text)
    assert (intel.vendor, intel.name, intel.pci_id, intel.vram_gb) == (
        "intel", "Intel(R) HD Graphics 4600", "8086:0412", 1.0)
    assert (nvidia.vendor, nvidia.name, nvidia.pci_id, nvidia.vram_gb) == (
        "nvidia", "NVIDIA GeForce GTX 950", "10de:1402", 2.0)
    rdp = next(r for r in windows._records(text) if r["name"].startswith("Microsoft Remote"))
    assert rdp["pnpdeviceid"].startswith("SWD\\REMOTEDISPLAYENUM\\RDPIDD_INDIRECTDISPLAY&SESSIONID")
    assert skip_reason(rdp) == "display-only adapter"


def test_amd_rx_6600_xt():
    (gpu,) = parse_video_controllers(section(WMIC, "RX 6600 XT").output)
    assert (gpu.vendor, gpu.name, gpu.pci_id, gpu.vram_gb) == (
        "amd", "AMD Radeon RX 6600 XT", "1002:73ff", None)


def test_powershell_format_list_of_a_laptop_igpu():
    (gpu,) = parse_video_controllers(section(PS, "ASUS laptop").output)
    assert (gpu.vendor, gpu.name, gpu.pci_id) == ("intel", "Intel(R) UHD Graphics", "8086:9bc4")
    assert gpu.vram_gb is None  # the excerpt has no AdapterRAM line


def test_get_wmiobject_gtx_1660_without_pnp_id_uses_adapter_compatibility():
    (gpu,) = parse_video_controllers(section(PS, "GTX 1660").output)
    assert (gpu.vendor, gpu.name, gpu.pci_id, gpu.vram_gb) == (
        "nvidia", "NVIDIA GeForce GTX 1660", None, None)


def test_displaylink_is_not_a_gpu():
    text = section(PS, "same PC: DisplayLink").output
    assert parse_video_controllers(text) == ()
    assert skip_reason(windows._records(text)[0]) == "display-only adapter"


@pytest.mark.parametrize("machine", ["VideoController2 is an AMD", "no NVIDIA driver installed"])
def test_table_and_prose_sections_give_no_gpus(machine):
    assert parse_video_controllers(section(PS, machine).output) == ()


def test_every_recorded_controller_section_parses_to_valid_gpus():
    for s in sections(WMIC) + sections(PS):
        for gpu in parse_video_controllers(s.output):
            assert gpu.source == "wmi" and gpu.name and "&amp;" not in (gpu.pci_id or "")
            assert gpu.vendor in ("nvidia", "amd", "intel")
            assert to_dict(gpu)["name"] == gpu.name


# --- JSON (no real ConvertTo-Json capture exists: built from the fields of real wmic sections) --

def test_json_list_gives_the_same_gpus_as_the_wmic_text():
    records = [as_powershell_json(r) for r in wmic_records("GTX 950")]
    from_json = parse_video_controllers(json.dumps(records))
    assert from_json == parse_video_controllers(section(WMIC, "GTX 950").output)
    assert len(from_json) == 2


def test_json_single_object_from_powershell_5_1():
    (record,) = wmic_records("RTX 2060 SUPER")
    (gpu,) = parse_video_controllers("\ufeff" + json.dumps(as_powershell_json(record)))
    assert (gpu.name, gpu.pci_id, gpu.vram_gb) == ("NVIDIA GeForce RTX 2060 SUPER", "10de:1f06", None)


def test_basic_display_adapter_on_an_nvidia_card_means_no_driver():
    # Gap 3 in INDEX.md: no readable raw dump exists, so the RTX 2060 SUPER's PCI id is given the
    # fallback driver's name and inf file, as fastfetch#2339 describes.
    (record,) = wmic_records("RTX 2060 SUPER")
    record = {**as_powershell_json(record), "Name": "Microsoft Basic Display Adapter",
              "AdapterCompatibility": "(Standard display types)", "InfFilename": "display.inf",
              "AdapterRAM": 0}
    (gpu,) = parse_video_controllers(json.dumps([record]))
    assert (gpu.vendor, gpu.pci_id, gpu.kernel_driver) == ("nvidia", "10de:1f06", "")
    assert gpu.name == "NVIDIA GPU (device 0x1f06)"
    localised = {**record, "Name": "Carte graphique de base Microsoft"}  # the inf file still says so
    assert parse_video_controllers(json.dumps([localised]))[0].kernel_driver == ""


def test_virtual_display_adapters_are_skipped_like_on_linux():
    # Constructed: a VMware guest's adapter (PCI vendor 15ad) in the RTX 2060 SUPER's record.
    (record,) = wmic_records("RTX 2060 SUPER")
    record = {**as_powershell_json(record), "Name": "VMware SVGA 3D",
              "PNPDeviceID": "PCI\\VEN_15AD&DEV_0405&SUBSYS_040515AD&REV_00\\3&61AAA01&0&78"}
    assert parse_video_controllers(json.dumps(record)) == ()
    assert skip_reason({k.lower(): v for k, v in record.items()}) == "VMware virtual display"


def test_garbage_gives_nothing():
    for text in ("", "null", "[1, 2]", "{not json", "Get-CimInstance : Invalid class"):
        assert parse_video_controllers(text) == ()


# --- registry VRAM and CPU name through a fake winreg ----------------------------------------

class FakeKey:
    def __init__(self, path: str, tree: dict):
        self.path, self.tree = path, tree

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class FakeWinreg:
    """The slice of `winreg` the module uses, with its error behaviour (OSError subclasses)."""

    HKEY_LOCAL_MACHINE = "HKLM"

    def __init__(self, tree: dict[str, dict]):
        self.tree = tree  # full key path → {value name: value}; None = access denied

    def OpenKey(self, parent, sub):
        path = sub if parent == "HKLM" else f"{parent.path}\\{sub}"
        if path not in self.tree:
            raise FileNotFoundError(2, "The system cannot find the file specified")
        if self.tree[path] is None:
            raise PermissionError(5, "Access is denied")
        return FakeKey(path, self.tree)

    def EnumKey(self, key, index):
        children = [p[len(key.path) + 1:] for p in self.tree if p.startswith(key.path + "\\")]
        if index >= len(children):
            raise OSError(259, "No more data is available")
        return children[index]

    def QueryValueEx(self, key, name):
        values = self.tree[key.path]
        if name not in values:
            raise FileNotFoundError(2, "The system cannot find the file specified")
        return values[name], 0


def fake_registry() -> FakeWinreg:
    root = windows.DISPLAY_CLASS
    return FakeWinreg({
        root: {},
        root + "\\0000": {"DriverDesc": "NVIDIA GeForce RTX 2060 SUPER",
                          "MatchingDeviceId": "pci\\ven_10de&dev_1f06&subsys_1339196e",
                          "HardwareInformation.qwMemorySize": 8 * GIB},  # REG_QWORD
        root + "\\0001": {"MatchingDeviceId": "PCI\\VEN_1002&DEV_73FF",
                          "HardwareInformation.qwMemorySize": (8 * GIB).to_bytes(8, "little")},
        root + "\\0002": {"MatchingDeviceId": "pci\\ven_8086&dev_0412",
                          "HardwareInformation.MemorySize": (128 * 1024**2).to_bytes(4, "little")},
        root + "\\0003": {"MatchingDeviceId": "pci\\ven_10de&dev_1b80",  # a removed card
                          "HardwareInformation.MemorySize": b"\x00\x00\xf0\xff"},  # saturated
        root + "\\0004": {"MatchingDeviceId": "pci\\cc_0300"},  # the basic display driver
        root + "\\Properties": None,
        windows.CPU_KEY: {"ProcessorNameString": "Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz   "},
    })


def test_registry_vram_reads_qword_binary_and_small_dword_sizes():
    vram = parse_registry_vram(read_display_adapters(fake_registry()))
    assert vram == {"10de:1f06": 8 * GIB, "1002:73ff": 8 * GIB, "8086:0412": 128 * 1024**2}


def test_registry_vram_only_fills_present_adapters():
    gpus = parse_video_controllers(section(WMIC, "RTX 2060 SUPER").output)
    enriched = windows.with_registry_vram(gpus, {"10de:1f06": 8 * GIB, "10de:1b80": 11 * GIB})
    assert [(g.pci_id, g.vram_gb) for g in enriched] == [("10de:1f06", 8.0)]


def test_cpu_model_from_registry(monkeypatch):
    monkeypatch.setattr(windows, "_winreg", fake_registry)
    assert windows.cpu_model() == "Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz"
    monkeypatch.setattr(windows, "_winreg", lambda: FakeWinreg({}))
    assert windows.cpu_model() is None


def test_off_windows_the_registry_is_simply_absent():
    assert windows._winreg() is None  # these tests run on Linux CI
    assert windows.cpu_model() is None and windows.registry_vram() == {}


# --- chassis ---------------------------------------------------------------------------------

def _dmidecode_code(machine: str) -> int:
    kind = re.search(r"^\s*Type: (.+)$", section(CHASSIS, machine).output, re.M).group(1)
    return next(code for code, name in CHASSIS_TYPES.items() if name == kind)


@pytest.mark.parametrize("machine, code, kind", [
    ("ThinkPad", 10, "laptop"), ("Surface Go 2", 9, "laptop"), ("Hyper-V", 3, "desktop"),
    ("VMware", 1, "unknown"), ("R640", 23, "server"),
])
def test_dmidecode_chassis_types(machine, code, kind):
    assert _dmidecode_code(machine) == code
    assert parse_chassis_types([code])[0] == kind


def test_hyper_v_guest_is_a_vm_although_it_says_desktop():
    text = section(CHASSIS, "Hyper-V").output
    maker = re.search(r"Manufacturer: (.+)", text).group(1)
    model = re.search(r"SKU Number: (.+)", text).group(1)  # SMBIOS names the model the same
    assert is_virtual_machine(model, maker)
    kind, evidence = parse_chassis_types([3], vm=True)
    assert kind == "vm" and evidence == ("SMBIOS chassis type 3 (Desktop)",)


def test_reported_win32_systemenclosure_values():
    zbook = int(re.search(r"\{(\d+)\}", section(CHASSIS, "HP ZBook").output).group(1))
    assert parse_chassis_types([zbook]) == ("laptop", ("SMBIOS chassis type 10 (Notebook)",))
    for code in map(int, re.findall(r"(\d+) \(", section(CHASSIS, "Convertible").output)):
        assert code in (31, 32) and parse_chassis_types([code])[0] == "laptop"


def test_type_1_with_a_passed_through_laptop_gpu_stays_unknown():
    s = section(CHASSIS, "passed-through")
    code = int(re.search(r"ChassisTypes = \{(\d+)\}", s.machine).group(1))
    assert parse_chassis_types([code]) == ("unknown", ("SMBIOS chassis type 1 (Other)",))
    assert windows.is_laptop_name(re.search(r"gpuName:\s+(.+)", s.output).group(1)) is True


def test_docked_laptop_and_odd_values():
    assert parse_chassis_types([12, 10])[0] == "laptop"
    assert parse_chassis_types([]) == ("unknown", ())
    assert parse_chassis_types([99]) == ("unknown", ("SMBIOS chassis type 99 (?)",))


@pytest.mark.parametrize("model, maker, vm", [
    ("Virtual Machine", "Microsoft Corporation", True), ("VMware7,1", "VMware, Inc.", True),
    ("VirtualBox", "innotek GmbH", True), ("Standard PC (Q35 + ICH9, 2009)", "QEMU", True),
    ("Surface Pro 7", "Microsoft Corporation", False), ("HP ZBook 15 G5", "HP", False),
])
def test_virtual_machine_from_model(model, maker, vm):
    assert is_virtual_machine(model, maker) is vm


def test_chassis_json_shapes():
    # No real capture of the chassis script exists (INDEX.md gap 4); these are its three shapes.
    base = {"Model": "HP ZBook 15 G5", "Manufacturer": "HP"}
    assert parse_chassis_json(json.dumps({**base, "ChassisTypes": [10]}))["types"] == [10]
    assert parse_chassis_json(json.dumps({**base, "ChassisTypes": 10}))["types"] == [10]
    wrapped = {**base, "ChassisTypes": {"value": [31], "Count": 1}}
    assert parse_chassis_json(json.dumps(wrapped))["types"] == [31]
    assert parse_chassis_json("garbage") is None and parse_chassis_json("[10]") is None


# --- probes with a faked runner --------------------------------------------------------------

class FakeRunner:
    def __init__(self, result: RunResult):
        self.result, self.calls = result, []

    def __call__(self, argv, timeout, **kwargs):
        self.calls.append((argv, timeout))
        return self.result


def ok(stdout: str) -> RunResult:
    return RunResult("ok", 0, stdout, "", 0.8)


FAILURES = [
    (RunResult("timeout", seconds=8.0, detail="no answer within 8 s"), "timeout"),
    (RunResult("not-found", detail="powershell was not found"), "unavailable"),
    (RunResult("crashed", -11, "", "", 0.1, "killed by SIGSEGV"), "error"),
    (RunResult("ok", 1, "", "Get-CimInstance : Access denied\nmore", 0.5), "error"),
    (ok("Get-CimInstance : Invalid class \"Win32_VideoController\""), "error"),
    (ok(""), "error"),
]


@pytest.mark.parametrize("result, status", FAILURES)
def test_probe_gpus_failures_give_nothing_and_say_why(monkeypatch, result, status):
    monkeypatch.setattr(windows, "run_bounded", FakeRunner(result))
    gpus, note = windows.probe_gpus(timeout=8.0)
    assert gpus == () and note.status == status and note.name == "windows-gpus"
    assert note.detail and "\n" not in note.detail


def test_probe_gpus_runs_powershell_as_a_list_and_adds_registry_vram(monkeypatch):
    (record,) = wmic_records("RTX 2060 SUPER")
    runner = FakeRunner(ok(json.dumps(as_powershell_json(record))))
    monkeypatch.setattr(windows, "run_bounded", runner)
    monkeypatch.setattr(windows, "_winreg", fake_registry)
    (gpu,), note = windows.probe_gpus(timeout=5.0)
    assert (gpu.name, gpu.vram_gb) == ("NVIDIA GeForce RTX 2060 SUPER", 8.0)
    assert note.status == "ok" and note.detail is None
    ((argv, timeout),) = runner.calls
    assert timeout == 5.0 and argv[1:4] == ["-NoProfile", "-NonInteractive", "-Command"]
    assert "Win32_VideoController" in argv[4]
    # No double quotes: Windows would have to escape them inside the one -Command argument.
    assert '"' not in windows.GPU_SCRIPT and '"' not in windows.CHASSIS_SCRIPT


def test_probe_gpus_names_the_adapters_it_ignored(monkeypatch):
    records = [as_powershell_json(r) for r in wmic_records("GTX 950")]
    monkeypatch.setattr(windows, "run_bounded", FakeRunner(ok(json.dumps(records))))
    monkeypatch.setattr(windows, "_winreg", lambda: None)
    gpus, note = windows.probe_gpus()
    assert len(gpus) == 2
    assert note.detail == "ignored: Microsoft Remote Display Adapter (display-only adapter)"


def test_probe_gpus_with_no_adapters(monkeypatch):
    monkeypatch.setattr(windows, "run_bounded", FakeRunner(ok("[]")))
    gpus, note = windows.probe_gpus()
    assert gpus == () and note.status == "ok" and "no display adapters" in note.detail


def _chassis_json(types, model="HP ZBook 15 G5", maker="HP") -> str:
    return json.dumps({"ChassisTypes": types, "Model": model, "Manufacturer": maker})


@pytest.mark.parametrize("stdout, battery, kind", [
    (_chassis_json([10]), True, "laptop"),
    (_chassis_json([3]), True, "desktop"),  # a UPS also reports a battery
    (_chassis_json([3], "Virtual Machine", "Microsoft Corporation"), True, "vm"),
    (_chassis_json([1]), True, "laptop"),  # unknown chassis: the battery decides
    (_chassis_json([1]), False, "unknown"),
])
def test_probe_chassis(monkeypatch, stdout, battery, kind):
    monkeypatch.setattr(windows, "run_bounded", FakeRunner(ok(stdout)))
    monkeypatch.setattr(windows, "_has_battery", lambda: battery)
    got, evidence, note = windows.probe_chassis(timeout=3.0)
    assert got == kind and note.status == "ok" and evidence


@pytest.mark.parametrize("result, status", FAILURES)
def test_probe_chassis_failures_fall_back_to_the_battery(monkeypatch, result, status):
    monkeypatch.setattr(windows, "run_bounded", FakeRunner(result))
    monkeypatch.setattr(windows, "_has_battery", lambda: None)
    kind, evidence, note = windows.probe_chassis()
    assert (kind, evidence, note.status) == ("unknown", (), status)
    monkeypatch.setattr(windows, "_has_battery", lambda: True)
    assert windows.probe_chassis()[:2] == ("laptop", ("a battery is present",))


# --- never raise -----------------------------------------------------------------------------

_json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=30),
                            lambda inner: st.lists(inner, max_size=4)
                            | st.dictionaries(st.sampled_from(
                                ["Name", "PNPDeviceID", "AdapterRAM", "ChassisTypes", "Model",
                                 "InfFilename", "ConfigManagerErrorCode"]), inner, max_size=5),
                            max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300) | _json_values.map(json.dumps))
@example("Name=GPU\nAdapterRAM=\u00b2")  # a digit int() refuses
def test_parsers_never_raise(text):
    for gpu in parse_video_controllers(text):
        assert gpu.source == "wmi" and gpu.name
    facts = parse_chassis_json(text)
    if facts is not None:
        assert parse_chassis_types(facts["types"])[0] in ("laptop", "desktop", "server", "unknown")


# --- Device Manager problem codes (issue 26) ---------------------------------------------------

GTX950 = "Intel HD Graphics 4600 iGPU + NVIDIA GeForce GTX 950"


def _gtx950_disabled() -> str:
    """The real dump as Windows writes it once the GTX 950 is disabled in Device Manager (code 22)."""
    records = section(WMIC, GTX950).output.split("\n\n")
    nvidia = next(i for i, r in enumerate(records) if "VEN_10DE" in r)
    assert "ConfigManagerErrorCode=0" in records[nvidia]
    records[nvidia] = records[nvidia].replace("ConfigManagerErrorCode=0", "ConfigManagerErrorCode=22")
    return "\n\n".join(records)


def test_a_disabled_card_keeps_its_name_and_carries_its_problem_code():
    gpus = parse_video_controllers(_gtx950_disabled())
    gtx = next(g for g in gpus if g.vendor == "nvidia")
    assert (gtx.name, gtx.pci_id, gtx.config_error, gtx.kernel_driver) == (
        "NVIDIA GeForce GTX 950", "10de:1402", 22, None)
    assert all(g.config_error is None for g in gpus if g.vendor != "nvidia")


def test_a_card_without_a_problem_has_no_code():
    assert all(g.config_error is None for g in parse_video_controllers(section(WMIC, GTX950).output))


def test_the_recorded_disabled_card_is_what_the_probe_reads():
    import tomllib

    from tests.recorded import machine_path
    from wizard.probe.facts import machine_from_dict

    with machine_path("win-gtx950-disabled").open("rb") as fh:
        machine = machine_from_dict(tomllib.load(fh)["machine"])
    assert parse_video_controllers(_gtx950_disabled()) == machine.gpus
