"""The recorded machines in tests/machines: they load, round-trip, keep the facts they stand for,
and stay consistent with the real outputs, the GPU catalog and what the probes would produce."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
import tomli_w

from tests.realoutputs import FOLDER as REAL_OUTPUTS
from tests.realoutputs import section, sections
from tests.recorded import MACHINE_FILES, MACHINES
from wizard.diagnosis import nvidia_cause as explain
from wizard.knowledge.content import content_dir
from wizard.machine.identify import name_gpus
from wizard.probe import pci, windows
from wizard.probe.facts import Gpu, Machine, machine_from_dict, to_dict
from wizard.probe.gather import merge_gpus

REQUIRED = (
    "vm-no-gpu", "laptop-4060", "desktop-1080ti", "apple-m2", "h200-server", "wsl2",
    "container-no-gpu", "nouveau",
)


def _load(path: Path) -> tuple[dict, Machine]:
    with path.open("rb") as fh:
        raw = tomllib.load(fh)["machine"]
    return raw, machine_from_dict(raw)


def _header(path: Path) -> list[str]:
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        lines.append(line)
    return lines


def _ids(paths):
    return [p.stem for p in paths]


def test_the_required_machines_are_all_there():
    assert set(REQUIRED) <= {p.stem for p in MACHINE_FILES}


def test_the_readme_lists_every_file_and_nothing_else():
    readme = (MACHINES / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([\w.-]+\.toml)` \|", readme, flags=re.MULTILINE))
    assert listed == {p.name for p in MACHINE_FILES}


# --- loading and round trips ------------------------------------------------------------------

@pytest.mark.parametrize("path", MACHINE_FILES, ids=_ids(MACHINE_FILES))
def test_loads_and_round_trips_unchanged(path):
    raw, machine = _load(path)
    again = machine_from_dict(to_dict(machine))
    assert again == machine
    # machine_from_dict ignores keys it does not know, so a misspelt key would vanish silently:
    # every key written in the file must come back out of to_dict with its value.
    _assert_subset(raw, to_dict(machine), "machine")


def _assert_subset(raw, out, path):
    if isinstance(raw, dict):
        assert isinstance(out, dict), path
        for key, value in raw.items():
            assert key in out, f"{path}.{key} was dropped: not a field of the model"
            _assert_subset(value, out[key], f"{path}.{key}")
    elif isinstance(raw, list):
        assert isinstance(out, list) and len(raw) == len(out), path
        for i, (a, b) in enumerate(zip(raw, out)):
            _assert_subset(a, b, f"{path}[{i}]")
    else:
        same_type = type(raw) is type(out) or (type(raw) is int and type(out) is float)
        assert raw == out and same_type, path


@pytest.mark.parametrize("path", MACHINE_FILES, ids=_ids(MACHINE_FILES))
def test_survives_the_report_writer(path):
    _, machine = _load(path)
    text = tomli_w.dumps({"machine": to_dict(machine)})
    assert machine_from_dict(tomllib.loads(text)["machine"]) == machine


@pytest.mark.parametrize("path", MACHINE_FILES, ids=_ids(MACHINE_FILES))
def test_is_redacted_like_a_shared_report(path):
    _, machine = _load(path)
    assert machine.hostname is None
    for gpu in machine.gpus:
        assert gpu.uuid is None or re.fullmatch(r"GPU-00000000-0000-0000-0000-0000000000\d\d", gpu.uuid)
    if machine.torch and machine.torch.interpreter:
        assert not re.search(r"[/\\]", machine.torch.interpreter)
    text = json.dumps(to_dict(machine))
    assert not re.search(r"/home/|/Users/|C:\\\\Users|/root/", text)


# --- the facts each file stands for ----------------------------------------------------------

def _nvidia(m: Machine, i: int = 0) -> Gpu:
    return m.nvidia_gpus()[i]


DEFINING = {
    "vm-no-gpu": {
        "os": "Linux", "chassis": "vm", "cpu_cores": 2, "cpu_threads": 2, "ram_gb": 23.5,
        "nvidia.status": "no-library", "gpu_count": 0, "torch.status": "not-installed",
        "evidence mentions hypervisor": lambda m: any("hypervisor" in e for e in m.chassis_evidence),
    },
    "laptop-4060": {
        "os": "Windows", "chassis": "laptop", "nvidia.status": "ok", "nvidia_gpu_count": 1,
        "nv0.name": "NVIDIA GeForce RTX 4060 Laptop GPU", "nv0.compute_capability": "8.9",
        "nv0.vram_gb": 8.0, "nv0.laptop": True, "nv0.source": "nvml",
        "torch.build": "cpu", "torch.cuda_available": False,
        "has an Intel iGPU": lambda m: any(g.vendor == "intel" for g in m.gpus),
    },
    "desktop-1080ti": {
        "os": "Linux", "chassis": "desktop", "nvidia.status": "ok", "nvidia_gpu_count": 1,
        "nv0.compute_capability": "6.1", "nv0.pci_id": "10de:1b06",
        "torch.version": "2.8.0+cu128", "torch.cuda_available": True,
        "torch has no sm_6x kernels": lambda m: m.torch.arch_list and not any(
            a.startswith("sm_6") for a in m.torch.arch_list),
    },
    "apple-m2": {
        "os": "Darwin", "arch": "arm64", "nvidia.status": "no-library", "nvidia_gpu_count": 0,
        "gpu0.vendor": "apple", "gpu0.source": "system_profiler", "gpu0.unified_memory": True,
        "torch.mps_available": True, "torch.cuda_available": False,
    },
    "h200-server": {
        "os": "Linux", "chassis": "server", "nvidia.status": "ok",
        "nv0.name": "NVIDIA H200", "nv0.compute_capability": "9.0", "nv0.pci_id": "10de:2335",
        "torch.cuda_version": "13.0", "torch.cuda_available": True,
        "driver is 580 or newer": lambda m: int(m.nvidia.driver_version.split(".")[0]) >= 580,
        "CUDA 13 driver": lambda m: m.nvidia.cuda_driver_version.startswith("13."),
        "about 141 GB": lambda m: 139 < _nvidia(m).vram_gb < 142,
    },
    "wsl2": {
        "os": "Linux", "chassis": "wsl", "nvidia.status": "ok", "nvidia_gpu_count": 1,
        "nv0.source": "nvml",
        "no PCI GPU": lambda m: not any(g.source == "pci" for g in m.gpus),
        "two-part Windows driver version": lambda m: m.nvidia.driver_version.count(".") == 1,
        "WSL kernel in the evidence": lambda m: any("WSL2" in e for e in m.chassis_evidence),
    },
    "container-no-gpu": {
        "chassis": "container", "nvidia.status": "no-library", "nvidia.reason": "container-no-gpu",
        "nvidia_gpu_count": 1, "nv0.source": "pci", "nv0.kernel_driver": "nvidia",
        "torch.cuda_available": False,
    },
    "nouveau": {
        "chassis": "desktop", "nvidia.reason": "nouveau", "nvidia_gpu_count": 1,
        "nv0.source": "pci", "nv0.kernel_driver": "nouveau", "nv0.pci_id": "10de:13c2",
        "NVML says no driver or no library": lambda m: m.nvidia.status in ("no-driver", "no-library"),
    },
    "amd-rx7900": {
        "nvidia.status": "no-library", "nvidia_gpu_count": 0, "gpu0.vendor": "amd",
        "gpu0.kernel_driver": "amdgpu", "gpu0.pci_id": "1002:744c",
    },
    "version-mismatch": {
        "nvidia.status": "version-mismatch", "nvidia.kernel_module": "open",
        "driver version from the loaded module": lambda m: m.nvidia.driver_version == "570.124.06",
        "nv0.source": "pci",
    },
    # From public bug threads (issue 10): each is one category of "PyTorch cannot use the GPU".
    "amd-rx6800-cpu-torch": {
        "os": "Linux", "gpu0.vendor": "amd", "gpu0.gfx_target": "gfx1030", "gpu0.kernel_driver": "amdgpu",
        "torch.build": "cpu", "nvidia_gpu_count": 0,
    },
    "amd-rx6700xt-rocm-gfx1031": {
        "gpu0.gfx_target": "gfx1031", "torch.build": "rocm", "torch.cuda_available": True,
        "arch list lacks gfx1031": lambda m: m.torch.arch_list and "gfx1031" not in m.torch.arch_list,
        "the GPU test failed": lambda m: m.torch.gpu_tests[0].status == "failed",
    },
    "amd-rx5700xt-rocm-gfx1010": {
        "gpu0.gfx_target": "gfx1010", "torch.build": "rocm",
        "arch list lacks gfx1010": lambda m: m.torch.arch_list and "gfx1010" not in m.torch.arch_list,
        "invalid device function": lambda m: "invalid device function" in m.torch.gpu_tests[0].error_line,
    },
    "intel-arc-a770-cpu-torch": {"gpu0.vendor": "intel", "gpu0.pci_id": "8086:56a0", "torch.build": "cpu"},
    "intel-arc-xpu-no-driver": {
        "os": "Linux", "gpu0.vendor": "intel", "torch.build": "xpu", "torch.xpu_available": False,
    },
    "nvidia-driver410-cu101": {
        "nvidia.status": "ok", "nvidia.driver_version": "410.48", "torch.cuda_version": "10.1",
        "torch.cuda_available": False,
        "torch says found version 10000": lambda m: any("found version 10000" in w for w in m.torch.torch_warnings),
    },
    "nvidia-r470-cu12": {
        "nvidia.status": "ok", "torch.cuda_available": False,
        "R470 driver": lambda m: m.nvidia.driver_version.startswith("470."),
        "CUDA 12 build": lambda m: m.torch.cuda_version.startswith("12."),
    },
    "nvidia-r565-cu130": {
        "nvidia.status": "ok", "torch.cuda_version": "13.0", "torch.cuda_available": False,
        "R565 driver": lambda m: m.nvidia.driver_version.startswith("565."),
    },
    "nvidia-cuda-unknown-error": {
        "nvidia.status": "ok", "torch.build": "cuda", "torch.cuda_available": False,
        "CUDA unknown error": lambda m: any("CUDA unknown error" in w for w in m.torch.torch_warnings),
    },
    "container-no-gpus-flag": {
        "chassis": "container", "nvidia.status": "no-library", "nv0.source": "pci",
        "no recorded reason (an older report)": lambda m: m.nvidia.reason is None,
    },
    "wsl-no-windows-driver": {
        "chassis": "wsl", "nvidia.status": "no-library", "nvidia.reason": "wsl-no-library",
        "nvidia_gpu_count": 0,
    },
    "mac-rosetta-python": {
        "os": "Darwin", "gpu0.vendor": "apple", "torch.python_arch": "x86_64", "torch.mps_available": False,
    },
    "mac-os13-torch212": {
        "os": "Darwin", "gpu0.vendor": "apple", "torch.status": "not-installed",
        "macOS 13": lambda m: "13." in m.os_version,
    },
    "rtx4090-cu128-healthy": {
        "nvidia.status": "ok", "torch.cuda_available": True,
        "a +cu128 build": lambda m: m.torch.version.endswith("+cu128"),
        "the GPU test passed": lambda m: [t.status for t in m.torch.gpu_tests] == ["ok"],
    },
    "pascal-cu128-linux": {
        "os": "Linux", "nv0.compute_capability": "6.1",
        "no sm_61 kernels": lambda m: "sm_61" not in m.torch.arch_list,
        "the GPU test failed": lambda m: m.torch.gpu_tests[0].status == "failed",
    },
    "pascal-cu128-windows": {
        "os": "Windows", "nv0.compute_capability": "6.1",
        "Windows' cu128 build has sm_61": lambda m: "sm_61" in m.torch.arch_list,
        "the GPU test passed": lambda m: [t.status for t in m.torch.gpu_tests] == ["ok"],
    },
    # The doctor, third edition (issue 26): one machine per category the private set missed.
    "win-gtx950-disabled": {
        "os": "Windows", "nvidia.status": "no-device", "nv0.source": "wmi", "nv0.pci_id": "10de:1402",
        "nv0.config_error": 22, "torch.build": "cuda", "torch.cuda_available": False,
    },
    "linux-rtx5090-rebar-off": {
        "os": "Linux", "nvidia.status": "no-device", "nv0.source": "pci", "nv0.kernel_driver": "nvidia",
        "nv0.pci_id": "10de:2b85", "torch.cuda_available": False,
    },
    "cuda-visible-devices-missing-gpu": {
        "nvidia.status": "ok", "nvidia_gpu_count": 1, "torch.cuda_available": False,
        "torch.visible_devices_env": ("CUDA_VISIBLE_DEVICES=2",),
    },
    "a100-mig-no-slice-selected": {
        "nvidia.status": "ok", "nvidia_gpu_count": 2, "nv0.mig_mode": True, "nv0.pci_id": "10de:20b2",
        "four MIG devices each": lambda m: [len(g.mig_devices) for g in m.gpus] == [4, 4],
        "no CUDA_VISIBLE_DEVICES": lambda m: not m.torch.visible_devices_env,
        "the GPU tests failed": lambda m: {t.status for t in m.torch.gpu_tests} == {"failed"},
    },
    "ld-library-path-cuda121": {
        "nvidia.status": "ok", "torch.status": "import-error", "torch.env_vars": ("LD_LIBRARY_PATH",),
        "torch.ld_library_path_cuda": True,
        "nvJitLink symbol": lambda m: "__nvJitLinkAddData_12_1" in m.torch.error_line,
    },
    "jetson-orin-pypi-torch": {
        "os": "Linux", "arch": "aarch64", "nvidia.status": "no-library", "nvidia.reason": "jetson",
        "nvidia.driver_version": "35.3.1", "gpu_count": 0, "torch.build": "cpu",
        "a tegra kernel": lambda m: m.os_version.endswith("-tegra)"),
    },
    "centos7-glibc217": {
        "os": "Linux", "torch.status": "import-error", "torch.glibc_version": "2.17",
        "GLIBC_2.27 not found": lambda m: "GLIBC_2.27' not found" in m.torch.error_line,
    },
    "wsl-amd-rocm-pytorch-index": {
        "chassis": "wsl", "nvidia.status": "no-library", "nvidia.reason": "wsl-amd", "gpu_count": 0,
        "torch.build": "rocm", "torch.cuda_available": False,
    },
    "secure-boot-mok-not-enrolled": {
        "chassis": "vm", "nvidia.status": "no-driver", "nvidia.reason": "driver-not-loaded",
        "nvidia.secure_boot": True, "nv0.source": "pci", "nv0.kernel_driver": "",
    },
    "amd-rx6800-python37": {
        "gpu0.vendor": "amd", "gpu0.gfx_target": "gfx1030", "torch.build": "cpu",
        "Python 3.7": lambda m: m.torch.python_version.startswith("3.7."),
    },
}


def _fact(m: Machine, key: str):
    if key == "gpu_count":
        return len(m.gpus)
    if key == "nvidia_gpu_count":
        return len(m.nvidia_gpus())
    head, _, attr = key.partition(".")
    if not attr:
        return getattr(m, key)
    target = {"nvidia": lambda: m.nvidia, "torch": lambda: m.torch, "nv0": lambda: _nvidia(m),
              "gpu0": lambda: m.gpus[0]}[head]()
    return getattr(target, attr)


CASES = [(stem, key, want) for stem, facts in DEFINING.items() for key, want in facts.items()]


def test_every_file_has_defining_facts():
    assert set(DEFINING) == {p.stem for p in MACHINE_FILES}


@pytest.mark.parametrize("stem,key,want", CASES, ids=[f"{s}:{k}" for s, k, _ in CASES])
def test_defining_fact(stem, key, want):
    _, machine = _load(MACHINES / f"{stem}.toml")
    if callable(want):
        assert want(machine), key
    else:
        assert _fact(machine, key) == want


@pytest.mark.parametrize("path", MACHINE_FILES, ids=_ids(MACHINE_FILES))
def test_recorded_reason_is_what_the_probes_would_conclude(path):
    _, m = _load(path)
    expected = None if m.nvidia.status == "ok" else explain.refine_reason(
        m.nvidia, os_name=m.os, chassis=m.chassis, gpus=m.gpus,
        module_loaded=m.nvidia.kernel_module is not None, **explain.context(m))
    # A report from before reasons were recorded has none; the snapshot alone must then give it.
    assert m.nvidia.reason in (expected, None)
    assert explain.reason_of(m) == (expected or "ok")


# --- provenance ------------------------------------------------------------------------------

SOURCE_LINE = re.compile(r"^#\s+source:\s+(\S+)\s+\|\s+(.+?)\s*$")
CATALOG_LINE = re.compile(r"^#\s+catalog:\s+(.+?)\s+->")


@pytest.mark.parametrize("path", MACHINE_FILES, ids=_ids(MACHINE_FILES))
def test_header_names_real_sources_and_marks_composites(path):
    header = _header(path)
    assert any(SOURCE_LINE.match(line) or line.startswith("#   recorded:") for line in header), \
        "the header names no real output"
    assert any(line.startswith("# COMPOSITE") for line in header), "composite values are not declared"


def _source_refs():
    for path in MACHINE_FILES:
        for line in _header(path):
            match = SOURCE_LINE.match(line)
            if match:
                yield path.stem, match.group(1), match.group(2)


SOURCE_REFS = list(_source_refs())


@pytest.mark.parametrize("stem,file_name,machine_text", SOURCE_REFS,
                         ids=[f"{s}:{f}:{t[:30]}" for s, f, t in SOURCE_REFS])
def test_source_line_points_at_a_real_section(stem, file_name, machine_text):
    assert (REAL_OUTPUTS / file_name).is_file(), f"{stem}: no real output {file_name}"
    assert any(machine_text in s.machine for s in sections(file_name)), \
        f"{stem}: no section of {file_name} has a MACHINE line containing {machine_text!r}"


def _catalog() -> list[dict]:
    with (content_dir() / "gpus.toml").open("rb") as fh:
        return tomllib.load(fh)["gpu"]


def test_catalog_lines_name_catalog_entries():
    names = {g["name"] for g in _catalog()}
    for path in MACHINE_FILES:
        for line in _header(path):
            match = CATALOG_LINE.match(line)
            if match:
                assert match.group(1) in names, f"{path.name}: {match.group(1)!r} is not in the catalog"


def _catalog_pci_ids() -> set[str]:
    ids = set()
    for entry in _catalog():
        vendor = str(entry.get("pci_vendor_id", "")).removeprefix("0x").lower()
        for dev in entry.get("pci_device_ids", []):
            ids.add(f"{vendor}:{str(dev).removeprefix('0x').lower()}")
    return ids


def _real_output_pci_ids() -> set[str]:
    """Ids written out in the real outputs: lspci's [10de:13c2], a MACHINE line's (8086:9BC4),
    Windows' PCI\\VEN_8086&DEV_9BC4 (wmic writes the & as &amp;)."""
    ids = set()
    for path in REAL_OUTPUTS.glob("*.txt"):
        text = path.read_text(encoding="utf-8")
        ids.update(f"{v}:{d}".lower() for v, d in re.findall(r"\b([0-9a-fA-F]{4}):([0-9a-fA-F]{4})\b", text))
        ids.update(f"{v}:{d}".lower()
                   for v, d in re.findall(r"VEN_([0-9A-Fa-f]{4})&(?:amp;)?DEV_([0-9A-Fa-f]{4})", text))
    return ids


