"""NVIDIA driver and GPUs through NVML (the `pynvml` module of nvidia-ml-py).

NVML can hang for minutes on a wedged GPU and has segfaulted under WSL2, and a stub library
prints banners straight to stdout from C. So the queries run in a child Python process
(`python -m wizard.probe.nvml`) with a hard timeout; the parent reads one marked JSON line.
`collect(pynvml)` is the part that talks to NVML: tests hand it fake modules that raise the real
exception classes.
"""

from __future__ import annotations

import json
import os
import re
import sys
import warnings

# Not `from typing import TYPE_CHECKING`: this module is the NVML child's, whose start is what
# `check` waits for, and pynvml does not load `typing` (~3 ms). Type checkers read this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:  # the child process never builds these: it starts faster without the import
    from typing import Any

    from wizard.probe.facts import Gpu, NvidiaInfo

MARKER = "GPU-WIZARD-NVML:"
WSL_NVML = "/usr/lib/wsl/lib/libnvidia-ml.so.1"

# NVML return codes (nvml.h), stable across every binding version.
_STATUS_BY_CODE = {
    12: ("no-library", "no-library"),        # NVML_ERROR_LIBRARY_NOT_FOUND
    9: ("no-driver", "driver-not-loaded"),  # NVML_ERROR_DRIVER_NOT_LOADED
    18: ("version-mismatch", "version-mismatch"),  # NVML_ERROR_LIB_RM_VERSION_MISMATCH
    4: ("no-permission", "no-permission"),  # NVML_ERROR_NO_PERMISSION
    15: ("error", "gpu-lost"),              # NVML_ERROR_GPU_IS_LOST
    16: ("error", "reset-required"),        # NVML_ERROR_RESET_REQUIRED
    10: ("timeout", "nvml-timeout"),        # NVML_ERROR_TIMEOUT
    13: ("error", "driver-too-old"),        # NVML_ERROR_FUNCTION_NOT_FOUND during init
    999: ("error", "nvml-unknown"),         # NVML_ERROR_UNKNOWN ("Failed to initialize NVML: Unknown Error")
}
_NOT_SUPPORTED = 3
_FUNCTION_NOT_FOUND = 13


def _text(value: Any) -> str:
    # nvidia-ml-py before 11.515.48 returns bytes.
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def _error(exc: BaseException) -> dict[str, Any]:
    code: Any = getattr(exc, "value", None)  # NVMLError's int, or None for another error
    status, reason = _STATUS_BY_CODE.get(code, ("error", "nvml-error"))
    return {"status": status, "reason": reason, "error_code": code, "error": _safe_str(exc)}


def _safe_str(exc: BaseException) -> str:
    try:
        return f"{type(exc).__name__}: {exc}"
    except Exception:  # NVMLError.__str__ calls into the library, which may itself fail
        return type(exc).__name__


def _optional(pynvml: Any, call, *args):
    """One per-field query: NotSupported / FunctionNotFound mean "unknown", not failure."""
    try:
        return call(*args)
    except pynvml.NVMLError as exc:
        if getattr(exc, "value", None) in (_NOT_SUPPORTED, _FUNCTION_NOT_FOUND):
            return None
        raise
    except (UnicodeDecodeError, AttributeError):
        return None


def _memory(pynvml: Any, handle) -> tuple[int | None, int | None]:
    info = None
    version = getattr(pynvml, "nvmlMemory_v2", None)
    if version is not None:
        try:
            info = pynvml.nvmlDeviceGetMemoryInfo(handle, version=version)
        except TypeError:  # bindings without the version argument
            info = None
        except pynvml.NVMLError as exc:
            if getattr(exc, "value", None) not in (_NOT_SUPPORTED, _FUNCTION_NOT_FOUND, 25):
                raise
    if info is None:
        info = _optional(pynvml, pynvml.nvmlDeviceGetMemoryInfo, handle)
    if info is None:
        return None, None
    return int(info.total), int(info.free)


