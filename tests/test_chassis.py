"""Chassis rules on temp sysfs/procfs trees, and the real WSL/cpuinfo texts."""

import pytest

from tests.realoutputs import sections
from wizard.probe.chassis import detect_linux, has_system_battery

VM_FLAGS = "processor\t: 0\nflags\t\t: fpu vme de pse hypervisor lahf_lm\n"
METAL_FLAGS = "processor\t: 0\nflags\t\t: fpu vme de pse tsc msr lahf_lm\n"
EXT4_ROOT = "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
OVERLAY_ROOT = "500 400 0:52 / / rw,relatime master:1 - overlay overlay rw,lowerdir=/x\n"


@pytest.mark.parametrize(
    "files, kind",
    [
        ({"sys/class/dmi/id/chassis_type": "10\n", "proc/cpuinfo": METAL_FLAGS}, "laptop"),
        ({"sys/class/dmi/id/chassis_type": "9\n"}, "laptop"),
        ({"sys/class/dmi/id/chassis_type": "31\n"}, "laptop"),  # convertible
        ({"sys/class/dmi/id/chassis_type": "3\n"}, "desktop"),
        ({"sys/class/dmi/id/chassis_type": "35\n"}, "desktop"),  # mini PC
        ({"sys/class/dmi/id/chassis_type": "17\n"}, "server"),
        ({"sys/class/dmi/id/chassis_type": "23\n"}, "server"),  # rack mount: systemd leaves it unhandled
        ({"sys/class/dmi/id/chassis_type": "137\n"}, "laptop"),  # 0x89: lock bit set on Notebook (9)
        ({"sys/class/dmi/id/chassis_type": "1\n", "sys/firmware/acpi/pm_profile": "2\n"}, "laptop"),
        ({"sys/class/dmi/id/chassis_type": "2\n", "sys/firmware/acpi/pm_profile": "4\n"}, "server"),
        ({"proc/cpuinfo": VM_FLAGS, "sys/class/dmi/id/chassis_type": "3\n"}, "vm"),  # Hyper-V says Desktop
        ({"sys/class/dmi/id/sys_vendor": "QEMU\n", "sys/class/dmi/id/chassis_type": "1\n"}, "vm"),
        ({"sys/hypervisor/type": "xen\n"}, "vm"),
        ({"run/.containerenv": ""}, "container"),
        ({"run/systemd/container": "docker\n"}, "container"),
        ({"proc/self/cgroup": "0::/system.slice/docker-3f2a.scope\n"}, "container"),
        ({"proc/self/cgroup": "11:memory:/kubepods/burstable/pod1\n", "proc/cpuinfo": VM_FLAGS}, "container"),
        ({"proc/1/environ": "PATH=/bin\0container=podman\0"}, "container"),
        ({".dockerenv": "", "proc/self/mountinfo": OVERLAY_ROOT}, "container"),
        ({}, "unknown"),
    ],
)
def test_rules(write_tree, files, kind):
    found, evidence = detect_linux(write_tree(files))
    assert found == kind
    assert evidence, "every answer carries its evidence"


def test_docker_marker_on_a_real_disk_root_is_an_image_not_a_container(write_tree):
    """A VM booted from a converted Docker image keeps /.dockerenv (this build machine does)."""
    root = write_tree({".dockerenv": "", "proc/self/mountinfo": EXT4_ROOT, "proc/cpuinfo": VM_FLAGS})
    kind, evidence = detect_linux(root)
    assert kind == "vm"
    assert any("hypervisor" in e for e in evidence)


def test_wsl_wins_over_its_dummy_battery(write_tree):
    root = write_tree({
        "proc/sys/kernel/osrelease": "5.15.146.1-microsoft-standard-WSL2\n",
        "sys/class/power_supply/battery/type": "Battery\n",
        "proc/cpuinfo": VM_FLAGS,
    })
    assert detect_linux(root)[0] == "wsl"


def test_real_wsl_kernel_strings_are_recognised(write_tree):
    import re

    releases = {release for s in sections("wsl-proc-version-osrelease.txt")
                for release in re.findall(r"\d+\.\d+[\w.-]*-[Mm]icrosoft[\w.-]*", s.output)}
    assert len(releases) >= 5, releases  # WSL1, early WSL2, -WSL2 5.4 / 5.15, a custom build
    for release in releases:
        root = write_tree({"proc/sys/kernel/osrelease": release + "\n"})
        assert detect_linux(root)[0] == "wsl", release


@pytest.mark.parametrize("machine, kind", [("BARE METAL:", "unknown"), ("BARE METAL laptop", "unknown"),
                                           ("VIRTUAL MACHINE (KVM", "vm"), ("VIRTUAL MACHINE with 1 vCPU", "vm")])
def test_real_cpuinfo_hypervisor_flag(write_tree, machine, kind):
    [section] = [s for s in sections("linux-proc-cpuinfo-baremetal-vs-vm.txt") if s.machine.startswith(machine)]
    root = write_tree({"proc/cpuinfo": section.output})
    assert detect_linux(root)[0] == kind


def test_peripheral_battery_does_not_make_a_laptop(write_tree):
    root = write_tree({
        "sys/class/power_supply/hidpp_battery_0/type": "Battery\n",
        "sys/class/power_supply/hidpp_battery_0/scope": "Device\n",
        "sys/class/power_supply/AC/type": "Mains\n",
    })
    assert has_system_battery(root) is None
    assert detect_linux(root)[0] == "unknown"


def test_system_battery_makes_a_laptop(write_tree):
    root = write_tree({
        "sys/class/power_supply/BAT0/type": "Battery\n",
        "sys/class/power_supply/hidpp_battery_0/type": "Battery\n",
        "sys/class/power_supply/hidpp_battery_0/scope": "Device\n",
    })
    assert has_system_battery(root) == "BAT0"
    kind, evidence = detect_linux(root)
    assert kind == "laptop" and "BAT0" in evidence[0]


def test_this_machine_gets_an_answer_with_evidence():
    kind, evidence = detect_linux()
    assert kind in ("desktop", "laptop", "server", "vm", "container", "wsl", "unknown")
    assert evidence
