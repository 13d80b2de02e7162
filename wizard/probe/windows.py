"""GPUs, chassis and CPU name on Windows: WMI through PowerShell, VRAM and CPU from the registry.

WMIC is deprecated and gone from recent Windows 11 installs, so the probes ask PowerShell for
JSON; the parser also reads `wmic /format:list` and `Format-List` text because that is what the
real recorded outputs are. `AdapterRAM` is a uint32 that saturates near 4 GiB, so the true VRAM
comes from the display-class registry keys (`HardwareInformation.qwMemorySize`). `winreg` is
imported lazily so the module (and its tests) load on Linux.
"""

from __future__ import annotations

import dataclasses
import html
import json
import os
import re
from typing import Any

import psutil

from wizard.probe.chassis import CHASSIS_TYPES, DMI_KIND, VM_VENDORS
from wizard.probe.facts import Gpu, ProbeNote
from wizard.probe.nvml import is_laptop_name
from wizard.probe.pci import NOT_COMPUTE, VENDOR_NAMES, VENDORS
from wizard.probe.runner import RunResult, run_bounded

GIB = 1024**3
# AdapterRAM is a uint32: cards with 4 GB or more report 4293918720 (4 GiB - 1 MiB) or near it.
ADAPTER_RAM_CAP = 4 * GIB - 1024**2
# PnP enumerators of display-only adapters (RDP/Miracast, virtual displays, USB docks, Hyper-V
# synthetic video): they are listed as video controllers but no program can compute on them.
# Other non-PCI enumerators (ACPI: the Adreno GPU of Windows on Arm) are kept.
DISPLAY_ONLY_ENUMERATORS = {"SWD", "ROOT", "USB", "VMBUS"}
DISPLAY_CLASS = r"SYSTEM\CurrentControlSet\Control\Class\{4d36e968-e325-11ce-bfc1-08002be10318}"
CPU_KEY = r"HARDWARE\DESCRIPTION\System\CentralProcessor\0"

_PS_PREFIX = "[Console]::OutputEncoding=[Text.Encoding]::UTF8; "
# -InputObject keeps a one-element array an array (piping unrolls it in PowerShell 5.1).
# InfFilename is not localised, unlike the "Microsoft Basic Display Adapter" name.
GPU_SCRIPT = _PS_PREFIX + (
    "ConvertTo-Json -Compress -InputObject @(Get-CimInstance -ClassName Win32_VideoController"
    " | Select-Object Name,PNPDeviceID,AdapterCompatibility,AdapterRAM,ConfigManagerErrorCode,"
    "InfFilename)"
)
CHASSIS_SCRIPT = _PS_PREFIX + (
    "$e=@(Get-CimInstance -ClassName Win32_SystemEnclosure | ForEach-Object {$_.ChassisTypes}); "
    "$c=Get-CimInstance -ClassName Win32_ComputerSystem; "
    "ConvertTo-Json -Compress -InputObject @{ChassisTypes=$e; Model=$c.Model; "
    "Manufacturer=$c.Manufacturer}"
)

_VENDOR_WORDS = (("nvidia", r"nvidia"), ("amd", r"advanced micro devices|\bamd\b|\bati\b|radeon"),
                 ("intel", r"intel"))
_LIST_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*([=:])(.*)$")


# --- Win32_VideoController -------------------------------------------------------------------

def parse_video_controllers(text: str) -> tuple[Gpu, ...]:
    """JSON (a list, or one object), `wmic /format:list` or `Format-List` text → GPUs."""
    return tuple(g for g in map(_gpu_from_record, _records(text) or []) if g is not None)


def _records(text: str) -> list[dict[str, Any]] | None:
    """Lower-cased key → value per adapter; None when the text is neither JSON nor a list."""
    text = text.lstrip("\ufeff").strip()
    if text[:1] in ("[", "{"):
        try:
            data = json.loads(text)
        except ValueError:
            return None
        items = data if isinstance(data, list) else [data]
        return [{str(k).lower(): v for k, v in i.items()} for i in items if isinstance(i, dict)]
    records: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    for line in text.splitlines() + [""]:
        match = _LIST_LINE.match(line)
        if match:
            key, sep, value = match.group(1).lower(), match.group(2), match.group(3).strip()
            # wmic /format:list escapes XML entities (PCI\VEN_10DE&amp;DEV_...).
            current[key] = html.unescape(value) if sep == "=" else value
        elif not line.strip() and current:  # a blank line ends an adapter
            records.append(current)
            current = {}
    return records if records else (None if text else [])