def _vendor_table_pci_ids() -> set[str]:
    from wizard.pytorch.vendor_gpus import load_tables

    tables = load_tables()
    return set(tables.amd_by_pci) | set(tables.intel_by_pci)


def test_pci_ids_are_in_the_catalog_or_a_real_output():
    known = _catalog_pci_ids() | _real_output_pci_ids() | _vendor_table_pci_ids()
    for path in MACHINE_FILES:
        _, machine = _load(path)
        for gpu in machine.gpus:
            if gpu.pci_id:
                assert gpu.pci_id in known, f"{path.name}: {gpu.name} has unknown PCI id {gpu.pci_id}"


def test_nvidia_compute_capability_agrees_with_the_catalog():
    by_id = {}
    for entry in _catalog():
        vendor = str(entry.get("pci_vendor_id", "")).removeprefix("0x").lower()
        for dev in entry.get("pci_device_ids", []):
            by_id.setdefault(f"{vendor}:{str(dev).removeprefix('0x').lower()}", []).append(entry)
    for path in MACHINE_FILES:
        _, machine = _load(path)
        for gpu in machine.nvidia_gpus():
            entries = by_id.get(gpu.pci_id or "", [])
            if gpu.compute_capability and entries:
                assert gpu.compute_capability in {e.get("compute_capability") for e in entries}, path.name


