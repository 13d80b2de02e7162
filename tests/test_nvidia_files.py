import pytest

from tests.realoutputs import sections
from wizard.probe.nvidia_files import loaded_module, parse_proc_version

EXPECTED = {
    "GT 520": ("384.98", "proprietary"),
    "TrueNAS": ("580.173.02", "proprietary"),
    "nvidia-driver-565-open": ("565.57.01", "open"),
    "nvidia-open-dkms": ("525.60.11", "open"),
    "Jetson": ("35.3.1", "open"),
    "Gentoo": ("555.58", "open"),  # build date in Russian
}


@pytest.mark.parametrize("machine, expected", EXPECTED.items())
def test_real_proc_driver_version_files(machine, expected):
    [section] = [s for s in sections("linux-proc-driver-nvidia-version.txt") if machine in s.machine]
    assert parse_proc_version(section.output) == expected


def test_garbage_is_not_a_version():
    assert parse_proc_version("GCC version: 12\n") is None


def test_sys_module_version_is_the_fallback(write_tree):
    root = write_tree({"sys/module/nvidia/version": "550.144.03\n"})
    assert loaded_module(root) == ("550.144.03", "unknown")


def test_no_module_files_means_no_module(tmp_path):
    assert loaded_module(tmp_path) is None