def _gpu_from_record(record: dict[str, Any]) -> Gpu | None:
    name = _text(record.get("name")) or _text(record.get("caption"))
    if not name or skip_reason(record):
        return None
    _, vendor_id, device_id = _pnp_ids(record)
    if vendor_id:
        vendor, pci_id = VENDORS.get(vendor_id, "other"), f"{vendor_id}:{device_id}"
    else:
        vendor, pci_id = _vendor_from_name(f"{_text(record.get('adaptercompatibility'))} {name}"), None
    no_driver = _has_no_vendor_driver(record, name)
    code = _int(record.get("configmanagererrorcode"))
    if no_driver and vendor in VENDOR_NAMES:
        # "Microsoft Basic Display Adapter" says nothing about the card; the ids do (as pci.py).
        name = f"{VENDOR_NAMES[vendor]} GPU (device 0x{device_id})"
    return Gpu(
        vendor=vendor,
        name=name,
        source="wmi",
        vram_gb=_adapter_ram_gb(record.get("adapterram")),  # registry VRAM replaces it later
        pci_id=pci_id,
        kernel_driver="" if no_driver else None,
        laptop=is_laptop_name(name),
        config_error=code if code else None,
    )


def skip_reason(record: dict[str, Any]) -> str | None:
    """Why a listed video controller is no GPU (None when it is one), as pci.py skips on Linux."""
    enumerator, vendor_id, _ = _pnp_ids(record)
    maker = f"{_text(record.get('adaptercompatibility'))} {_text(record.get('name'))}"
    if enumerator in DISPLAY_ONLY_ENUMERATORS or "displaylink" in maker.lower():
        return "display-only adapter"
    return NOT_COMPUTE.get(vendor_id or "")


def _pnp_ids(record: dict[str, Any]) -> tuple[str, str | None, str | None]:
    """Enumerator ("PCI", "SWD", ...) and, for PCI, the vendor and device ids in lower case."""
    pnp = _text(record.get("pnpdeviceid")).upper()
    enumerator = pnp.split("\\", 1)[0]
    ids = re.search(r"VEN_([0-9A-F]{4})&DEV_([0-9A-F]{4})", pnp) if enumerator == "PCI" else None
    if ids is None:
        return enumerator, None, None
    return enumerator, ids.group(1).lower(), ids.group(2).lower()


def _has_no_vendor_driver(record: dict[str, Any], name: str) -> bool:
    """Windows' fallback driver runs the card (no NVIDIA/AMD/Intel driver), or none is installed.

    Kernel drivers are a Linux idea; on Windows `kernel_driver` stays None except for this case,
    which is the one the advice needs ("a GPU is there, install its driver").
    """
    inf = _text(record.get("inffilename")).lower()
    code = _int(record.get("configmanagererrorcode"))
    # 28 = CM_PROB_FAILED_INSTALL: "The drivers for this device are not installed."
    return inf == "display.inf" or "basic display adapter" in name.lower() or code == 28


def _vendor_from_name(text: str) -> str:
    for vendor, pattern in _VENDOR_WORDS:
        if re.search(pattern, text, re.IGNORECASE):
            return vendor
    return "other"


def _adapter_ram_gb(value: Any) -> float | None:
    size = _int(value)
    return None if size and size >= ADAPTER_RAM_CAP else _gib(size)  # capped: "at least 4 GB"


def _gib(size: int | None) -> float | None:
    return round(size / GIB, 2) if size and size > 0 else None


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _int(value: Any) -> int | None:
    if isinstance(value, str) and value.strip().isdecimal():
        return int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# --- registry: VRAM and CPU name -------------------------------------------------------------

def _winreg() -> Any:
    """The `winreg` module, or None off Windows (tests replace this function with a fake)."""
    try:
        import winreg  # Windows only: elsewhere the ImportError is the answer
    except ImportError:
        return None
    return winreg


