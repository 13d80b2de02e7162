"""PCI display devices from a temp sysfs tree: drivers, vendors, names, and what is skipped;
and the catalog's names for them (wizard.machine.identify), which the scan itself never reads."""

from wizard.machine.identify import name_gpus
from wizard.probe.pci import pci_ids_name, scan_linux

PCI = "sys/bus/pci/devices"


def device(bdf: str, cls: str, vendor: str, dev: str, extra: dict | None = None) -> dict:
    files = {f"{PCI}/{bdf}/class": f"{cls}\n", f"{PCI}/{bdf}/vendor": f"{vendor}\n",
             f"{PCI}/{bdf}/device": f"{dev}\n"}
    for name, text in (extra or {}).items():
        files[f"{PCI}/{bdf}/{name}"] = text
    return files


def test_nvidia_amd_intel_and_what_is_not_a_gpu(write_tree):
    files = {}
    files |= device("0000:01:00.0", "0x030000", "0x10de", "0x1b06")          # GTX 1080 Ti, nvidia bound
    files |= device("0000:01:00.1", "0x040300", "0x10de", "0x10ef")          # its HDMI audio: not display
    files |= device("0000:02:00.0", "0x030000", "0x10de", "0x13c2")          # GTX 970 on nouveau
    files |= device("0000:03:00.0", "0x030200", "0x10de", "0x28e0")          # 4060 Laptop, no driver
    files |= device("0000:04:00.0", "0x030000", "0x1002", "0x744c", {"mem_info_vram_total": str(24 * 2**30)})
    files |= device("0000:00:02.0", "0x030000", "0x8086", "0x9a49")          # Iris Xe
    files |= device("0000:05:00.0", "0x030000", "0x1a03", "0x2000")          # ASPEED BMC
    root = write_tree(files, symlinks={
        f"{PCI}/0000:01:00.0/driver": "sys/bus/pci/drivers/nvidia",
        f"{PCI}/0000:02:00.0/driver": "sys/bus/pci/drivers/nouveau",
        f"{PCI}/0000:04:00.0/driver": "sys/bus/pci/drivers/amdgpu",
        f"{PCI}/0000:00:02.0/driver": "sys/bus/pci/drivers/i915",
    })
    scanned, skipped = scan_linux(root)
    # The scan holds facts only: no pci.ids in this tree, so no name beyond the id.
    raw = {g.bus_id: g for g in scanned}["0000:01:00.0"]
    assert (raw.name, raw.compute_capability, raw.vram_gb) == ("NVIDIA GPU (device 0x1b06)", None, None)
    gpus = name_gpus(scanned)
    by_bus = {g.bus_id: g for g in gpus}
    assert set(by_bus) == {"0000:01:00.0", "0000:02:00.0", "0000:03:00.0", "0000:04:00.0", "0000:00:02.0"}
    ti = by_bus["0000:01:00.0"]
    assert (ti.vendor, ti.kernel_driver, ti.pci_id, ti.source) == ("nvidia", "nvidia", "10de:1b06", "pci")
    assert ti.name == "GeForce GTX 1080 Ti"          # from our catalog: no pci.ids needed
    assert ti.compute_capability == "6.1" and ti.vram_gb == 11
    assert by_bus["0000:02:00.0"].kernel_driver == "nouveau"
    laptop = by_bus["0000:03:00.0"]
    assert laptop.kernel_driver == "" and laptop.laptop is True
    amd = by_bus["0000:04:00.0"]
    assert (amd.vendor, amd.vram_gb, amd.kernel_driver) == ("amd", 24.0, "amdgpu")
    assert by_bus["0000:00:02.0"].vendor == "intel"
    assert skipped == ("ASPEED BMC display (1a03:2000)",)


PCI_IDS = """\
# sample in the pci.ids format
10de  NVIDIA Corporation
\t2b85  GB202 [GeForce RTX 5090]
\t\t10de 2b85  a subsystem line
\t28a0  AD107M [GeForce RTX 4060 Max-Q / Mobile]
1002  Advanced Micro Devices, Inc. [AMD/ATI]
\t7480  Navi 33 [Radeon RX 7600/7600 XT/7600M XT/7600S/7700S / PRO W7600]
C 03  Display controller
"""


def test_names_from_the_system_pci_ids_when_the_catalog_has_none(write_tree):
    root = write_tree({"usr/share/misc/pci.ids": PCI_IDS})
    assert pci_ids_name("10de", "2b85", root) == "GeForce RTX 5090"
    assert pci_ids_name("1002", "7480", root).startswith("Radeon RX 7600")
    assert pci_ids_name("10de", "ffff", root) is None