def test_laptop_igpu_is_what_the_windows_probe_reads_from_the_real_dump():
    dump = section("windows-powershell-win32-videocontroller.txt", "ASUS laptop (SUBSYS ...1043)")
    body = dump.output.split("| fl *", 1)[1]  # drop the prompt line kept in the capture
    parsed = windows.parse_video_controllers(body)
    _, machine = _load(MACHINES / "laptop-4060.toml")
    assert parsed == tuple(g for g in machine.gpus if g.source == "wmi")


# --- what the Linux PCI probe would report for these machines --------------------------------

LSPCI_NAMED = re.compile(
    r"\[03[0-9a-f]{2}\]: (?:NVIDIA Corporation|Advanced Micro Devices, Inc\. \[AMD/ATI\]|Intel Corporation) "
    r"(.+?) \[([0-9a-f]{4}):([0-9a-f]{4})\]")


def _pci_ids_from_real_outputs() -> str:
    """A pci.ids file built only from device names that real lspci runs printed."""
    names: dict[str, dict[str, str]] = {}
    for path in REAL_OUTPUTS.glob("linux-*.txt"):
        for name, vendor, device in LSPCI_NAMED.findall(path.read_text(encoding="utf-8")):
            if name != "Device":  # lspci without pci.ids prints "Device [10de:13c2]"
                names.setdefault(vendor, {}).setdefault(device, name)
    lines = []
    for vendor, devices in sorted(names.items()):
        lines.append(f"{vendor}  Vendor {vendor}")
        lines += [f"\t{device}  {name}" for device, name in sorted(devices.items())]
    return "\n".join(lines) + "\n"


