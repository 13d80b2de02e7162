"""What PyTorch's own messages mean: the root cause behind a warning or an error line.

PyTorch says the right thing in words a beginner cannot act on ("no kernel image is available",
"HIP error: invalid device function", "found version 10000"), and sometimes the wrong thing
("CUDA unknown error - … e.g. changing env variable CUDA_VISIBLE_DEVICES after program start",
which after a suspend/resume is a driver state, not an environment variable). Every text a
torch probe recorded — import warnings, the GPU test's error lines, the benchmark's — is read
here, so a recorded machine gets the same answer as a live one. Pure; no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from wizard.probe.facts import TorchInfo

NO_KERNEL_IMAGE = "no-kernel-image"            # CUDA build without this GPU's architecture
INVALID_DEVICE_FUNCTION = "invalid-device-function"   # ROCm build without this gfx target
ARCH_NOT_COMPATIBLE = "arch-not-compatible"    # torch's import-time "sm_XX is not compatible" warning
UNKNOWN_ERROR = "cuda-unknown-error"           # CUDA error 999: the driver's state (suspend/resume)
DRIVER_TOO_OLD = "driver-too-old"              # "The NVIDIA driver on your system is too old"
NO_DRIVER = "no-driver"                        # "Found no NVIDIA driver on your system"
OUT_OF_MEMORY = "out-of-memory"
NO_DEVICE = "no-device"                        # "no CUDA-capable device is detected"
# A CUDA library from elsewhere (LD_LIBRARY_PATH, a CUDA toolkit) loaded instead of torch's own:
# "libcusparse.so.12: undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12",
# "cuDNN version incompatibility: ... Looks like your LD_LIBRARY_PATH contains incompatible
# version of cudnn".
WRONG_LIBRARY = "wrong-library"
GLIBC_TOO_OLD = "glibc-too-old"                # "/lib64/libc.so.6: version `GLIBC_2.28' not found"
MIG_NOT_SELECTED = "mig-not-selected"          # MIG: torch counts the GPUs, CUDA sees one instance

_PATTERNS = (
    (NO_KERNEL_IMAGE, re.compile(r"no kernel image is available", re.I)),
    (INVALID_DEVICE_FUNCTION, re.compile(r"invalid device function|hipErrorInvalidDeviceFunction|"
                                         r"no (compatible|suitable) (code object|device code)", re.I)),
    (ARCH_NOT_COMPATIBLE, re.compile(r"is not compatible with the current PyTorch installation|"
                                     r"no longer supports this GPU", re.I)),
    (UNKNOWN_ERROR, re.compile(r"CUDA unknown error|cudaErrorUnknown|CUDA error: unknown error|"
                               r"\berror (code )?999\b|CUDA_ERROR_UNKNOWN", re.I)),
    (DRIVER_TOO_OLD, re.compile(r"driver on your system is too old|"
                                r"CUDA driver version is insufficient for CUDA runtime version|"
                                r"cudaErrorInsufficientDriver", re.I)),
    (NO_DRIVER, re.compile(r"Found no NVIDIA driver on your system", re.I)),
    (OUT_OF_MEMORY, re.compile(r"out of memory", re.I)),
    (NO_DEVICE, re.compile(r"no CUDA-capable device is detected", re.I)),
    (GLIBC_TOO_OLD, re.compile(r"version [`'‘]?GLIBC_\d+\.\d+['’]? not found", re.I)),
    (WRONG_LIBRARY, re.compile(r"undefined symbol: \S*(nvJitLink|cublas|cusparse|cudnn|cufft|cusolver|nccl)|"
                               r"version [`'‘]?lib(cudnn|cublas|nvJitLink)\S* not found|"
                               r"cuDNN version incompatibility|LD_LIBRARY_PATH contains incompatible", re.I)),
    (MIG_NOT_SELECTED, re.compile(r"device >= 0 && device < num_gpus INTERNAL ASSERT FAILED", re.I)),
)
_GLIBC_NEEDED = re.compile(r"GLIBC_(\d+\.\d+)")
_FOUND_VERSION = re.compile(r"found version (\d{4,6})", re.I)


def cause_of(text: str | None) -> str | None:
    """The root cause one message names, or None for anything else."""
    for cause, pattern in _PATTERNS:
        if text and pattern.search(text):
            return cause
    return None


def found_cuda_version(text: str | None) -> str | None:
    """"found version 10000" (CUDA's integer, 1000·major + 10·minor) → "10.0"; None otherwise."""
    match = _FOUND_VERSION.search(text or "")
    if not match:
        return None
    number = int(match.group(1))
    return f"{number // 1000}.{(number % 1000) // 10}"


def glibc_needed(text: str | None) -> str | None:
    """"version `GLIBC_2.28' not found" → "2.28"."""
    match = _GLIBC_NEEDED.search(text or "")
    return match.group(1) if match else None


@dataclass(frozen=True)
class Said:
    """One message a torch probe recorded, with the cause it names."""

    cause: str
    text: str
    device: str | None = None    # the GPU test's device when it came from a test


def torch_said(torch: TorchInfo) -> list[Said]:
    """Every recorded message that names a known cause: warnings, GPU tests, the import error."""
    said = []
    for text in torch.torch_warnings:
        cause = cause_of(text)
        if cause:
            said.append(Said(cause, text))
    for test in torch.gpu_tests:
        cause = cause_of(test.error_line) if test.status == "failed" else None
        if cause:
            said.append(Said(cause, test.error_line or "", test.device))
    cause = cause_of(torch.error_line)
    if cause:
        said.append(Said(cause, torch.error_line or ""))
    return said


def first(said: list[Said], cause: str) -> Said | None:
    return next((s for s in said if s.cause == cause), None)
