"""Laptop, desktop, server, VM, container or WSL — with the evidence, on Linux.

The order follows systemd-hostnamed: WSL and containers first (DMI inside them describes the
host), then virtual machines, then the DMI chassis type, then a system battery, then the ACPI
power profile. Every read is a small sysfs/procfs file under `root`, so tests build temp trees.
Windows and macOS live in windows.py and macos.py.
"""

from __future__ import annotations

from pathlib import Path

# SMBIOS chassis types (DSP0134 §7.4.1), as the kernel exposes them (lock bit stripped).
CHASSIS_TYPES = {
    1: "Other", 2: "Unknown", 3: "Desktop", 4: "Low Profile Desktop", 5: "Pizza Box",
    6: "Mini Tower", 7: "Tower", 8: "Portable", 9: "Laptop", 10: "Notebook", 11: "Hand Held",
    12: "Docking Station", 13: "All in One", 14: "Sub Notebook", 15: "Space-saving",
    16: "Lunch Box", 17: "Main Server Chassis", 18: "Expansion Chassis", 19: "SubChassis",
    20: "Bus Expansion Chassis", 21: "Peripheral Chassis", 22: "RAID Chassis",
    23: "Rack Mount Chassis", 24: "Sealed-case PC", 25: "Multi-system chassis",
    26: "Compact PCI", 27: "Advanced TCA", 28: "Blade", 29: "Blade Enclosure", 30: "Tablet",
    31: "Convertible", 32: "Detachable", 33: "IoT Gateway", 34: "Embedded PC", 35: "Mini PC",
    36: "Stick PC",
}
DMI_KIND = {
    **dict.fromkeys((3, 4, 5, 6, 7, 13, 15, 16, 24, 34, 35, 36), "desktop"),
    **dict.fromkeys((8, 9, 10, 14, 30, 31, 32), "laptop"),
    **dict.fromkeys((17, 23, 25, 28, 29), "server"),
}
ACPI_PM_PROFILE = {1: "desktop", 2: "laptop", 3: "desktop", 4: "server", 5: "server",
                   6: "desktop", 7: "server", 8: "laptop"}
VM_VENDORS = ("qemu", "kvm", "vmware", "virtualbox", "innotek", "xen", "bochs", "parallels",
              "amazon ec2", "google compute engine", "openstack", "microsoft corporation virtual",
              "hyper-v", "firecracker", "cloud hypervisor")
CONTAINER_CGROUP_WORDS = ("docker", "kubepods", "containerd", "libpod", "lxc", "/crio-")


def _quoted(value: str) -> str:
    """A value read from the system, quoted for an evidence line: printable and short."""
    shown = "".join(ch if ch.isprintable() else "?" for ch in value)
    return repr(shown if len(shown) <= 60 else shown[:59] + "…")


def _read(root: Path, rel: str) -> str | None:
    try:
        return (root / rel).read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None


def detect_linux(root: Path = Path("/")) -> tuple[str, tuple[str, ...]]:
    for rule in (_wsl, _container, _vm, _dmi, _battery, _acpi):
        found = rule(root)
        if found:
            return found
    return "unknown", ("no chassis type, battery or power profile could be read",)


def _wsl(root: Path):
    release = _read(root, "proc/sys/kernel/osrelease") or ""
    if "microsoft" in release.lower() or "wsl" in release.lower():
        return "wsl", (f"kernel release {_quoted(release)} is a WSL kernel",)
    return None


def _container(root: Path):
    evidence = []
    if (root / "run/.containerenv").exists():
        evidence.append("/run/.containerenv exists (Podman)")
    manager = _read(root, "run/systemd/container") or _read(root, "run/host/container-manager")
    if manager:
        evidence.append(f"container manager {_quoted(manager)}")
    environ = _read(root, "proc/1/environ") or ""
    for item in environ.split("\0"):
        if item.startswith("container="):
            evidence.append(f"PID 1 has {item}")
    cgroup = _read(root, "proc/self/cgroup") or ""
    if any(word in cgroup for word in CONTAINER_CGROUP_WORDS):
        evidence.append("the process's control group belongs to a container runtime")
    if (root / ".dockerenv").exists():
        # Images converted to VMs keep this marker, so it only counts on a container-style root.
        root_fs = _root_filesystem(root)
        if root_fs is None or root_fs in ("overlay", "aufs", "fuse-overlayfs", "shiftfs"):
            evidence.append("/.dockerenv exists" + (f" and / is {root_fs}" if root_fs else ""))
    return ("container", tuple(evidence)) if evidence else None


def _root_filesystem(root: Path) -> str | None:
    info = _read(root, "proc/self/mountinfo")
    if not info:
        return None
    for line in info.splitlines():
        left, _, right = line.partition(" - ")
        fields = left.split()
        if len(fields) >= 5 and fields[4] == "/" and right:
            return right.split()[0]
    return None


def _vm(root: Path):
    evidence = []
    cpuinfo = _read(root, "proc/cpuinfo") or ""
    for line in cpuinfo.splitlines():
        if line.startswith("flags") and " hypervisor" in f" {line.partition(':')[2]} ":
            evidence.append("the CPU reports the 'hypervisor' flag (running under a hypervisor)")
            break
    hv = _read(root, "sys/hypervisor/type")
    if hv:
        evidence.append(f"/sys/hypervisor/type is {_quoted(hv)}")
    for field in ("sys_vendor", "product_name", "board_vendor"):
        value = _read(root, f"sys/class/dmi/id/{field}")
        if value and any(v in value.lower() for v in VM_VENDORS):
            evidence.append(f"DMI {field} is {_quoted(value)}")
    return ("vm", tuple(evidence)) if evidence else None


def _dmi(root: Path):
    raw = _read(root, "sys/class/dmi/id/chassis_type")
    if not raw or not raw.isdigit():
        return None
    code = int(raw) & 0x7F
    kind = DMI_KIND.get(code)
    if kind is None:
        return None  # "Other"/"Unknown" and friends: let the battery or ACPI decide
    return kind, (f"DMI chassis type {code} ({CHASSIS_TYPES.get(code, '?')})",)


def has_system_battery(root: Path = Path("/")) -> str | None:
    """Name of a battery that powers the system; peripherals (mice, keyboards) don't count."""
    base = root / "sys/class/power_supply"
    try:
        supplies = sorted(base.iterdir())
    except OSError:
        return None
    for supply in supplies:
        if (_read(supply, "type") or "") != "Battery":
            continue
        if (_read(supply, "scope") or "System") == "Device":
            continue
        return supply.name
    return None


def _battery(root: Path):
    name = has_system_battery(root)
    if name:
        return "laptop", (f"system battery {_quoted(name)} in /sys/class/power_supply",)
    return None


def _acpi(root: Path):
    raw = _read(root, "sys/firmware/acpi/pm_profile")
    if raw and raw.isdigit() and int(raw) in ACPI_PM_PROFILE:
        return ACPI_PM_PROFILE[int(raw)], (f"ACPI preferred power-management profile {raw}",)
    return None
