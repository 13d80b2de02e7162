"""wizard.probe.system: the CPU, RAM and disk figures, from the standard library and sysfs on
Linux (psutil is not loaded there) and the same numbers psutil gives."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from tests.realoutputs import sections
from wizard.probe import system

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="sysfs and sysconf are Linux's")


def fake_cpus(root: Path, siblings: dict[int, str], leaf: str = "core_cpus_list") -> Path:
    """/sys/devices/system/cpu under `root`: cpuN/topology/<leaf> holding its core's CPU list."""
    cpus = root / "sys/devices/system/cpu"
    for cpu, listed in siblings.items():
        (cpus / f"cpu{cpu}" / "topology").mkdir(parents=True)
        (cpus / f"cpu{cpu}" / "topology" / leaf).write_text(listed + "\n")
    # what else sits there: not CPUs
    for other in ("cpufreq", "cpuidle", "possible", "online"):
        (cpus / other).mkdir(parents=True, exist_ok=True)
    return root


def test_two_threads_a_core_count_as_one_core(tmp_path):
    # 8 CPUs, hyper-threaded: cpu0 and cpu4 share core 0, and so on.
    root = fake_cpus(tmp_path, {n: f"{n % 4},{n % 4 + 4}" for n in range(8)})
    assert system.linux_cores(root) == 4


def test_older_kernels_name_the_file_thread_siblings_list(tmp_path):
    root = fake_cpus(tmp_path, {0: "0-1", 1: "0-1", 2: "2-3", 3: "2-3"}, leaf="thread_siblings_list")
    assert system.linux_cores(root) == 2


CPUINFO = """processor\t: 0
physical id\t: 0
cpu cores\t: 6

processor\t: 1
physical id\t: 0
cpu cores\t: 6

processor\t: 2
physical id\t: 1
cpu cores\t: 6
"""


def test_without_sysfs_cpuinfo_counts_each_package_once(tmp_path):
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc" / "cpuinfo").write_text(CPUINFO)
    assert system.linux_cores(tmp_path) == 12   # two packages of 6 cores


def proc_cpuinfo(root: Path, text: str) -> Path:
    (root / "proc").mkdir(exist_ok=True)
    (root / "proc" / "cpuinfo").write_text(text)
    return root


@pytest.mark.parametrize("section", sections("linux-proc-cpuinfo-baremetal-vs-vm.txt"),
                         ids=lambda section: section.machine[:40])
def test_real_cpuinfo_gives_the_model_name_and_the_cores(tmp_path, section):
    # Each recorded block is the first processor's: its "cpu cores" is the package's count.
    root = proc_cpuinfo(tmp_path, section.output)
    model = [line.partition(":")[2].strip() for line in section.output.splitlines()
             if line.startswith("model name")]
    cores = [int(line.partition(":")[2]) for line in section.output.splitlines() if line.startswith("cpu cores")]
    assert system.linux_cpu_model(root) == model[0]
    assert system.linux_cores(root) == cores[0]


def test_an_arm_cpuinfo_without_model_name_gives_its_hardware_line_or_the_device_tree(tmp_path):
    proc_cpuinfo(tmp_path, "processor\t: 0\nFeatures\t: fp asimd\nHardware\t: BCM2835\n")
    assert system.linux_cpu_model(tmp_path) == "BCM2835"
    proc_cpuinfo(tmp_path, "processor\t: 0\nFeatures\t: fp asimd\n")
    (tmp_path / "proc" / "device-tree").mkdir()
    (tmp_path / "proc" / "device-tree" / "model").write_text("Raspberry Pi 4 Model B\0")
    assert system.linux_cpu_model(tmp_path) == "Raspberry Pi 4 Model B"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_for_cpuinfo_is_not_waited_on(tmp_path):
    (tmp_path / "proc").mkdir()
    os.mkfifo(tmp_path / "proc" / "cpuinfo")   # nobody writes: a plain read would wait forever
    assert system.linux_cpu_model(tmp_path) is None and system.linux_cores(tmp_path) is None


@pytest.mark.parametrize("cpuinfo", ["", "processor\t: 0\ncpu cores\t: lots\nphysical id\t: 0\n",
                                     "processor\t: 0\ncpu cores\t: 99999999999999999999\nphysical id\t: 0\n"])
def test_with_nothing_to_count_the_cores_are_unknown(tmp_path, cpuinfo):
    if cpuinfo:
        (tmp_path / "proc").mkdir()
        (tmp_path / "proc" / "cpuinfo").write_text(cpuinfo)
    assert system.linux_cores(tmp_path) is None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_where_a_topology_file_should_be_is_not_waited_on(tmp_path):
    root = fake_cpus(tmp_path, {0: "0"})
    topology = root / "sys/devices/system/cpu/cpu1/topology"
    topology.mkdir(parents=True)
    os.mkfifo(topology / "core_cpus_list")   # nobody writes: a plain read would wait forever
    assert system.linux_cores(root) == 1


@linux_only
def test_the_figures_are_psutils_on_this_machine():
    cores, threads = system.cpu_counts()
    usable = len(os.sched_getaffinity(0))
    assert threads == min(psutil.cpu_count(logical=True), usable)
    assert cores == min(psutil.cpu_count(logical=False), threads)
    limit = system._cgroup_memory_limit()
    expected = min(psutil.virtual_memory().total, limit or psutil.virtual_memory().total)
    assert system.ram_gb() == round(expected / 2**30, 1)
    here = Path.cwd()
    assert system.disk_free_gb(here) == pytest.approx(psutil.disk_usage(str(here)).free / 2**30, abs=0.2)


@linux_only
def test_the_system_probe_does_not_load_psutil_on_linux():
    out = subprocess.run([sys.executable, "-c",
                          "import sys; from wizard.probe.system import probe_system; probe_system(); "
                          "print('psutil' in sys.modules)"],
                         capture_output=True, text=True, timeout=60, cwd=Path(__file__).resolve().parents[1])
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
