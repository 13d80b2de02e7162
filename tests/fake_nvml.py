"""Fake `pynvml` modules for tests: real nvidia-ml-py exception classes, scripted answers.

`FakeNvml` is handed to `wizard.probe.nvml.collect` in-process; `write_fake_module` writes a
`pynvml.py` for the child-process path (`probe_nvidia(extra_path=[folder])`).
"""

from __future__ import annotations

import textwrap
import types
from pathlib import Path

import pynvml as real

NVMLError = real.NVMLError


class Memory:
    def __init__(self, total: int, free: int):
        self.total, self.free, self.used = total, free, total - free


class Pci:
    def __init__(self, device_id: int, bus_id: str):
        self.pciDeviceId = device_id
        self.busId = bus_id


def fake_module(
    *,
    init_error: type | None = None,
    gpus: list[dict] | None = None,
    driver: str | bytes = "580.95.05",
    cuda: int = 13000,
    count_error: type | None = None,
    memory_v2_missing: bool = False,
) -> types.SimpleNamespace:
    """A module-like object; each GPU dict: name, total, free, cc, pci, bus, uuid, error, and
    for MIG: mig (current, pending) and mig_devices (their UUIDs)."""
    gpus = gpus or []
    calls: list[str] = []

    def nvmlInit():
        calls.append("init")
        if init_error:
            raise init_error()

    def handle(index):
        gpu = gpus[index]
        if gpu.get("error"):
            raise gpu["error"]()
        return index

    def memory(h, version=None):
        if version is not None and memory_v2_missing:
            raise real.NVMLError_FunctionNotFound()
        gpu = gpus[h]
        return Memory(gpu["total"], gpu["free"])

    def cc(h):
        if gpus[h].get("cc") is None:
            raise real.NVMLError_NotSupported()
        return gpus[h]["cc"]

    def mig_mode(h):
        if isinstance(h, tuple) or "mig" not in gpus[h]:
            raise real.NVMLError_NotSupported()
        return list(gpus[h]["mig"])

    def mig_max(h):
        return 7 if gpus[h].get("mig") else 0

    def mig_handle(h, index):
        devices = gpus[h].get("mig_devices", [])
        if index >= len(devices):
            raise real.NVMLError_NotFound()
        return (h, index)

    def uuid(h):
        if isinstance(h, tuple):
            return gpus[h[0]]["mig_devices"][h[1]]
        return gpus[h].get("uuid", "GPU-00000000-0000-0000-0000-000000000001")

    def count():
        if count_error:
            raise count_error()
        return len(gpus)

    return types.SimpleNamespace(
        NVMLError=NVMLError,
        nvmlMemory_v2=real.nvmlMemory_v2,
        nvmlInit=nvmlInit,
        nvmlShutdown=lambda: calls.append("shutdown"),
        nvmlSystemGetDriverVersion=lambda: driver,
        nvmlSystemGetNVMLVersion=lambda: "13.580.95.05",
        nvmlSystemGetCudaDriverVersion=lambda: cuda,
        nvmlDeviceGetCount=count,
        nvmlDeviceGetHandleByIndex=handle,
        nvmlDeviceGetName=lambda h: gpus[h]["name"],
        nvmlDeviceGetMemoryInfo=memory,
        nvmlDeviceGetCudaComputeCapability=cc,
        nvmlDeviceGetPciInfo=lambda h: Pci(gpus[h]["pci"], gpus[h]["bus"]),
        nvmlDeviceGetUUID=uuid,
        nvmlDeviceGetMigMode=mig_mode,
        nvmlDeviceGetMaxMigDeviceCount=mig_max,
        nvmlDeviceGetMigDeviceHandleByIndex=mig_handle,
        calls=calls,
    )


def write_fake_module(folder: Path, body: str) -> Path:
    """A `pynvml.py` in `folder` that re-exports the real error classes, then runs `body`."""
    folder.mkdir(parents=True, exist_ok=True)
    header = textwrap.dedent(
        f"""
        import importlib.util, sys
        _spec = importlib.util.spec_from_file_location("_real_pynvml", {real.__file__!r})
        _real = importlib.util.module_from_spec(_spec)
        sys.modules["_real_pynvml"] = _real
        _spec.loader.exec_module(_real)
        NVMLError = _real.NVMLError
        for _name in dir(_real):
            if _name.startswith("NVMLError_"):
                globals()[_name] = getattr(_real, _name)
        """
    )
    path = folder / "pynvml.py"
    path.write_text(header + textwrap.dedent(body), encoding="utf-8")
    return path
