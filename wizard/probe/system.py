"""OS, CPU, memory and disk: fast facts that need no external program on Linux."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path
from typing import NamedTuple

import psutil

GB = 1024**3


class SystemFacts(NamedTuple):
    os: str
    os_version: str
    arch: str
    python_version: str
    cpu_model: str
    cpu_cores: int | None
    cpu_threads: int | None
    ram_gb: float | None
    disk_free_gb: float | None
    hostname: str | None


def uname() -> tuple[str, str, str]:
    """(system, release, machine) as platform.uname() gives them ("Linux", "6.8.0", "x86_64").

    platform reads them from os.uname() wherever there is one (Linux, macOS); the module itself
    compiles a dozen regular expressions as it loads (~2 ms of every `check`), so it loads only
    for what only it knows: Windows, and the macOS and Windows versions."""
    if hasattr(os, "uname"):
        system, _node, release, _version, machine = os.uname()
        return system, release, machine
    import platform  # Windows: +2 ms elsewhere, where os.uname answers (measured 2026-12-04)

    info = platform.uname()
    return info.system, info.release, info.machine


def machine() -> str:
    return uname()[2]


def os_name() -> str:
    name = uname()[0]
    return name if name in ("Linux", "Windows", "Darwin") else "Linux"


def os_version(root: Path = Path("/")) -> str:
    system, release, _ = uname()
    if system == "Linux":
        pretty = _os_release_name(root)
        kernel = release
        return f"{pretty} (kernel {kernel})" if pretty else f"Linux {kernel}"
    if system == "Darwin":
        import platform  # macOS and Windows only: +2 ms on Linux (see uname)

        return f"macOS {platform.mac_ver()[0]}"
    if system == "Windows":
        import platform  # see above

        release, version, *_ = platform.win32_ver()
        return f"Windows {release} ({version})"
    return f"{system} {release}"


def _os_release_name(root: Path) -> str | None:
    for rel in ("etc/os-release", "usr/lib/os-release"):
        try:
            text = (root / rel).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.partition("=")[2].strip().strip('"').strip("'") or None
    return None


def linux_cpu_model(root: Path = Path("/")) -> str | None:
    """`model name` on x86; many ARM kernels only give `Hardware` or the device-tree model."""
    try:
        text = (root / "proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    fallback = None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key, value = key.strip().lower(), value.strip()
        if key == "model name" and value:
            return value
        if key in ("hardware", "cpu model") and value and not fallback:
            fallback = value
    if fallback:
        return fallback
    try:
        return (root / "proc/device-tree/model").read_text(errors="replace").strip("\0\n ") or None
    except OSError:
        return None


def cpu_model() -> str:
    system = uname()[0]
    model = None
    try:
        if system == "Linux":
            model = linux_cpu_model()
        elif system == "Windows":
            from wizard.probe import windows  # this OS's probes only: +5-11 ms on Linux (2026-12-04)

            model = windows.cpu_model()
        elif system == "Darwin":
            from wizard.probe import macos  # this OS's probes only: +4-6 ms elsewhere (2026-12-04)

            model = macos.cpu_model()
    except Exception:  # a CPU name is nice to have; never worth a crash
        model = None
    return model or machine() or "unknown CPU"


def _cgroup_memory_limit(root: Path = Path("/")) -> int | None:
    """A container's memory cap: psutil reports the host's RAM inside containers."""
    for rel in ("sys/fs/cgroup/memory.max", "sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            raw = (root / rel).read_text(encoding="ascii", errors="replace").strip()
        except OSError:
            continue
        if raw.isdigit() and int(raw) < 2**60:
            return int(raw)
    return None


def ram_gb() -> float | None:
    try:
        total = psutil.virtual_memory().total
    except Exception:
        return None
    limit = _cgroup_memory_limit() if sys.platform.startswith("linux") else None
    if limit:
        total = min(total, limit)
    return round(total / GB, 1)


def disk_free_gb(path: Path) -> float | None:
    try:
        return round(psutil.disk_usage(str(path)).free / GB, 1)
    except Exception:
        return None


def cpu_counts() -> tuple[int | None, int | None]:
    try:
        threads = psutil.cpu_count(logical=True)
        cores = psutil.cpu_count(logical=False)
    except Exception:
        return None, None
    if hasattr(os, "sched_getaffinity"):
        try:
            usable = len(os.sched_getaffinity(0))
            threads = min(threads, usable) if threads else usable
        except OSError:
            pass
    if cores and threads and cores > threads:
        cores = threads
    return cores, threads


def probe_system(report_dir: Path | None = None) -> SystemFacts:
    cores, threads = cpu_counts()
    try:
        hostname = socket.gethostname() or None
    except OSError:
        hostname = None
    return SystemFacts(
        os=os_name(),
        os_version=os_version(),
        arch=machine() or "unknown",
        python_version=sys.version.split()[0],   # what platform.python_version() reads
        cpu_model=cpu_model(),
        cpu_cores=cores,
        cpu_threads=threads,
        ram_gb=ram_gb(),
        disk_free_gb=disk_free_gb(report_dir or Path.cwd()),
        hostname=hostname,
    )