def _sysfs_bus_id(bus_id: str) -> str:
    # NVML prints an 8-digit PCI domain, sysfs a 4-digit one.
    return bus_id.lower()[-12:]


def _add_device(root: Path, bus_id: str, pci_id: str, pci_class: str, driver: str | None,
                vram_bytes: int | None = None) -> None:
    dev = root / "sys/bus/pci/devices" / _sysfs_bus_id(bus_id)
    dev.mkdir(parents=True)
    vendor, device = pci_id.split(":")
    (dev / "class").write_text(pci_class + "\n")
    (dev / "vendor").write_text(f"0x{vendor}\n")
    (dev / "device").write_text(f"0x{device}\n")
    if driver:
        target = root / "sys/bus/pci/drivers" / driver
        target.mkdir(parents=True, exist_ok=True)
        (dev / "driver").symlink_to(target)
    if vram_bytes is not None:
        (dev / "mem_info_vram_total").write_text(f"{vram_bytes}\n")


def _add_kfd_node(root: Path, node: int, bus_id: str, pci_id: str, gfx: str) -> None:
    """amdgpu's compute topology node for a GPU, as the kernel writes it (gfx1031 → 100301)."""
    major, minor, step = int(gfx[3:-2]), int(gfx[-2], 16), int(gfx[-1], 16)
    domain, bus, rest = _sysfs_bus_id(bus_id).split(":")
    slot, function = rest.split(".")
    location = int(bus, 16) << 8 | int(slot, 16) << 3 | int(function)
    folder = root / "sys/class/kfd/kfd/topology/nodes" / str(node)
    folder.mkdir(parents=True)
    (folder / "properties").write_text(
        f"cpu_cores_count 0\nsimd_count 80\ngfx_target_version {major * 10000 + minor * 100 + step}\n"
        f"vendor_id {int(pci_id[:4], 16)}\ndevice_id {int(pci_id[5:], 16)}\n"
        f"location_id {location}\ndomain {int(domain, 16)}\n")