def test_unknown_device_without_pci_ids_gets_a_plain_name(write_tree):
    root = write_tree(device("0000:01:00.0", "0x030000", "0x10de", "0x2fff"))
    [gpu] = scan_linux(root)[0]
    assert gpu.name == "NVIDIA GPU (device 0x2fff)"
    assert gpu.kernel_driver == ""


def test_mobile_name_from_pci_ids_marks_a_laptop_part(write_tree):
    files = device("0000:01:00.0", "0x030200", "0x10de", "0x28a0") | {"usr/share/hwdata/pci.ids": PCI_IDS}
    [gpu] = scan_linux(write_tree(files))[0]
    assert gpu.laptop is True


def test_no_sysfs_means_no_gpus_not_an_error(tmp_path):
    assert scan_linux(tmp_path) == ((), ())


def test_one_id_for_desktop_and_mobile_boards_is_not_a_laptop_part(write_tree):
    # pci.ids names 1002:7480 "Radeon RX 7600/7600 XT/7600M XT/7600S/7700S / PRO W7600": the id
    # covers desktop cards too, so the name alone does not make this one a laptop.
    files = device("0000:03:00.0", "0x030000", "0x1002", "0x7480") | {"usr/share/hwdata/pci.ids": PCI_IDS}
    [gpu] = scan_linux(write_tree(files))[0]
    assert gpu.laptop is None



def test_an_id_the_catalog_gives_two_models_keeps_the_name_pci_ids_gives_it(write_tree):
    # 1002:744c is both the RX 7900 XT and XTX: naming it after either one would be a guess.
    ids = "1002  Advanced Micro Devices, Inc. [AMD/ATI]\n\t744c  Navi 31 [Radeon RX 7900 XT/7900 XTX]\n"
    files = device("0000:03:00.0", "0x030000", "0x1002", "0x744c") | {"usr/share/hwdata/pci.ids": ids}
    [gpu] = name_gpus(scan_linux(write_tree(files))[0])
    assert gpu.name == "Radeon RX 7900 XT/7900 XTX"


def test_naming_leaves_gpus_a_driver_named_alone():
    from wizard.probe.facts import Gpu

    nvml = Gpu(vendor="nvidia", name="NVIDIA GeForce GTX 1080 Ti", source="nvml", pci_id="10de:1b06")
    assert name_gpus((nvml,)) == (nvml,)

# --- the AMD GPU's ROCm target, from amdgpu's compute (KFD) topology ---------------------------

def _kfd_nodes(dump: str) -> dict[str, str]:
    """`cat nodes/*/properties` printed the nodes one after the other: one file per node again."""
    nodes: list[list[str]] = []
    for line in dump.splitlines():
        if line.startswith("$ "):
            continue
        if line.startswith("cpu_cores_count") or not nodes:
            nodes.append([])
        nodes[-1].append(line)
    return {f"sys/class/kfd/kfd/topology/nodes/{i}/properties": "\n".join(lines) + "\n"
            for i, lines in enumerate(nodes)}


def test_the_rocm_target_comes_from_a_real_kfd_topology(write_tree):
    from tests.realoutputs import section

    dump = section("linux-lspci-and-kfd-amd-rdna.txt", "Radeon RX 7900 XTX (KFD node").output
    files = _kfd_nodes(dump) | device("0000:03:00.0", "0x030000", "0x1002", "0x744c")
    [gpu] = scan_linux(write_tree(files))[0]
    assert (gpu.bus_id, gpu.gfx_target) == ("0000:03:00.0", "gfx1100")


def test_an_old_kfd_node_without_a_target_is_ignored(write_tree):
    from tests.realoutputs import section
    from wizard.probe.pci import kfd_targets

    dump = section("linux-lspci-and-kfd-amd-rdna.txt", "Bristol Ridge APU").output
    assert kfd_targets(write_tree(_kfd_nodes(dump))) == {}


def test_kfd_target_numbers_become_gfx_names(write_tree):
    from wizard.probe.pci import kfd_targets

    files = {}
    for node, (version, location) in enumerate([(100301, 0x0300), (90010, 0x2100), (110501, 0xC100)], 1):
        files[f"sys/class/kfd/kfd/topology/nodes/{node}/properties"] = (
            f"gfx_target_version {version}\nvendor_id 4098\nlocation_id {location}\ndomain 0\n")
    assert kfd_targets(write_tree(files)) == {"0000:03:00.0": "gfx1031", "0000:21:00.0": "gfx90a",
                                              "0000:c1:00.0": "gfx1151"}