def _device(pynvml: Any, index: int) -> dict[str, Any]:
    handle = pynvml.nvmlDeviceGetHandleByIndex(index)
    gpu: dict[str, Any] = {"index": index, "name": _text(pynvml.nvmlDeviceGetName(handle))}
    total, free = _memory(pynvml, handle)
    gpu["vram_total"], gpu["vram_free"] = total, free
    cc = _optional(pynvml, pynvml.nvmlDeviceGetCudaComputeCapability, handle)
    if cc:
        gpu["compute_capability"] = f"{int(cc[0])}.{int(cc[1])}"
    pci = _optional(pynvml, pynvml.nvmlDeviceGetPciInfo, handle)
    if pci is not None:
        dev_id = int(getattr(pci, "pciDeviceId", 0))
        if dev_id:
            gpu["pci_id"] = f"{dev_id & 0xFFFF:04x}:{dev_id >> 16:04x}"
        bus = getattr(pci, "busId", None)
        if bus:
            gpu["bus_id"] = _text(bus).lower()
    uuid = _optional(pynvml, pynvml.nvmlDeviceGetUUID, handle)
    if uuid:
        gpu["uuid"] = _text(uuid)
    _mig(pynvml, handle, gpu)
    return gpu


_MIG_ENABLE = 1   # NVML_DEVICE_MIG_ENABLE
_MAX_MIG = 16


def _mig(pynvml: Any, handle, gpu: dict[str, Any]) -> None:
    """MIG mode (A100/H100 and newer datacenter GPUs) and the UUIDs of its MIG devices: a CUDA
    process sees one of them, chosen by CUDA_VISIBLE_DEVICES=MIG-…. Anything NVML cannot say
    (GeForce: NotSupported; older bindings without the calls) leaves the GPU as it is."""
    get_mode = getattr(pynvml, "nvmlDeviceGetMigMode", None)
    if get_mode is None:
        return
    try:
        mode = _optional(pynvml, get_mode, handle)
    except pynvml.NVMLError:
        return
    if not mode:
        return
    current = mode[0] if isinstance(mode, (list, tuple)) else mode
    gpu["mig_mode"] = current == _MIG_ENABLE
    if not gpu["mig_mode"]:
        return
    uuids: list[str] = []
    try:
        count = _optional(pynvml, pynvml.nvmlDeviceGetMaxMigDeviceCount, handle) or 0
        for index in range(min(int(count), _MAX_MIG)):
            try:
                mig = pynvml.nvmlDeviceGetMigDeviceHandleByIndex(handle, index)
            except pynvml.NVMLError:  # NotFound: no MIG device in this slot
                continue
            uuid = _optional(pynvml, pynvml.nvmlDeviceGetUUID, mig)
            if uuid:
                uuids.append(_text(uuid))
    except (pynvml.NVMLError, AttributeError, TypeError, ValueError):
        pass
    gpu["mig_devices"] = uuids


def _init(pynvml: Any, wsl_library: str | None) -> None:
    try:
        pynvml.nvmlInit()
        return
    except pynvml.NVMLError as exc:
        code = getattr(exc, "value", None)
        if code == 12 and wsl_library and os.path.exists(wsl_library):
            # In WSL the library sits outside the loader's path when started over SSH or sudo.
            # ctypes here, in the child, where pynvml has loaded it: at the top it would cost
            # `check`'s own process +2-6 ms for nothing (measured 2026-12-04).
            import ctypes

            pynvml.nvmlLib = ctypes.CDLL(wsl_library)
            pynvml.nvmlInit()
            return
        if code != _FUNCTION_NOT_FOUND or not hasattr(pynvml, "_nvmlGetFunctionPointer"):
            raise
    # Drivers before nvmlInitWithFlags (R418-era) still have nvmlInit_v2.
    pynvml._nvmlCheckReturn(pynvml._nvmlGetFunctionPointer("nvmlInit_v2")())


