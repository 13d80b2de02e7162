"""Display devices on the PCI bus, read from Linux sysfs: works with no driver installed.

This is how gpu-wizard sees an NVIDIA card that NVML cannot (no driver, nouveau bound, a
container started without GPU access), and AMD/Intel GPUs. Facts only: the name is the system's
pci.ids', else a plain "NVIDIA GPU (device 0x2b85)"; wizard.machine.identify names the card from our
catalog afterwards, where the catalog knows its PCI id.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

from wizard.probe.facts import Gpu

VENDORS = {"10de": "nvidia", "1002": "amd", "8086": "intel"}
VENDOR_NAMES = {"nvidia": "NVIDIA", "amd": "AMD", "intel": "Intel"}
# Display devices that are not compute GPUs: server BMCs and virtual adapters.
NOT_COMPUTE = {
    "1a03": "ASPEED BMC display",
    "102b": "Matrox BMC display",
    "15ad": "VMware virtual display",
    "1af4": "virtio virtual display",
    "80ee": "VirtualBox virtual display",
    "1414": "Microsoft virtual display (Hyper-V / WSL)",
    "1234": "QEMU virtual display",
    "1b36": "QEMU virtual display",
}
PCI_IDS_PATHS = (
    "usr/share/hwdata/pci.ids",
    "usr/share/misc/pci.ids",
    "usr/share/pci.ids",
    "usr/local/share/pci.ids",
    "usr/share/misc/pci.ids.gz",
)
_LAPTOP_NAME = re.compile(r"Laptop|Max-Q|Mobile|\b[A-Z]{2}\d{3}M\b|\b\d{3,4}M\b")


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None


def scan_linux(root: Path = Path("/")) -> tuple[tuple[Gpu, ...], tuple[str, ...]]:
    """GPUs from sysfs, and the display devices skipped as not compute GPUs."""
    base = root / "sys/bus/pci/devices"
    try:
        devices = sorted(base.iterdir())
    except FileNotFoundError:  # no PCI bus (some containers, WSL1): nothing to find
        return (), ()
    # Any other OSError (EACCES in a locked-down sandbox, EIO) propagates: "no GPU here" would
    # be a guess, and the caller records that the scan failed.
    gpus: list[Gpu] = []
    skipped: list[str] = []
    targets = kfd_targets(root)
    for dev in devices:
        pci_class = _read(dev / "class")
        if not pci_class or not pci_class.startswith("0x03"):
            continue
        vendor_id = (_read(dev / "vendor") or "").removeprefix("0x").lower()
        device_id = (_read(dev / "device") or "").removeprefix("0x").lower()
        pci_id = f"{vendor_id}:{device_id}"
        if vendor_id in NOT_COMPUTE:
            skipped.append(f"{NOT_COMPUTE[vendor_id]} ({pci_id})")
            continue
        driver_link = dev / "driver"
        try:
            driver = driver_link.resolve(strict=True).name if driver_link.is_symlink() else ""
        except OSError:
            driver = ""
        vendor = VENDORS.get(vendor_id, "other")
        name = pci_ids_name(vendor_id, device_id, root)
        if not name:
            label = VENDOR_NAMES.get(vendor, f"PCI vendor 0x{vendor_id}")
            name = f"{label} GPU (device 0x{device_id})"
        gpus.append(Gpu(
            vendor=vendor,
            name=name,
            source="pci",
            vram_gb=_amd_vram(dev) if vendor == "amd" else None,
            laptop=True if names_a_laptop_part(name) else None,
            pci_id=pci_id,
            kernel_driver=driver,
            bus_id=dev.name.lower(),
            gfx_target=targets.get(dev.name.lower()) if vendor == "amd" else None,
        ))
    return tuple(gpus), tuple(skipped)


def kfd_targets(root: Path = Path("/")) -> dict[str, str]:
    """PCI bus id → the ISA ROCm compiles for ("gfx1031"), from amdgpu's compute (KFD) topology.

    Present whenever amdgpu runs with compute support, even without ROCm installed: the exact
    target, where a table by PCI id can only guess (one id can be two chips' worth of boards).
    """
    found: dict[str, str] = {}
    try:
        nodes = sorted((root / "sys/class/kfd/kfd/topology/nodes").iterdir())
    except OSError:
        return found
    for node in nodes:
        props: dict[str, int] = {}
        for line in (_read(node / "properties") or "").splitlines():
            key, _, value = line.partition(" ")
            if value.strip().isdigit():
                props[key] = int(value)
        version = props.get("gfx_target_version", 0)
        if not version or props.get("vendor_id") != 0x1002:
            continue  # 0 is a CPU node
        location, domain = props.get("location_id", 0), props.get("domain", 0)
        bus_id = f"{domain:04x}:{location >> 8:02x}:{(location >> 3) & 0x1F:02x}.{location & 0x7:x}"
        found[bus_id] = f"gfx{version // 10000}{(version // 100) % 100:x}{version % 100:x}"
    return found


def names_a_laptop_part(name: str) -> bool:
    """A mobile part by its name. pci.ids names one id's every board ("Radeon RX 6700/6700 XT/
    6750 XT / 6800M/6850M XT"): only when each of them is a mobile part is the card one."""
    return all(_LAPTOP_NAME.search(part) for part in name.split("/"))


def _amd_vram(dev: Path) -> float | None:
    raw = _read(dev / "mem_info_vram_total")
    try:
        return round(int(raw) / 1024**3, 2) if raw else None
    except ValueError:
        return None


def pci_ids_name(vendor_id: str, device_id: str, root: Path = Path("/")) -> str | None:
    """The device's name from the system's pci.ids, e.g. "AD102 [GeForce RTX 4090]" → "GeForce RTX 4090"."""
    for rel in PCI_IDS_PATHS:
        path = root / rel
        if path.is_file():
            return _lookup(path, vendor_id.lower(), device_id.lower())
    return None


def _lookup(path: Path, vendor_id: str, device_id: str) -> str | None:
    opener = gzip.open if path.suffix == ".gz" else open
    vendor_name = None
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if not line.strip() or line.startswith("#"):
                    continue
                if not line.startswith("\t"):
                    if vendor_name is not None or line.startswith("C "):
                        return None  # left our vendor's block (or reached the class list)
                    if line[:4].lower() == vendor_id:
                        vendor_name = line[4:].strip()
                    continue
                if vendor_name is not None and not line.startswith("\t\t") and line[1:5].lower() == device_id:
                    return _marketing_name(line[5:].strip())
    except OSError:
        return None
    return None


def _marketing_name(raw: str) -> str:
    match = re.search(r"\[(.+)\]\s*$", raw)
    return match.group(1) if match else raw
