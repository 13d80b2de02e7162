"""choose_torch over GPU generations, drivers around each floor, OSes and Pythons; and the CLI.

Every expected answer follows from the matrix's sources as content/torch_matrix.toml had them on
2026-12-01, frozen in tests/data/torch_matrix.toml (anchors.md sections 10–12): driver floors
from NVIDIA's minor-version-compatibility table (12.x: 525.60.13 Linux / 528.33 Windows; 13.x:
580; 11.x: 450.80.02 / 452.39), arch lists from PyTorch's CUDA support matrix (Pascal/Volta only
on cu126 in recent releases, Blackwell from 2.7 + cu128), Python ranges and PyPI defaults from
PyPI's metadata (2.15.0 needs Python 3.11 and defaults to CUDA 13.2).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from wizard.cli import main
from wizard.pytorch.choose import choose_torch

CPU_INDEX = "https://download.pytorch.org/whl/cpu"

# Every expected version below is the frozen matrix's (tests/data/torch_matrix.toml, through the
# `frozen_matrix` fixture), which a new release in content/torch_matrix.toml does not change.
pytestmark = pytest.mark.usefixtures("frozen_matrix")


def pick(os_name="linux", driver=None, ccs=(), python="3.12", **kw):
    return choose_torch(os_name, driver, list(ccs), python, **kw)


@pytest.mark.parametrize("gpu, os_name, driver, cc, expected", [
    # Pascal (GTX 1080 Ti): only cu126 from 2.8 on, and 2.15 dropped cu126 (RFC, unconfirmed → not chosen).
    ("pascal", "linux", "580.95.05", "6.1", ("2.14.1", "cu126")),
    ("pascal", "linux", "525.60.13", "6.1", ("2.14.1", "cu126")),   # at the 12.x floor
    ("pascal", "linux", "525.60.11", "6.1", ("2.7.1", "cu118")),    # just below: only CUDA 11.8 left
    ("pascal", "windows", "581.57", "6.1", ("2.14.1", "cu126")),
    # Volta (V100): cu126 only from 2.11.
    ("volta", "linux", "580.65.06", "7.0", ("2.14.1", "cu126")),
    # Turing (RTX 2080): in cu13 builds.
    ("turing", "linux", "580.65.06", "7.5", ("2.15.0", "cu132")),   # at the 13.x floor
    ("turing", "linux", "575.57.08", "7.5", ("2.14.1", "cu126")),   # just below 580: CUDA 12 only
    # Ampere (RTX 3060).
    ("ampere", "linux", "535.104.05", "8.6", ("2.14.1", "cu126")),
    ("ampere", "linux", "450.80.02", "8.6", ("2.7.1", "cu118")),    # at the 11.x floor
    ("ampere", "windows", "452.39", "8.6", ("2.7.1", "cu118")),
    # Ada (RTX 4060): runs sm_86 code.
    ("ada", "linux", "580.65.06", "8.9", ("2.15.0", "cu132")),
    ("ada", "windows", "528.33", "8.9", ("2.14.1", "cu126")),       # Windows 12.x floor
    ("ada", "windows", "528.24", "8.9", ("2.7.1", "cu118")),        # just below it
    ("ada", "windows", "580.88", "8.9", ("2.15.0", "cu132")),
    # Hopper (H100/H200).
    ("hopper", "linux", "595.58.03", "9.0", ("2.15.0", "cu132")),
    ("hopper", "linux", "550.54.15", "9.0", ("2.14.1", "cu126")),
    # Blackwell (RTX 5090, sm_120): never cu126; cu128 up to 2.11, then CUDA 13 with driver 580.
    ("blackwell", "linux", "570.124.06", "12.0", ("2.11.0", "cu128")),
    ("blackwell", "windows", "572.61", "12.0", ("2.11.0", "cu128")),
    ("blackwell", "linux", "580.65.06", "12.0", ("2.15.0", "cu132")),
    ("blackwell", "windows", "580.97", "12.0", ("2.15.0", "cu132")),
])
def test_nvidia_table(gpu, os_name, driver, cc, expected):
    choice = pick(os_name, driver, [cc])
    assert (choice.torch_version, choice.variant) == expected, choice.reason
    assert choice.command == (f"pip install torch=={expected[0]} --index-url "
                              f"https://download.pytorch.org/whl/{expected[1]}")
    assert choice.index_url == f"https://download.pytorch.org/whl/{expected[1]}"
    assert choice.uv_command == f"uv pip install torch=={expected[0]} --torch-backend={expected[1]}"
    assert choice.problem is None


def test_old_driver_warning_names_the_limit_and_the_driver_to_get():
    choice = pick("linux", "570.124.06", ["12.0"])
    assert "driver-limits" in choice.warning_ids
    warning = choice.warnings[choice.warning_ids.index("driver-limits")]
    assert "cu128" in warning and "2.11" in warning and "580" in warning


def test_old_gpu_warning_says_the_newest_release_has_no_kernels():
    choice = pick("linux", "580.95.05", ["6.1"])
    assert "gpu-limits" in choice.warning_ids and "driver-limits" not in choice.warning_ids
    assert "sm_61" in choice.warnings[choice.warning_ids.index("gpu-limits")]


def test_driver_between_compat_and_toolkit_floor_is_a_soft_warning():
    assert "minor-compat" in pick("linux", "550.54.15", ["8.6"]).warning_ids     # cu126 wants 560.35.05
    assert "minor-compat" not in pick("linux", "560.35.05", ["8.6"]).warning_ids


def test_kepler_is_too_old_for_every_build():
    choice = pick("linux", "580.65.06", ["3.5"])
    assert choice.command is None and choice.problem == "gpu-too-old"
    assert "sm_35" in choice.reason and "sm_37" in choice.reason
    assert choice.cpu_fallback == f"pip install torch==2.15.0 --index-url {CPU_INDEX}"


def test_driver_below_every_floor():
    choice = pick("linux", "440.33", ["8.6"])
    assert choice.command is None and choice.problem == "driver-too-old"
    assert "450.80.02" in choice.reason and "580" in choice.reason


def test_several_gpus_must_all_be_covered():
    choice = pick("linux", "580.65.06", ["6.1", "8.6"])
    assert (choice.torch_version, choice.variant) == ("2.14.1", "cu126")


def test_unknown_gpu_architecture_offers_the_legacy_build():
    choice = pick("linux", "580.65.06", [])
    assert (choice.torch_version, choice.variant) == ("2.15.0", "cu132")
    assert "arch-unknown" in choice.warning_ids
    assert "pip install torch==2.14.1 --index-url https://download.pytorch.org/whl/cu126" in \
        choice.warnings[choice.warning_ids.index("arch-unknown")]


def test_unknown_driver_is_said():
    choice = pick("linux", None, ["8.6"])
    assert choice.variant == "cu132" and "driver-unknown" in choice.warning_ids


def test_no_gpu_gets_the_small_cpu_build():
    choice = pick("linux", None, [])
    assert (choice.torch_version, choice.variant, choice.index_url) == ("2.15.0", "cpu", CPU_INDEX)
    assert choice.command == f"pip install torch==2.15.0 --index-url {CPU_INDEX}"


def test_macos_apple_silicon_uses_plain_pypi():
    choice = pick("macos", arch="arm64")
    assert (choice.command, choice.index_url, choice.variant) == ("pip install torch==2.15.0", None, "mps")
    assert pick("Darwin").variant == "mps"   # arch unknown: Apple Silicon assumed


def test_macos_intel_stops_at_2_2_2():
    choice = pick("macos", arch="x86_64", python="3.11")
    assert choice.torch_version == "2.2.2" and choice.command == 'pip install torch==2.2.2 "numpy<2"'
    assert pick("macos", arch="x86_64", python="3.13").problem == "python-unsupported"


def test_cuda_flags_on_a_mac_are_explained_not_obeyed():
    choice = pick("macos", "580.65.06", ["8.6"], arch="arm64")
    assert choice.variant == "mps" and "mac-no-cuda" in choice.warning_ids


def test_python_too_new_and_too_old():
    choice = pick("linux", "580.65.06", ["8.6"], python="3.16")
    assert choice.command is None and choice.problem == "python-unsupported" and "3.16" in choice.reason
    # Older than every release: name the last one it had, and the way out (a newer Python).
    choice = pick("linux", "580.65.06", ["8.6"], python="3.7")
    assert choice.command is None and choice.problem == "python-too-old"
    assert "torch 1.13.1" in choice.reason and "newer Python" in choice.reason
    assert pick("linux", None, [], python="3.6").problem == "python-too-old"
    # 3.9 (RHEL 9's) still has a release, the last one for it, with a note to move on.
    choice = pick("linux", None, [], python="3.9")
    assert choice.torch_version == "2.8.0" and "python-limits" in choice.warning_ids


def test_python_3_10_misses_2_15_and_is_told_why():
    choice = pick("linux", "580.65.06", ["8.9"], python="3.10")
    assert (choice.torch_version, choice.variant) == ("2.14.1", "cu130")   # 2.14's PyPI default
    assert "python-limits" in choice.warning_ids


def test_old_gpu_with_too_new_python():
    # Kepler K80 (sm_37) only in cu118 builds up to 2.7, which stop at Python 3.13.
    choice = pick("linux", "580.65.06", ["3.7"], python="3.14")
    assert choice.problem == "python-unsupported" and "2.7.1" in choice.reason
    assert (pick("linux", "580.65.06", ["3.7"], python="3.12").torch_version, "cu118") == ("2.7.1", "cu118")


def test_amd_on_linux_gets_rocm():
    # 2.14's ROCm builds: 7.14 (RELEASE.md's stable ROCm) and 7.2; 2.15's are not confirmed.
    choice = pick("linux", gpu_vendor="amd")
    assert (choice.torch_version, choice.variant) == ("2.14.1", "rocm7.14")
    assert choice.command == "pip install torch==2.14.1 --index-url https://download.pytorch.org/whl/rocm7.14"
    assert "amd-gfx-unknown" in choice.warning_ids and "rocm-lags" in choice.warning_ids
    assert pick("linux", gpu_vendor="amd", amd_gfx=["gfx1151"]).variant == "rocm7.14"  # Strix Halo
    assert pick("linux", gpu_vendor="amd", amd_gfx=["gfx1103"]).variant == "rocm7.14"  # Radeon 780M, new in 7.14
    assert pick("linux", gpu_vendor="amd", amd_gfx=["gfx1100"]).uv_command \
        == "uv pip install torch==2.14.1 --torch-backend=rocm7.14"


def test_vega_gets_the_rocm_7_2_build_that_7_14_dropped():
    choice = pick("linux", gpu_vendor="amd", amd_gfx=["gfx906"])     # Radeon VII / MI50
    assert (choice.torch_version, choice.variant) == ("2.14.1", "rocm7.2")
    assert choice.command == "pip install torch==2.14.1 --index-url https://download.pytorch.org/whl/rocm7.2"


def test_amd_gpu_missing_from_every_rocm_list():
    choice = pick("linux", gpu_vendor="amd", amd_gfx=["gfx1010"])   # RDNA1: no build, no override
    assert choice.command is None and choice.problem == "gpu-unsupported" and "gfx1010" in choice.reason
    assert choice.cpu_fallback.endswith("/whl/cpu")


def test_an_rdna2_neighbour_gets_rocm_with_the_unofficial_override():
    choice = pick("linux", gpu_vendor="amd", amd_gfx=["gfx1031"])   # RX 6700 XT runs gfx1030 kernels
    assert choice.variant == "rocm7.14" and "hsa-override" in choice.warning_ids
    assert "HSA_OVERRIDE_GFX_VERSION=10.3.0" in " ".join(choice.warnings)


@pytest.mark.parametrize("version, expected", [("13.6", ("2.9.1", "mps")), ("12.7", ("2.4.1", "mps")),
                                               ("14.0", ("2.15.0", "mps")), ("11.2", ("2.11.0", "cpu"))])
def test_macos_version_picks_the_newest_torch_that_uses_the_gpu_there(version, expected):
    choice = pick("macos", arch="arm64", python="3.11", macos_version=version)
    assert (choice.torch_version, choice.variant) == expected


def test_macos_version_on_the_command_line(capsys):
    from wizard.cli import main

    assert main(["torch-command", "--macos-version", "13.6", "--python-version", "3.12", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["command"] == "pip install torch==2.9.1"
    assert main(["torch-command", "--macos-version", "thirteen"]) == 2
    assert main(["torch-command", "--macos-version", "13.6", "--os", "linux"]) == 2


def test_amd_on_windows_gets_cpu():
    choice = pick("windows", gpu_vendor="amd")
    assert (choice.variant, choice.index_url) == ("cpu", CPU_INDEX)
    assert "amd-no-rocm-here" in choice.warning_ids


def test_intel_arc_gets_the_xpu_build():
    choice = pick("windows", gpu_vendor="intel", python="3.12")
    assert choice.variant == "xpu" and choice.index_url == "https://download.pytorch.org/whl/xpu"
    assert choice.command == "pip install torch==2.14.1 --index-url https://download.pytorch.org/whl/xpu"
    assert "xpu-driver" in choice.warning_ids


def test_linux_arm_server_uses_the_aarch64_builds():
    choice = pick("linux", "580.65.06", ["12.1"], arch="aarch64")   # DGX Spark, GB10
    assert (choice.torch_version, choice.variant) == ("2.14.1", "cu130")
    assert choice.command == "pip install torch==2.14.1 --index-url https://download.pytorch.org/whl/cu130"
    assert pick("linux", "580.65.06", ["6.1"], arch="aarch64").problem == "gpu-too-old"
    # 2.15 has no confirmed aarch64 CUDA build: said as such, not as "no kernels for your GPU".
    assert "cuda-lags" in choice.warning_ids and "gpu-limits" not in choice.warning_ids
    assert "linux-aarch64" in " ".join(choice.warnings)


def test_python_3_10_on_windows_keeps_the_pypi_default_cuda_of_2_14():
    # 2.15 needs Python 3.11; for 2.14.1 the preferred build stays CUDA 13.0 (PyPI's Linux default),
    # on Windows too, where PyPI itself is CPU-only.
    for os_name in ("windows", "linux"):
        choice = pick(os_name, "580.97", ["8.9"], python="3.10")
        assert (choice.torch_version, choice.variant) == ("2.14.1", "cu130"), os_name


def test_linux_arm_with_an_unknown_gpu_is_told_the_range_the_arm_build_covers():
    choice = pick("linux", "580.95.05", [], arch="aarch64", gpu_vendor="nvidia")
    assert (choice.torch_version, choice.variant) == ("2.14.1", "cu130")
    assert "arch-unknown-range" in choice.warning_ids and "arch-unknown-covered" not in choice.warning_ids
    note = choice.warnings[choice.warning_ids.index("arch-unknown-range")]
    assert "sm_80" in note and "sm_120" in note and "Maxwell" not in note


def test_linux_arm_without_a_gpu_gets_the_cpu_index_not_plain_pypi():
    # Plain PyPI on Linux aarch64 is a CUDA build since 2.11 (test-infra #7869): the CPU build
    # has to come from the cpu index.
    choice = pick("linux", arch="aarch64")
    assert choice.variant == "cpu"
    assert choice.command == "pip install torch==2.15.0 --index-url https://download.pytorch.org/whl/cpu"


def test_chinese_text():
    choice = pick("linux", "570.124.06", ["12.0"], lang="zh")
    assert "驱动" in choice.warnings[0] and "torch 2.11.0" in choice.reason


def test_bad_input_raises_value_error():
    with pytest.raises(ValueError):
        choose_torch("beos")
    with pytest.raises(ValueError):
        choose_torch("linux", None, ["banana"])
    with pytest.raises(ValueError):
        choose_torch("linux", "abc", ["8.6"])


# ---------------------------------------------------------------------------------------------
# The command line


def run_cli(capsys, *argv):
    code = main(["torch-command", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_described_machine_json(capsys):
    code, out, err = run_cli(capsys, "--os", "linux", "--driver", "570.124.06", "--compute-capability", "12.0",
                             "--python-version", "3.12", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert {"command", "index_url", "variant", "torch_version", "reason", "warnings"} <= set(data)
    assert data["command"] == "pip install torch==2.11.0 --index-url https://download.pytorch.org/whl/cu128"
    assert data["variant"] == "cu128" and data["torch_version"] == "2.11.0"


def test_cli_nothing_fits_exits_1(capsys):
    code, out, _ = run_cli(capsys, "--os", "linux", "--compute-capability", "3.5", "--driver", "580.65.06",
                           "--json")
    assert code == 1
    data = json.loads(out)
    assert data["command"] is None and "sm_35" in data["reason"]


def test_cli_text_output(capsys):
    code, out, _ = run_cli(capsys, "--os", "windows", "--driver", "566.36", "--compute-capability", "8.9",
                           "--python-version", "3.12", "--lang", "en")
    assert code == 0
    assert "    pip install torch==2.14.1 --index-url https://download.pytorch.org/whl/cu126\n" in out
    assert "uv pip install torch==2.14.1 --torch-backend=cu126" in out


@pytest.mark.parametrize("argv, word", [
    (["--compute-capability", "banana"], "banana"),
    (["--compute-capability", "8.6", "--compute-capability", "86"], "86"),
    (["--driver", "latest"], "latest"),
    (["--python-version", "three"], "three"),
    (["--os", "beos"], "beos"),
])
def test_cli_bad_values_are_one_line_and_exit_2(capsys, argv, word):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and word in err and "Traceback" not in err


def test_cli_recorded_machine(capsys, tmp_path):
    report = tmp_path / "machine.toml"
    report.write_text(textwrap.dedent("""
        [machine]
        os = "Linux"
        os_version = "Ubuntu 22.04"
        arch = "x86_64"
        python_version = "3.11.7"
        cpu_model = "Intel Core i7-8700K"
        cpu_cores = 6
        cpu_threads = 12
        ram_gb = 31.3
        disk_free_gb = 120.0
        chassis = "desktop"

        [machine.nvidia]
        status = "ok"
        driver_version = "550.144.03"
        cuda_driver_version = "12.4"

        [[machine.gpus]]
        vendor = "nvidia"
        name = "NVIDIA GeForce GTX 1080 Ti"
        source = "nvml"
        compute_capability = "6.1"

        [machine.torch]
        status = "ok"
        version = "2.8.0+cu128"
        build = "cuda"
        cuda_version = "12.8"
        python_version = "3.12.4"
    """), encoding="utf-8")
    code, out, _ = run_cli(capsys, "--machine", str(report), "--json")
    assert code == 0
    data = json.loads(out)
    # Pascal + driver 550: cu126 of 2.14 (the probed interpreter's Python 3.12 counts).
    assert data["command"] == "pip install torch==2.14.1 --index-url https://download.pytorch.org/whl/cu126"


def test_cli_unreadable_machine_file(capsys, tmp_path):
    code, out, err = run_cli(capsys, "--machine", str(tmp_path / "missing.toml"))
    assert code == 2 and "missing.toml" in err and err.count("\n") == 1


def test_cli_live_mode_answers(tmp_path):
    # Whatever this machine is, live mode must answer with the JSON shape and a matching exit code.
    proc = subprocess.run([sys.executable, "-m", "wizard", "torch-command", "--json"], capture_output=True,
                          text=True, timeout=60, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    assert proc.returncode in (0, 1), proc.stderr
    data = json.loads(proc.stdout)
    assert (data["command"] is None) == (proc.returncode == 1)
    assert {"command", "index_url", "variant", "torch_version", "reason", "warnings"} <= set(data)


def test_cli_live_mode_with_python_installs_into_that_interpreter(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "wizard", "torch-command", "--json", "--python", sys.executable],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    data = json.loads(proc.stdout)
    if data["command"] is not None:
        assert sys.executable in data["command"] and " -m pip install torch==" in data["command"]


@pytest.mark.parametrize("name, cc", [
    ("GeForce GTX 970", "5.2"), ("NVIDIA GeForce GTX 1080 Ti", "6.1"), ("NVIDIA GeForce GTX 1650", "7.5"),
    ("NVIDIA GeForce RTX 3060", "8.6"), ("NVIDIA GeForce RTX 4060 Laptop GPU", "8.9"),
    ("NVIDIA GeForce RTX 5090", "12.0"), ("NVIDIA H200", "9.0"), ("NVIDIA A100-SXM4-80GB", "8.0"),
    ("Tesla V100-SXM2-16GB", "7.0"), ("Matrox G200", None),
])
def test_product_names_imply_a_compute_capability(name, cc):
    from wizard.pytorch.choose import guess_compute_capability

    assert guess_compute_capability(name) == cc


def test_a_card_without_driver_or_catalog_entry_gets_a_build_with_its_kernels():
    """The recorded GTX 970 on nouveau: no NVML, not in the catalog; cu132 has no sm_52."""
    from tests.recorded import machine
    from wizard.pytorch.choose import choose_for_machine

    choice = choose_for_machine(machine("nouveau"))
    assert choice.variant == "cu126"


@pytest.mark.parametrize("value", ["99.9", "0.5", "banana", "8", "8.10"])
def test_impossible_compute_capabilities_are_bad_arguments(value, capsys):
    assert main(["torch-command", "--compute-capability", value]) == 2
    assert value in capsys.readouterr().err


def test_an_old_driver_is_told_which_update_unlocks_the_newest_build_for_its_gpu():
    choice = choose_torch("linux", driver="470.1", compute_capabilities=["6.1"], python_version="3.11")
    assert (choice.torch_version, choice.variant) == ("2.7.1", "cu118")
    text = " ".join(choice.warnings)
    assert "torch 2.14.1 with cu126" in text and "525.60.13" in text


# ---------------------------------------------------------------------------------------------
# Mirrors in mainland China: printed in Chinese only


TUNA = "https://pypi.tuna.tsinghua.edu.cn/simple"


def test_cli_english_has_no_mirror_lines(capsys):
    code, out, _ = run_cli(capsys, "--os", "linux", "--driver", "550.54.15", "--compute-capability", "8.6",
                           "--python-version", "3.12", "--lang", "en")
    assert code == 0
    assert "mirror" not in out.lower() and "tuna" not in out and "sjtu" not in out


def test_cli_chinese_prints_the_mirror_lines_unwrapped(capsys):
    # cu126 (driver 550): PyPI's own 2.14.1 is CUDA 13.0, so only the wheel mirror serves it.
    code, out, _ = run_cli(capsys, "--os", "linux", "--driver", "550.54.15", "--compute-capability", "8.6",
                           "--python-version", "3.12", "--lang", "zh")
    assert code == 0
    assert "    pip install torch==2.14.1 --index-url https://download.pytorch.org/whl/cu126\n" in out
    assert "    pip install torch==2.14.1 --index-url https://mirror.sjtu.edu.cn/pytorch-wheels/cu126\n" in out
    assert "上海交通大学镜像" in out and "3.0 GB" in out and "2026-11-30" in out
    assert TUNA not in out                  # PyPI's build would be the wrong one (cu130)
    assert out.index("sjtu.edu.cn") < out.index("原因")   # right under the install command


def test_cli_chinese_offers_the_pypi_mirror_when_pypi_has_this_very_build(capsys):
    code, out, _ = run_cli(capsys, "--os", "linux", "--driver", "580.95.05", "--compute-capability", "8.6",
                           "--python-version", "3.12", "--lang", "zh")
    assert code == 0 and "whl/cu132" in out
    assert f"    pip install torch==2.15.0 -i {TUNA}\n" in out and "清华大学" in out
    assert "pytorch-wheels/cu132" not in out and "pytorch/whl/cu132" not in out   # no mirror lists cu132


def test_cli_chinese_says_plainly_when_no_mirror_has_the_build(capsys):
    # Windows cu132: not on PyPI (Windows PyPI is CPU) and on no mirror's list.
    code, out, _ = run_cli(capsys, "--os", "windows", "--driver", "581.57", "--compute-capability", "8.9",
                           "--python-version", "3.12", "--lang", "zh")
    assert code == 0 and "whl/cu132" in out
    assert "都没有 torch 2.15.0 的 cu132 版" in out and "只能从 download.pytorch.org 下载" in out
    assert TUNA not in out and "sjtu.edu.cn" not in out
    code, out, _ = run_cli(capsys, "--os", "linux", "--gpu-vendor", "amd", "--amd-gfx", "gfx1100",
                           "--python-version", "3.12", "--lang", "zh")
    assert code == 0 and "的 rocm7.14 版" in out and "download.pytorch.org" in out


def test_cli_chinese_on_a_mac_points_at_the_pypi_mirror(capsys):
    code, out, _ = run_cli(capsys, "--os", "macos", "--python-version", "3.12", "--lang", "zh")
    assert code == 0 and f"    pip install torch==2.15.0 -i {TUNA}\n" in out


def test_cli_json_is_unchanged_by_the_mirror_lines(capsys):
    code, out, _ = run_cli(capsys, "--os", "linux", "--python-version", "3.12", "--lang", "zh", "--json")
    assert code == 0 and "tuna" not in out and "sjtu" not in out


@pytest.mark.parametrize("lang, word", [("en", "unknown"), ("zh", "未知")])
def test_what_nobody_knows_is_called_unknown_not_a_question_mark(capsys, lang, word):
    code = main(["--lang", lang, "torch-command", "--os", "linux", "--gpu-vendor", "amd"])
    out = capsys.readouterr().out
    assert code == 0 and word in out
    assert not re.search(r"(?:\s|\(|（|:|：)[?？](?:\s|\)|）|$)", out, flags=re.M), out


@pytest.mark.parametrize("name, key", [("rtx4090-cu128-healthy", "keep-works"),
                                       ("laptop-4060", "installed-not-gpu"),
                                       ("vm-no-gpu", None)])
def test_asked_for_a_command_it_first_says_whether_the_pytorch_there_is_worth_keeping(name, key, capsys):
    """"Keep your PyTorch" is an answer: the command is for another environment, or a change."""
    from tests.recorded import machine_path
    from wizard.text.i18n import t

    main(["torch-command", "--machine", str(machine_path(name)), "--lang", "en"])
    out = " ".join(capsys.readouterr().out.split())
    sentences = {k: " ".join(t(f"torch.command.{k}", "en", version="@").split()).split("@")[1][:40]
                 for k in ("keep-works", "installed-not-gpu", "installed-unknown")}
    said = [k for k, text in sentences.items() if text in out]
    assert said == ([key] if key else [])
    if key:   # said before the command, not after
        assert out.index(sentences[key]) < out.index(t("torch.command.command", "en"))
