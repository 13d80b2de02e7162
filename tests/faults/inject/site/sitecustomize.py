"""Faults injected into a real `gpu-wizard` process (and the Python children it starts).

Python imports `sitecustomize` at start-up from the first folder on sys.path that has one, so
putting this folder on PYTHONPATH arms it; nothing in gpu-wizard knows it exists. The faults
are named in GPU_WIZARD_FAULTS (comma-separated) and act on the OS calls the program makes:

  sysfs-eacces   every read under /sys, /proc/driver and of /proc/cpuinfo: PermissionError
  sysfs-eio      the same reads fail with EIO (a flaky device or driver)
  sysfs-garbage  the same reads return bytes that are not what the kernel writes there
  disk-full      fsync fails with ENOSPC (the disk filled up while the report was written)
  read-only      creating a file in GPU_WIZARD_FAULT_DIR fails with EROFS (a read-only mount;
                 tests may run as root, which file modes do not stop)
  slow-save      fsync creates GPU_WIZARD_FAULT_MARK, then takes 2 s: a window in which the
                 test sends a signal "mid-save"
"""

import builtins
import errno
import io
import os
import time

_FAULTS = {f.strip() for f in os.environ.get("GPU_WIZARD_FAULTS", "").split(",") if f.strip()}


def _is_hardware_file(path) -> bool:
    try:
        text = os.fsdecode(path)
    except TypeError:
        return False
    return (text.startswith("/sys/") or text.startswith("/proc/driver/")
            or text == "/proc/cpuinfo")


def _arm_sysfs(kind: str) -> None:
    real_open, real_scandir, real_listdir = io.open, os.scandir, os.listdir

    def failure(path):
        if kind == "sysfs-eacces":
            return PermissionError(errno.EACCES, "Permission denied", os.fsdecode(path))
        return OSError(errno.EIO, "Input/output error", os.fsdecode(path))

    junk_file = None
    if kind == "sysfs-garbage":
        import tempfile

        fd, junk_file = tempfile.mkstemp(prefix="gpu-wizard-fault-junk-")
        os.write(fd, b"\xff\xfe\x00garbage \x1b[31m\x00\xc3(\n")
        os.close(fd)

    def fake_open(file, mode="r", *args, **kwargs):
        if not isinstance(file, int) and _is_hardware_file(file):
            if junk_file:
                # A real file with the caller's own mode, encoding and error handling.
                return real_open(junk_file, mode.replace("w", "r").replace("a", "r"), *args, **kwargs)
            raise failure(file)
        return real_open(file, mode, *args, **kwargs)

    def fake_scandir(path="."):
        if kind != "sysfs-garbage" and _is_hardware_file(path):
            raise failure(path)
        return real_scandir(path)

    def fake_listdir(path="."):
        if kind != "sysfs-garbage" and _is_hardware_file(path):
            raise failure(path)
        return real_listdir(path)

    builtins.open = io.open = fake_open
    os.scandir, os.listdir = fake_scandir, fake_listdir


def _arm_fsync() -> None:
    real_fsync = os.fsync

    def fake_fsync(fd):
        if "slow-save" in _FAULTS:
            mark = os.environ.get("GPU_WIZARD_FAULT_MARK")
            if mark:
                with open(mark, "w") as fh:
                    fh.write(str(os.getpid()))
            time.sleep(2.0)
        if "disk-full" in _FAULTS:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_fsync(fd)

    os.fsync = fake_fsync


def _arm_read_only() -> None:
    folder = os.path.realpath(os.environ["GPU_WIZARD_FAULT_DIR"])
    real_open = os.open

    def fake_os_open(path, flags, *args, **kwargs):
        if flags & os.O_CREAT and os.path.dirname(os.path.realpath(os.fsdecode(path))) == folder:
            raise OSError(errno.EROFS, "Read-only file system", os.fsdecode(path))
        return real_open(path, flags, *args, **kwargs)

    os.open = fake_os_open


for _kind in ("sysfs-eacces", "sysfs-eio", "sysfs-garbage"):
    if _kind in _FAULTS:
        _arm_sysfs(_kind)
if _FAULTS & {"disk-full", "slow-save"}:
    _arm_fsync()
if "read-only" in _FAULTS:
    _arm_read_only()