def read_display_adapters(winreg: Any) -> list[dict[str, Any]]:
    """Raw values of each `NNNN` subkey of the display adapter class (no parsing here)."""
    wanted = ("MatchingDeviceId", "HardwareInformation.qwMemorySize",
              "HardwareInformation.MemorySize")
    entries = []
    with winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, DISPLAY_CLASS) as root:
        index = 0
        while True:
            try:
                sub = winreg.EnumKey(root, index)
            except OSError:
                break
            index += 1
            if not (len(sub) == 4 and sub.isdecimal()):
                continue  # "Properties" and the like (access denied)
            try:
                with winreg.OpenKey(root, sub) as key:
                    entries.append({n: _query(winreg, key, n) for n in wanted})
            except OSError:
                continue
    return entries


def _query(winreg: Any, key: Any, name: str) -> Any:
    try:
        return winreg.QueryValueEx(key, name)[0]
    except OSError:
        return None


def parse_registry_vram(entries: list[dict[str, Any]]) -> dict[str, int]:
    """`pci_id` ("10de:2684") → VRAM bytes from `HardwareInformation.qwMemorySize`.

    The 32-bit `MemorySize` is used only below the 4 GiB saturation point. Keys of removed
    adapters can linger, so the result only enriches adapters WMI says are present.
    """
    vram: dict[str, int] = {}
    for entry in entries:
        match = re.search(r"ven_([0-9a-f]{4})&dev_([0-9a-f]{4})",
                          _text(entry.get("MatchingDeviceId")).lower())
        if not match:
            continue
        size = _registry_int(entry.get("HardwareInformation.qwMemorySize"))
        if not size:
            small = _registry_int(entry.get("HardwareInformation.MemorySize"))
            size = small if small and small < ADAPTER_RAM_CAP else None
        if size:
            vram.setdefault(f"{match.group(1)}:{match.group(2)}", size)
    return vram


def _registry_int(value: Any) -> int | None:
    if isinstance(value, (bytes, bytearray)) and 0 < len(value) <= 8:
        return int.from_bytes(value, "little")  # REG_BINARY
    return _int(value)  # REG_QWORD / REG_DWORD


def with_registry_vram(gpus: tuple[Gpu, ...], vram: dict[str, int]) -> tuple[Gpu, ...]:
    return tuple(dataclasses.replace(g, vram_gb=_gib(vram[g.pci_id])) if g.pci_id in vram else g
                 for g in gpus)


def registry_vram() -> dict[str, int]:
    try:
        winreg = _winreg()
        return parse_registry_vram(read_display_adapters(winreg)) if winreg else {}
    except Exception:  # a registry oddity must not cost the GPU list
        return {}


def cpu_model() -> str | None:
    """`ProcessorNameString` from the registry; `platform.processor()` is only a family code."""
    try:
        winreg = _winreg()
        with winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, CPU_KEY) as key:
            value = winreg.QueryValueEx(key, "ProcessorNameString")[0]
        return " ".join(value.split()) or None
    except Exception:  # not Windows (winreg is None), no such key, not text
        return None


# --- chassis ---------------------------------------------------------------------------------

def parse_chassis_types(values: list[int], vm: bool = False) -> tuple[str, tuple[str, ...]]:
    """Win32_SystemEnclosure.ChassisTypes → kind and evidence.

    `vm` is `is_virtual_machine`'s verdict; it comes first because a Hyper-V guest says "Desktop".
    """
    codes = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
    evidence = tuple(f"SMBIOS chassis type {c} ({CHASSIS_TYPES.get(c, '?')})" for c in codes)
    if vm:
        return "vm", evidence
    kinds = {DMI_KIND[c] for c in codes if c in DMI_KIND}  # the same table as on Linux
    for kind in ("laptop", "server", "desktop"):  # a docked laptop also lists 12, Docking
        if kind in kinds:
            return kind, evidence
    return "unknown", evidence


def is_virtual_machine(model: str, manufacturer: str) -> bool:
    """Win32_ComputerSystem's maker and model, against the same words as Linux DMI (a Hyper-V or
    Azure guest is "Microsoft Corporation" "Virtual Machine"). `HypervisorPresent` is not used:
    it is also true on real PCs running Hyper-V, WSL2, Docker or memory integrity
    (klauspost/cpuid#81)."""
    text = f"{manufacturer} {model}".lower()
    return any(word in text for word in VM_VENDORS)


