"""GPUs, chassis, CPU name and Rosetta on macOS: `system_profiler` and `sysctl`, bounded.

Apple Silicon GPUs have no VRAM of their own: they share the Mac's memory, so `vram_gb` is the
system memory and `unified_memory` says so. Intel Macs report a dGPU's VRAM as text ("4 GB").
Monitor details (`spdisplays_ndrvs`, with serial numbers) are never read.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import re
import sys
from typing import Any

import psutil

from wizard.probe.facts import Gpu, ProbeNote
from wizard.probe.nvml import is_laptop_name
from wizard.probe.runner import RunResult, run_bounded

GIB = 1024**3
SOURCE = "system_profiler"
_VENDOR_BY_ID = {"106b": "apple", "10de": "nvidia", "1002": "amd", "8086": "intel"}
_ID_BY_VENDOR = {v: k for k, v in _VENDOR_BY_ID.items()}
# Plain-text field → the JSON key's meaning, so both formats build GPUs the same way.
_TEXT_FIELDS = {"chipset model": "model", "vendor": "vendor", "device id": "device_id",
                "bus": "bus", "total number of cores": "cores", "type": "type"}
_LAPTOP_MODELS = ("MacBook",)
_DESKTOP_MODELS = ("Macmini", "Mac mini", "iMac", "MacPro", "Mac Pro", "Mac Studio")
_VM_MODELS = ("VirtualMac", "VMware", "Parallels")
_NAME, _ID = "model name", "model identifier"  # evidence labels, as System Information says
_SYSCTL_LINE = re.compile(r"^([a-z][A-Za-z0-9_]*(?:\.[A-Za-z0-9_-]+)+):\s?(.*)$")


# --- SPDisplaysDataType ----------------------------------------------------------------------

def parse_spdisplays_json(text: str, memsize_bytes: int | None = None) -> tuple[Gpu, ...]:
    """`system_profiler SPDisplaysDataType -json` → GPUs; () when the text is not that JSON."""
    gpus = []
    for item in _json_list(text, "SPDisplaysDataType") or []:
        if not isinstance(item, dict):
            continue
        vram = next((item[k] for k in ("spdisplays_vram", "spdisplays_vram_shared",
                                       "_spdisplays_vram") if item.get(k)), None)
        device_type = item.get("sppci_device_type")
        fields = {
            "header": item.get("_name"), "model": item.get("sppci_model"),
            "vendor": item.get("spdisplays_vendor"), "device_id": item.get("spdisplays_device-id"),
            "bus": item.get("sppci_bus"), "cores": item.get("sppci_cores"), "vram": vram,
            "type": "GPU" if device_type in (None, "spdisplays_gpu") else device_type,
        }
        gpus.append(_gpu({k: v for k, v in fields.items() if isinstance(v, str)}, memsize_bytes))
    return tuple(g for g in gpus if g is not None)


def parse_spdisplays_text(text: str, memsize_bytes: int | None = None) -> tuple[Gpu, ...]:
    """Plain `system_profiler SPDisplaysDataType`: one GPU per "Chipset Model" line.

    Lines before the first GPU (a Hardware Overview) are skipped; the heading line just before
    "Chipset Model" is the GPU's display name. A GPU's own fields come before its monitors, so
    the first value of a field wins.
    """
    records: list[dict[str, str]] = []
    heading = ""
    for line in text.splitlines():
        key, sep, value = line.strip().partition(":")
        key, value = key.strip().lower(), value.strip()
        if not sep:
            continue
        if key == "chipset model":
            records.append({"header": heading})
        if not value:
            heading = line.strip()[:-1].strip()
        elif records and (key in _TEXT_FIELDS or key.startswith("vram")):
            records[-1].setdefault(_TEXT_FIELDS.get(key, "vram"), value)
    return tuple(g for g in (_gpu(r, memsize_bytes) for r in records) if g is not None)


def _json_list(text: str, data_type: str) -> list[Any] | None:
    start = text.find("{")
    try:
        data = json.loads(text[start:]) if start >= 0 else None
    except ValueError:
        return None
    items = data.get(data_type) if isinstance(data, dict) else None
    return items if isinstance(items, list) else None


def _gpu(fields: dict[str, str], memsize_bytes: int | None) -> Gpu | None:
    if "GPU" not in fields.get("type", "GPU").upper():  # "GPU", "External GPU", "spdisplays_gpu"
        return None
    name = _name(fields.get("model", ""), fields.get("header", ""))
    vendor_text = fields.get("vendor", "")
    vendor_id = _hex_id(vendor_text)
    vendor = _VENDOR_BY_ID.get(vendor_id or "") or _vendor_from_text(f"{vendor_text} {name}")
    if vendor == "apple":
        cores = fields.get("cores", "").split(" ")[0]
        return Gpu(
            vendor="apple", name=name, source=SOURCE,
            # Apple Silicon: the GPU uses the Mac's own memory; there is no separate VRAM.
            vram_gb=round(memsize_bytes / GIB, 2) if memsize_bytes else None,
            unified_memory=True,
            gpu_cores=int(cores) if cores.isdecimal() else None,
        )
    device_id = _hex_id(fields.get("device_id", ""))
    vendor_id = vendor_id or _ID_BY_VENDOR.get(vendor)
    built_in = "built" in fields.get("bus", "").lower()  # "Built-In" / "spdisplays_builtin"
    return Gpu(
        vendor=vendor, name=name, source=SOURCE,
        vram_gb=_size_gb(fields.get("vram", "")),
        pci_id=f"{vendor_id}:{device_id}" if vendor_id and device_id else None,
        laptop=is_laptop_name(name),
        # An Intel iGPU borrows system memory; its "VRAM (Dynamic, Max)" is only a ceiling.
        unified_memory=True if built_in else None,
    )


def _name(model: str, header: str) -> str:
    # "ATI,RadeonHD2600" is a driver name, "kHW_AppleM1Item" a localisation key.
    if model and "," not in model:
        return model
    if header and not header.startswith("kHW_"):
        return header
    chip = re.match(r"kHW_Apple(M\d+)(Pro|Max|Ultra)?Item$", header)
    if chip:
        return " ".join(filter(None, ("Apple", chip.group(1), chip.group(2))))
    return model or ("Apple GPU" if header.startswith("kHW_Apple") else "GPU")


def _hex_id(text: str) -> str | None:
    match = re.search(r"0x([0-9a-fA-F]{4})\b", text)
    return match.group(1).lower() if match else None


def _vendor_from_text(text: str) -> str:
    lowered = text.lower()
    for vendor, pattern in (("apple", r"apple|khw_apple"), ("nvidia", r"nvidia|geforce"),
                            ("amd", r"\bamd\b|\bati\b|radeon|vendor_amd|vendor_ati"),
                            ("intel", r"intel")):
        if re.search(pattern, lowered):
            return vendor
    return "other"


def _size_gb(text: str) -> float | None:
    match = re.match(r"\s*(\d+(?:\.\d+)?)\s*(MB|GB)\b", text, re.IGNORECASE)
    if not match:
        return None
    number = float(match.group(1))
    return round(number / 1024 if match.group(2).upper() == "MB" else number, 2)


# --- sysctl and SPHardwareDataType -----------------------------------------------------------

def parse_sysctl(text: str) -> dict[str, str]:
    """`sysctl name ...` lines ("hw.memsize: 34359738368") → {name: value}."""
    values = {}
    for line in text.splitlines():
        match = _SYSCTL_LINE.match(line.strip())
        if match:
            values[match.group(1)] = match.group(2).strip()
    return values


def cpu_model_from_sysctl(values: dict[str, str]) -> str | None:
    return " ".join(values.get("machdep.cpu.brand_string", "").split()) or None


def memsize_from_sysctl(values: dict[str, str]) -> int | None:
    raw = values.get("hw.memsize", "")
    return int(raw) if raw.isdecimal() else None


def is_vm_from_sysctl(values: dict[str, str]) -> bool:
    # "VMM" in the CPU features is macOS' counterpart of Linux's "hypervisor" flag.
    return (values.get("kern.hv_vmm_present") == "1"
            or "VMM" in values.get("machdep.cpu.features", "").split())


def is_apple_silicon(values: dict[str, str]) -> bool:
    return values.get("hw.optional.arm64") == "1"  # 1 even for a process under Rosetta


def is_translated(values: dict[str, str]) -> bool:
    """Rosetta 2: `sysctl.proc_translated` is 1, or an Apple chip shows x86-only CPUID keys."""
    if values.get("sysctl.proc_translated") == "1":
        return True
    x86_keys = ("machdep.cpu.family", "machdep.cpu.feature_bits", "machdep.cpu.features")
    apple_chip = values.get("machdep.cpu.brand_string", "").startswith("Apple")
    return apple_chip and any(k in values for k in x86_keys)


def parse_sphardware(text: str) -> dict[str, str]:
    """`SPHardwareDataType` (JSON or text) → machine_name / model_id / chip; nothing identifying."""
    items = _json_list(text, "SPHardwareDataType")
    if items and isinstance(items[0], dict):
        item = items[0]
        raw = {"machine_name": item.get("machine_name"), "model_id": item.get("machine_model"),
               "chip": item.get("chip_type") or item.get("cpu_type")}
    else:
        keys = {"model name": "machine_name", "model identifier": "model_id", "chip": "chip"}
        raw = {}
        for line in text.splitlines():
            key, sep, value = line.strip().partition(":")
            if sep and key.strip().lower() in keys:
                raw.setdefault(keys[key.strip().lower()], value.strip())
    return {k: v.strip() for k, v in raw.items() if isinstance(v, str) and v.strip()}


def chassis_from_facts(
    model_id: str | None, machine_name: str | None, has_battery: bool | None, vm: bool
) -> tuple[str, tuple[str, ...]]:
    """Mac chassis from the marketing name, then the model id, then the battery.

    Since 2022 model ids are "MacNN,M" for every line (Mac14,2 is a MacBook Air, Mac14,3 a
    Mac mini), so the id alone settles only older Macs.
    """
    model_id, machine_name = model_id or "", machine_name or ""
    if vm or model_id.startswith(_VM_MODELS):
        return "vm", (("kern.hv_vmm_present is 1",) if vm else ()) + _said(_ID, model_id)
    for label, value in ((_NAME, machine_name), (_ID, model_id)):
        if value.startswith(_LAPTOP_MODELS):
            return "laptop", _said(label, value)
        if value.startswith(_DESKTOP_MODELS):
            return "desktop", _said(label, value)
        if value.startswith("Xserve"):
            return "server", _said(label, value)
    # Every Mac laptop has a built-in battery; Mac desktops have none.
    if has_battery is True:
        return "laptop", _said(_ID, model_id) + ("a built-in battery is present",)
    if has_battery is False:
        return "desktop", _said(_ID, model_id) + ("no built-in battery",)
    return "unknown", _said(_ID, model_id)


def _said(label: str, value: str) -> tuple[str, ...]:
    return (f"{label}: {value}",) if value else ()


# --- bounded probes --------------------------------------------------------------------------

def sysctl_values(keys: tuple[str, ...], timeout: float = 4.0) -> dict[str, str]:
    """Ask sysctl for the keys; on an older Mac an unknown key can fail the whole call, so the
    missing ones are then asked one by one."""
    result = run_bounded([_tool("sysctl"), *keys], timeout)
    values = parse_sysctl(result.stdout) if result.status == "ok" else {}
    if result.status == "ok" and result.returncode != 0:
        for key in (k for k in keys if k not in values):
            single = run_bounded([_tool("sysctl"), key], timeout)
            if single.ok:
                values.update(parse_sysctl(single.stdout))
    return values


def _tool(name: str) -> str:
    # Both live in /usr/sbin, which is missing from PATH in some IDE and conda shells.
    path = f"/usr/sbin/{name}"
    return path if os.path.isfile(path) else name


def _memsize() -> int | None:
    try:
        return int(psutil.virtual_memory().total)  # hw.memsize, without another process
    except Exception:  # psutil could not tell: Apple GPUs then show no memory size
        return None


def probe_gpus(timeout: float = 8.0) -> tuple[tuple[Gpu, ...], ProbeNote]:
    result = run_bounded([_tool("system_profiler"), "SPDisplaysDataType", "-json"], timeout)
    if not result.ok:
        return (), _failed("macos-gpus", result)
    seconds, memsize = round(result.seconds, 2), _memsize()
    if _json_list(result.stdout, "SPDisplaysDataType") is not None:
        return parse_spdisplays_json(result.stdout, memsize), ProbeNote("macos-gpus", "ok", seconds)
    # macOS before 10.15 has no -json and may answer in plain text.
    gpus = parse_spdisplays_text(result.stdout, memsize)
    if gpus or "Graphics/Displays:" in result.stdout:
        return gpus, ProbeNote("macos-gpus", "ok", seconds)
    return (), ProbeNote("macos-gpus", "error", seconds,
                         "system_profiler's display list could not be read")


def probe_chassis(timeout: float = 8.0) -> tuple[str, tuple[str, ...], ProbeNote]:
    values = sysctl_values(("hw.model", "kern.hv_vmm_present"), timeout)
    result = run_bounded([_tool("system_profiler"), "SPHardwareDataType", "-json"], timeout)
    hardware = parse_sphardware(result.stdout) if result.ok else {}
    kind, evidence = chassis_from_facts(
        hardware.get("model_id") or values.get("hw.model"), hardware.get("machine_name"),
        _has_battery(), is_vm_from_sysctl(values))
    if hardware or values:
        note = ProbeNote("macos-chassis", "ok", round(result.seconds, 2))
    else:
        note = _failed("macos-chassis", result)
    return kind, evidence, note


def _has_battery() -> bool | None:
    try:
        return psutil.sensors_battery() is not None  # IOPowerSources; None on desktops
    except Exception:  # psutil could not tell: the battery stays unknown
        return None


def cpu_model(timeout: float = 4.0) -> str | None:
    return cpu_model_from_sysctl(sysctl_values(("machdep.cpu.brand_string",), timeout))


def is_rosetta(timeout: float = 4.0) -> bool | None:
    """True when this Python is an x86_64 build running under Rosetta 2 on Apple Silicon.

    `sysctl.proc_translated` describes the asking process, so it is read in-process; a `sysctl`
    child is only a fallback. The key is absent on Intel Macs: not translated.
    """
    value = _sysctl_int_in_process("sysctl.proc_translated")
    if value is not None:
        return value == 1
    values = sysctl_values(("sysctl.proc_translated",), timeout)
    return is_translated(values) if values else None


def _sysctl_int_in_process(name: str) -> int | None:
    if sys.platform != "darwin":
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.dylib", use_errno=True)
        libc.sysctlbyname.argtypes = [ctypes.c_char_p, ctypes.c_void_p,
                                      ctypes.POINTER(ctypes.c_size_t), ctypes.c_void_p,
                                      ctypes.c_size_t]
        value = ctypes.c_int(0)
        size = ctypes.c_size_t(ctypes.sizeof(value))
        if libc.sysctlbyname(name.encode(), ctypes.byref(value), ctypes.byref(size), None, 0):
            return 0 if ctypes.get_errno() == 2 else None  # ENOENT: an Intel Mac
        return value.value
    except Exception:  # not macOS, or no libc symbol: the caller falls back
        return None


def _failed(name: str, result: RunResult) -> ProbeNote:
    seconds = round(result.seconds, 2)
    if result.status == "not-found":
        return ProbeNote(name, "unavailable", seconds, "system_profiler was not found")
    if result.status == "timeout":
        return ProbeNote(name, "timeout", seconds, f"system_profiler: {result.detail}")
    if result.status != "ok":
        return ProbeNote(name, "error", seconds, f"system_profiler: {result.detail}")
    return ProbeNote(name, "error", seconds,
                     f"system_profiler exited with code {result.returncode}")