IGNORED = re.compile(r"\(([0-9a-f]{4}:[0-9a-f]{4})\)")
LINUX_FILES = [p for p in MACHINE_FILES if _load(p)[1].os == "Linux"]


@pytest.mark.parametrize("path", LINUX_FILES, ids=_ids(LINUX_FILES))
def test_linux_gpus_are_what_the_pci_scan_and_merge_would_give(path, tmp_path):
    """Rebuild the machine's sysfs PCI tree from the fixture, scan it with the real probe, merge
    with the NVML GPUs as gather does, name them as wizard.machine.identify does: the result must be the
    fixture's GPU list."""
    _, m = _load(path)
    (tmp_path / "usr/share/hwdata").mkdir(parents=True)
    (tmp_path / "usr/share/hwdata/pci.ids").write_text(_pci_ids_from_real_outputs())
    (tmp_path / "sys/bus/pci/devices").mkdir(parents=True)
    nvml_gpus = tuple(g for g in m.gpus if g.source == "nvml")
    for node, gpu in enumerate(m.gpus, start=1):
        if gpu.source == "pci":
            vram = round(gpu.vram_gb * 1024**3) if gpu.vendor == "amd" and gpu.vram_gb else None
            _add_device(tmp_path, gpu.bus_id, gpu.pci_id, "0x030000", gpu.kernel_driver or None, vram)
        if gpu.gfx_target:
            _add_kfd_node(tmp_path, node, gpu.bus_id, gpu.pci_id, gpu.gfx_target)
        elif gpu.source == "nvml" and m.chassis != "wsl":  # WSL has no sysfs device for the GPU
            _add_device(tmp_path, gpu.bus_id, gpu.pci_id, "0x030200", "nvidia")
    pci_note = next((p for p in m.probes if p.name == "pci"), None)
    ignored = IGNORED.findall(pci_note.detail) if pci_note and pci_note.detail else []
    for i, pci_id in enumerate(ignored):
        _add_device(tmp_path, f"0000:{0xf0 + i:02x}:00.0", pci_id, "0x030000", None)

    scanned, skipped = pci.scan_linux(tmp_path)

    assert name_gpus(merge_gpus(nvml_gpus, scanned)) == m.gpus
    expected_detail = ("ignored: " + "; ".join(skipped)) if skipped else None
    assert (pci_note.detail if pci_note else None) == expected_detail