def parse_chassis_json(text: str) -> dict[str, Any] | None:
    """The chassis script's JSON → {"types": [...], "model": ..., "manufacturer": ...}."""
    try:
        data = json.loads(text.lstrip("\ufeff").strip())
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    raw = data.get("ChassisTypes")
    if isinstance(raw, dict):  # PowerShell 5.1 sometimes wraps arrays as {"value": [...]}
        raw = raw.get("value")
    raw = raw if isinstance(raw, list) else [raw]
    return {
        "types": [n for n in map(_int, raw) if n is not None],
        "model": _text(data.get("Model")),
        "manufacturer": _text(data.get("Manufacturer")),
    }


def _has_battery() -> bool | None:
    try:
        return psutil.sensors_battery() is not None
    except Exception:  # psutil without battery support here, or a broken power API
        return None


def probe_chassis(timeout: float = 8.0) -> tuple[str, tuple[str, ...], ProbeNote]:
    result = _powershell(CHASSIS_SCRIPT, timeout)
    battery = _has_battery()
    facts = parse_chassis_json(result.stdout) if result.ok else None
    kind = "unknown"
    evidence: tuple[str, ...] = ()
    if facts is not None:
        vm = is_virtual_machine(facts["model"], facts["manufacturer"])
        kind, evidence = parse_chassis_types(facts["types"], vm)
        if vm:
            evidence += (f"model {facts['manufacturer']} {facts['model']}".rstrip(),)
    # A battery only settles an unknown chassis: UPS units also show up as batteries.
    if kind == "unknown" and battery:
        kind, evidence = "laptop", evidence + ("a battery is present",)
    return kind, evidence, _note("windows-chassis", result, facts is not None, "chassis")


# --- GPUs ------------------------------------------------------------------------------------

def probe_gpus(timeout: float = 8.0) -> tuple[tuple[Gpu, ...], ProbeNote]:
    result = _powershell(GPU_SCRIPT, timeout)
    records = _records(result.stdout) if result.ok and result.stdout.strip() else None
    if records is None:
        return (), _note("windows-gpus", result, False, "video controller list")
    gpus = tuple(g for g in map(_gpu_from_record, records) if g is not None)
    gpus = with_registry_vram(gpus, registry_vram())
    skipped = [f"{_text(r.get('name'))} ({skip_reason(r)})" for r in records if skip_reason(r)]
    note = _note("windows-gpus", result, True, "video controller list")
    if skipped:
        note = dataclasses.replace(note, detail="ignored: " + "; ".join(skipped))
    elif not records:
        note = dataclasses.replace(note, detail="Windows lists no display adapters")
    return gpus, note


# --- running PowerShell ----------------------------------------------------------------------

def _powershell(script: str, timeout: float) -> RunResult:
    # The full path still works when PATH is broken (some conda or IDE shells). Windows reads
    # environment names in any case, so SYSTEMROOT is its SystemRoot.
    root = os.environ.get("SYSTEMROOT", r"C:\Windows")
    exe = os.path.join(root, "System32", "WindowsPowerShell", "v1.0", "powershell.exe")
    if not os.path.isfile(exe):
        exe = "powershell"
    return run_bounded([exe, "-NoProfile", "-NonInteractive", "-Command", script], timeout)


def _note(name: str, result: RunResult, parsed: bool, what: str) -> ProbeNote:
    seconds = round(result.seconds, 2)
    if parsed:
        return ProbeNote(name, "ok", seconds)
    if result.status == "not-found":
        return ProbeNote(name, "unavailable", seconds, "PowerShell was not found")
    if result.status != "ok":  # "timeout", or "crashed"/"error" → "error"
        status = "timeout" if result.status == "timeout" else "error"
        return ProbeNote(name, status, seconds, f"PowerShell: {result.detail}")
    if result.returncode != 0:
        first = (result.stderr.strip().splitlines() or [""])[0][:120]
        detail = f"PowerShell exited with code {result.returncode}" + (f": {first}" if first else "")
        return ProbeNote(name, "error", seconds, detail)
    return ProbeNote(name, "error", seconds, f"PowerShell's {what} could not be read")
