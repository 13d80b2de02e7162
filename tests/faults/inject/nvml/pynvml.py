"""A stand-in for nvidia-ml-py's `pynvml`, driven by FAKE_NVML, raising the real error classes.

  init:<Error>    nvmlInit raises pynvml.NVMLError_<Error>
  count:<Error>   init works; nvmlDeviceGetCount raises it
  device:<Error>  one GPU; getting its handle raises it
  memory:<Error>  one GPU; its memory query raises it
  hang            nvmlInit never returns (a wedged GPU)
  segv            nvmlInit kills the process with SIGSEGV (seen under WSL2)
  banner          a stub library prints to stdout before answering; then one working GPU
  import-error    importing the module fails
  ok              one working RTX 4060 Laptop GPU
"""

import importlib.machinery
import importlib.util
import os
import sys
import time

_MODE, _, _ERROR = os.environ.get("FAKE_NVML", "ok").partition(":")

if _MODE == "import-error":
    raise ImportError("libnvidia-ml.so.1: cannot open shared object file (fake)")

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.machinery.PathFinder.find_spec(
    "pynvml", [p for p in sys.path if os.path.abspath(p or ".") != _here])
_real = importlib.util.module_from_spec(_spec)
# The real module builds its error classes in sys.modules["pynvml"]: let that be itself
# while it loads, then put this stand-in back.
_self = sys.modules["pynvml"]
sys.modules["pynvml"] = _real
try:
    _spec.loader.exec_module(_real)
finally:
    sys.modules["pynvml"] = _self
for _name in dir(_real):
    if not _name.startswith("__"):
        globals()[_name] = getattr(_real, _name)

if _MODE == "banner":
    sys.stdout.write("NVIDIA stub library banner {not json}\nGPU-WIZARD-NVML:{broken\n")
    sys.stdout.flush()


def _raise(where):
    if _MODE == where:
        raise getattr(_real, "NVMLError_" + _ERROR)()


class _Memory:
    total, free, used = 8 * 1024**3, 7 * 1024**3, 1024**3


class _Pci:
    pciDeviceId = (0x28E0 << 16) | 0x10DE
    busId = "00000000:01:00.0"


def nvmlInit():
    if _MODE == "hang":
        time.sleep(3600)
    if _MODE == "segv":
        import signal
        os.kill(os.getpid(), signal.SIGSEGV)
    _raise("init")


nvmlInit_v2 = nvmlInit


def nvmlShutdown():
    pass


def nvmlSystemGetDriverVersion():
    return "580.95.05"


def nvmlSystemGetNVMLVersion():
    return "13.580.95.05"


def nvmlSystemGetCudaDriverVersion():
    return 13000


def nvmlDeviceGetCount():
    _raise("count")
    return 1


def nvmlDeviceGetHandleByIndex(index):
    _raise("device")
    return index


def nvmlDeviceGetName(handle):
    return "NVIDIA GeForce RTX 4060 Laptop GPU"


def nvmlDeviceGetMemoryInfo(handle, version=None):
    _raise("memory")
    return _Memory()


def nvmlDeviceGetCudaComputeCapability(handle):
    return (8, 9)


def nvmlDeviceGetPciInfo(handle):
    return _Pci()


def nvmlDeviceGetUUID(handle):
    return "GPU-12345678-1234-1234-1234-123456789abc"
