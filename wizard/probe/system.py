"""OS, CPU, memory and disk: fast facts that need no external program on Linux.

The standard library answers most of them on every OS (`os.cpu_count`, `shutil.disk_usage`,
and on Linux `os.sysconf` for the RAM). psutil answers the rest (the RAM on Windows and macOS,
physical cores off Linux). On Linux the cores come from sysfs as psutil reads them, so psutil
is not loaded at all there: 0.9 MB of the wizard's peak memory (issue 25).
"""

from __future__ import annotations

import os
import shutil
import socket
import sys
from pathlib import Path
from typing import NamedTuple

from wizard.bounded_read import FileRefused, read_bytes

GB = 1024**3
_SMALL = 64 * 1024   # a sysfs attribute is one line; /proc/cpuinfo of a big server a few hundred KB
_CPUINFO = 16 * 2**20


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


def cpuinfo_fields(root: Path = Path("/")) -> list[tuple[str, str]]:
    """/proc/cpuinfo as (key in lower case, value) per line, ("", "") for the blank line that
    ends each CPU's section; [] when it cannot be read."""
    try:
        text = read_bytes(root / "proc/cpuinfo", _CPUINFO).decode("utf-8", "replace")
    except FileRefused:
        return []
    fields = []
    for line in text.splitlines():
        key, _, value = line.partition(":")
        fields.append((key.strip().lower(), value.strip()))
    return fields


def linux_cpu_model(root: Path = Path("/")) -> str | None:
    """`model name` on x86; many ARM kernels only give `Hardware` or the device-tree model."""
    fallback = None
    for key, value in cpuinfo_fields(root):
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
    """A container's memory cap: the kernel reports the host's RAM inside containers."""
    for rel in ("sys/fs/cgroup/memory.max", "sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            raw = (root / rel).read_text(encoding="ascii", errors="replace").strip()
        except OSError:
            continue
        if raw.isdigit() and int(raw) < 2**60:
            return int(raw)
    return None


def ram_gb() -> float | None:
    total = _total_memory()
    if total is None:
        return None
    limit = _cgroup_memory_limit() if sys.platform.startswith("linux") else None
    if limit:
        total = min(total, limit)
    return round(total / GB, 1)


def _total_memory() -> int | None:
    if sys.platform.startswith("linux"):
        try:  # the kernel's MemTotal, the figure psutil reads from /proc/meminfo
            total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError):
            return None
        return total if total > 0 else None
    import psutil  # Windows and macOS: Linux answers without it (see the top)

    try:
        return int(psutil.virtual_memory().total)
    except Exception:  # psutil could not tell
        return None


def disk_free_gb(path: Path) -> float | None:
    try:
        return round(shutil.disk_usage(path).free / GB, 1)
    except (OSError, ValueError):
        return None


def cpu_counts() -> tuple[int | None, int | None]:
    threads = os.cpu_count()
    cores = linux_cores() if sys.platform.startswith("linux") else _psutil_cores()
    if hasattr(os, "sched_getaffinity"):
        try:
            usable = len(os.sched_getaffinity(0))
            threads = min(threads, usable) if threads else usable
        except OSError:
            pass
    if cores and threads and cores > threads:
        cores = threads
    return cores, threads


def _psutil_cores() -> int | None:
    import psutil  # Windows and macOS: Linux answers without it (see the top)

    try:
        return psutil.cpu_count(logical=False)
    except Exception:  # psutil could not tell
        return None


def linux_cores(root: Path = Path("/")) -> int | None:
    """Physical cores, counted as psutil counts them on Linux: the distinct sets of CPUs that
    share a core (sysfs topology), else the "cpu cores" of each "physical id" in /proc/cpuinfo."""
    cpus = root / "sys/devices/system/cpu"
    siblings = set()
    try:
        names = os.listdir(cpus)
    except OSError:
        names = []
    for name in names:
        if not (name.startswith("cpu") and name[3:].isdigit()):
            continue
        # core_cpus_list is the newer name of thread_siblings_list (Linux 5.7)
        for leaf in ("core_cpus_list", "thread_siblings_list"):
            try:
                siblings.add(read_bytes(cpus / name / "topology" / leaf, _SMALL).strip())
                break
            except FileRefused:
                continue
    if siblings:
        return len(siblings)
    return _cpuinfo_cores(root)


def _cpuinfo_cores(root: Path) -> int | None:
    per_package: dict[str, int] = {}
    package = cores = None
    for key, value in [*cpuinfo_fields(root), ("", "")]:
        if not key:            # a blank line ends one CPU's section
            if package is not None and cores is not None:
                per_package[package] = cores
            package = cores = None
        elif key == "physical id":
            package = value
        elif key == "cpu cores" and value.isdigit() and len(value) < 7:
            cores = int(value)
    return sum(per_package.values()) or None


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