def collect(pynvml: Any, wsl_library: str | None = None) -> dict[str, Any]:
    """Query NVML through the given module; returns plain data, never raises."""
    if not hasattr(pynvml, "nvmlInit") or not hasattr(pynvml, "NVMLError"):
        return {"status": "error", "reason": "bindings-broken",
                "error": f"the pynvml module at {getattr(pynvml, '__file__', '?')} is not nvidia-ml-py"}
    try:
        _init(pynvml, wsl_library)
    except pynvml.NVMLError as exc:
        return _error(exc)
    except OSError as exc:
        return {"status": "no-library", "reason": "no-library", "error": str(exc)}

    result: dict[str, Any] = {"status": "ok", "reason": None, "gpus": [], "gpu_errors": []}
    try:
        result["driver_version"] = _text(pynvml.nvmlSystemGetDriverVersion())
        nvml_version = _optional(pynvml, pynvml.nvmlSystemGetNVMLVersion)
        if nvml_version:
            result["nvml_version"] = _text(nvml_version)
        cuda = _optional(pynvml, pynvml.nvmlSystemGetCudaDriverVersion)
        if cuda:
            result["cuda_driver_version"] = f"{cuda // 1000}.{(cuda % 1000) // 10}"
        count = pynvml.nvmlDeviceGetCount()
        for index in range(count):
            try:
                result["gpus"].append(_device(pynvml, index))
            except pynvml.NVMLError as exc:
                result["gpu_errors"].append({"index": index, **_error(exc)})
        if count == 0:
            result.update(status="no-device", reason="no-device")
        elif not result["gpus"]:
            # Every GPU failed: the first failure is the machine's story (no permission, lost).
            first = result["gpu_errors"][0]
            result.update(status=first["status"], reason=first["reason"], error_code=first["error_code"])
    except pynvml.NVMLError as exc:
        result.update(_error(exc))
    except Exception as exc:  # a broken binding must not take the probe down
        result.update(status="error", reason="nvml-error", error=_safe_str(exc))
    finally:
        try:
            pynvml.nvmlShutdown()
        except Exception:
            pass
    return result


def import_pynvml():
    # The deprecated `pynvml` PyPI package installs a hook that warns on import.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pynvml  # in the NVML child only, with its import warning silenced
    return pynvml


def main() -> int:
    try:
        pynvml = import_pynvml()
    except ImportError as exc:
        data = {"status": "error", "reason": "bindings-missing", "error": str(exc)}
    except Exception as exc:  # a broken module must still produce an answer
        data = {"status": "error", "reason": "bindings-broken", "error": _safe_str(exc)}
    else:
        data = collect(pynvml, WSL_NVML if sys.platform.startswith("linux") else None)
    sys.stdout.write("\n" + MARKER + json.dumps(data) + "\n")
    sys.stdout.flush()
    return 0


def parse_child_output(stdout: str) -> dict[str, Any] | None:
    for line in reversed(stdout.splitlines()):
        if line.startswith(MARKER):
            try:
                data = json.loads(line[len(MARKER):])
            except ValueError:
                return None
            return data if isinstance(data, dict) else None
    return None


GIB = 1024**3


def to_model(data: dict[str, Any]) -> tuple[NvidiaInfo, tuple[Gpu, ...]]:
    """Child's plain data → NvidiaInfo (without the explanation text) and NVML GPUs."""
    # Not at the top: the NVML child imports this module, and the records would add +25-30 ms
    # to its start, which `check` waits for (measured 2026-12-04).
    from wizard.probe.facts import Gpu, NvidiaInfo

    info = NvidiaInfo(
        status=data.get("status", "error"),
        driver_version=data.get("driver_version"),
        cuda_driver_version=data.get("cuda_driver_version"),
        reason=data.get("reason"),
        nvml_version=data.get("nvml_version"),
        error_code=data.get("error_code"),
    )
    gpus = []
    for g in data.get("gpus", []):
        total, free = g.get("vram_total"), g.get("vram_free")
        gpus.append(Gpu(
            vendor="nvidia",
            name=g["name"],
            source="nvml",
            vram_gb=round(total / GIB, 2) if total else None,
            vram_free_gb=round(free / GIB, 2) if free is not None and total else None,
            compute_capability=g.get("compute_capability"),
            pci_id=g.get("pci_id"),
            bus_id=g.get("bus_id"),
            uuid=g.get("uuid"),
            laptop=is_laptop_name(g["name"]),
            mig_mode=g.get("mig_mode") if isinstance(g.get("mig_mode"), bool) else None,
            mig_devices=tuple(str(u)[:100] for u in g.get("mig_devices") or () if isinstance(u, str))[:_MAX_MIG],
        ))
    return info, tuple(gpus)


def is_laptop_name(name: str) -> bool | None:
    """NVIDIA mobile parts say so from RTX 30 / T-series on; older ones often do not (→ None)."""
    if re.search(r"Laptop GPU|Max-Q|Mobile|\b\d{3,4}M\b|\bMX\s?\d{3}\b", name):
        return True
    return None


if __name__ == "__main__":
    raise SystemExit(main())
