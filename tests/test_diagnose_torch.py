"""Torch findings: each mismatch between the installed build and the machine, with its fix."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from wizard.probe.facts import Gpu, Machine, NvidiaInfo, TorchDevice, TorchInfo
from wizard.pytorch.causes import torch_findings
from wizard.text.i18n import has

CU12_LEGACY = ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90")
CU128_28 = ("sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")
NO_LIBRARY = NvidiaInfo(status="no-library")

# The fixes name versions of the frozen matrix (tests/data/torch_matrix.toml, tests/conftest.py).
pytestmark = pytest.mark.usefixtures("frozen_matrix")


def machine(*, os="Linux", arch="x86_64", gpus=(), nvidia=NO_LIBRARY, torch=None,
            os_version="Ubuntu 24.04") -> Machine:
    return Machine(os=os, os_version=os_version, arch=arch, python_version="3.12.4", cpu_model="CPU",
                   cpu_cores=8, cpu_threads=16, ram_gb=32.0, disk_free_gb=100.0, chassis="desktop",
                   nvidia=nvidia, gpus=tuple(gpus), torch=torch)


def nv(name, cc, driver="580.95.05"):
    return dict(gpus=[Gpu(vendor="nvidia", name=name, source="nvml", compute_capability=cc)],
                nvidia=NvidiaInfo(status="ok", driver_version=driver, cuda_driver_version="13.0"))


def torch(**kw) -> TorchInfo:
    base = dict(status="ok", interpreter="/usr/bin/python3", version="2.13.0+cpu", build="cpu",
                cuda_available=False, mps_available=False, device_count=0, python_version="3.12.4")
    base.update(kw)
    return TorchInfo(**base)


def ids(findings):
    return [f.id for f in findings]


def only(findings, fid):
    found = [f for f in findings if f.id == fid]
    assert len(found) == 1, ids(findings)
    return found[0]


def test_cpu_build_next_to_a_working_nvidia_gpu():
    m = machine(**nv("NVIDIA GeForce RTX 4060 Laptop GPU", "8.9"), torch=torch())
    f = only(torch_findings(m), "torch-cpu-build-with-nvidia-gpu")
    assert f.severity == "error"
    assert "RTX 4060" in f.detail
    assert f.fix.endswith("pip install torch==2.15.0 --index-url https://download.pytorch.org/whl/cu132")


def test_cpu_build_finding_states_the_download_sizes():
    m = machine(**nv("NVIDIA GeForce RTX 4060", "8.9"), torch=torch())
    detail = only(torch_findings(m), "torch-cpu-build-with-nvidia-gpu").detail
    assert "3,005 MB" in detail and "192 MB" in detail   # content/torch_matrix.toml [[sizes]]


def test_cuda_build_without_any_gpu_explains_its_size():
    m = machine(torch=torch(version="2.14.1+cu130", build="cuda", cuda_version="13.0",
                            install_size_mb=5538.6, torch_size_mb=1204.6, libraries_size_mb=4334.0))
    findings = torch_findings(m)
    assert ids(findings) == ["torch-cuda-build-without-gpu"] and findings[0].severity == "info"
    assert "5,539 MB" in findings[0].detail and "4,334 MB" in findings[0].detail
    assert findings[0].fix.endswith("pip install torch==2.15.0 --index-url https://download.pytorch.org/whl/cpu")


def test_cpu_build_with_a_gpu_whose_driver_is_missing_is_a_warning():
    m = machine(gpus=[Gpu(vendor="nvidia", name="NVIDIA GeForce GTX 1650", source="pci")],
                nvidia=NvidiaInfo(status="no-library"), torch=torch())
    f = only(torch_findings(m), "torch-cpu-build-with-nvidia-gpu")
    assert f.severity == "warning" and "driver" in f.detail


def test_rtx_50_on_cu126_has_no_kernels():
    m = machine(**nv("NVIDIA GeForce RTX 5090", "12.0", "570.124.06"),
                torch=torch(version="2.7.1+cu126", build="cuda", cuda_version="12.6", arch_list=CU12_LEGACY))
    f = only(torch_findings(m), "torch-gpu-arch-missing")
    assert f.severity == "error" and "sm_120" in f.detail and "sm_90" in f.detail
    assert f.fix.endswith("pip install torch==2.11.0 --index-url https://download.pytorch.org/whl/cu128")


def test_pascal_on_cu128_has_no_kernels():
    m = machine(**nv("NVIDIA GeForce GTX 1080 Ti", "6.1", "575.64.03"),
                torch=torch(version="2.8.0+cu128", build="cuda", cuda_version="12.8", arch_list=CU128_28))
    f = only(torch_findings(m), "torch-gpu-arch-missing")
    assert "sm_61" in f.detail
    assert f.fix.endswith("pip install torch==2.14.1 --index-url https://download.pytorch.org/whl/cu126")


def test_ada_runs_ampere_code_so_nothing_is_wrong():
    m = machine(**nv("NVIDIA GeForce RTX 4090", "8.9"),
                torch=torch(version="2.9.1+cu128", build="cuda", cuda_version="12.8", arch_list=CU128_28,
                            cuda_available=True, device_count=1,
                            devices=(TorchDevice("NVIDIA GeForce RTX 4090", "8.9", 23.5),)))
    findings = torch_findings(m)
    assert ids(findings) == ["torch-ready"] and findings[0].severity == "ok"
    assert "RTX 4090" in findings[0].detail


def test_torchs_own_incompatibility_warning_counts_without_an_arch_list():
    m = machine(**nv("NVIDIA GeForce RTX 5070", "12.0"),
                torch=torch(version="2.6.0+cu124", build="cuda", cuda_version="12.4", cuda_available=True,
                            torch_warnings=("NVIDIA GeForce RTX 5070 with CUDA capability sm_120 is not "
                                            "compatible with the current PyTorch installation.",)))
    assert "torch-gpu-arch-missing" in ids(torch_findings(m))


def test_ptx_only_is_a_warning():
    m = machine(**nv("NVIDIA B300", "10.3"),
                torch=torch(version="2.7.1+cu118", build="cuda", cuda_version="11.8",
                            arch_list=("sm_80", "sm_90", "compute_90")))
    f = only(torch_findings(m), "torch-gpu-arch-ptx-only")
    assert f.severity == "warning"


def test_driver_older_than_the_build_needs():
    m = machine(**nv("NVIDIA GeForce RTX 3060", "8.6", "550.144.03"),
                torch=torch(version="2.13.0", build="cuda", cuda_version="13.0",
                            arch_list=("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")))
    f = only(torch_findings(m), "torch-driver-too-old")
    assert f.severity == "error" and "580" in f.detail and "550.144.03" in f.detail
    # Either update the driver, or the build that fits this driver (cu126, CUDA 12.6).
    assert f.fix.endswith("pip install torch==2.14.1 --index-url https://download.pytorch.org/whl/cu126")
    assert "torch-cuda-not-available" not in ids(torch_findings(m))


def test_windows_driver_floor_is_windows_own():
    m = machine(os="Windows", os_version="Windows 11", **nv("NVIDIA GeForce RTX 4060", "8.9", "528.24"),
                torch=torch(version="2.7.1+cu126", build="cuda", cuda_version="12.6", arch_list=CU12_LEGACY))
    assert "528.33" in only(torch_findings(m), "torch-driver-too-old").detail


def test_rocm_build_on_nvidia_and_cuda_build_on_amd():
    m = machine(**nv("NVIDIA GeForce RTX 3080", "8.6"),
                torch=torch(version="2.9.1+rocm6.4", build="rocm", hip_version="6.4"))
    assert only(torch_findings(m), "torch-rocm-build-on-nvidia").fix.endswith("/whl/cu132")
    m = machine(gpus=[Gpu(vendor="amd", name="AMD Radeon RX 7900 XTX", source="pci", vram_gb=24.0)],
                torch=torch(version="2.13.0", build="cuda", cuda_version="13.0"))
    assert only(torch_findings(m), "torch-cuda-build-on-amd").fix.endswith("/whl/rocm7.14")


def test_cuda_build_that_cannot_see_a_working_gpu():
    m = machine(**nv("NVIDIA A100-SXM4-80GB", "8.0"),
                torch=torch(version="2.13.0", build="cuda", cuda_version="13.0",
                            arch_list=("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"),
                            torch_warnings=("CUDA initialization: Unexpected error from cudaGetDeviceCount()",)))
    f = only(torch_findings(m), "torch-cuda-not-available")
    assert f.severity == "error"   # a GPU PyTorch could use, and it cannot: an error, not a warning
    assert "cudaGetDeviceCount" in f.detail


def test_cuda_unknown_error_is_the_driver_state_not_the_environment():
    warning = ("CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up environment, "
               "e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the available "
               "devices to be zero.")
    m = machine(**nv("NVIDIA GeForce RTX 3070 Laptop GPU", "8.6"),
                torch=torch(version="2.13.0+cu130", build="cuda", cuda_version="13.0",
                            arch_list=("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"),
                            torch_warnings=(warning,)))
    f = only(torch_findings(m), "torch-cuda-unknown-error")
    assert f.severity == "error"
    assert "nvidia_uvm" in f.fix and "/dev/nvidia-uvm" in f.fix
    assert "pip install" not in f.fix                       # never "reinstall" for a driver state
    assert "torch-cuda-not-available" not in ids(torch_findings(m))


APPLE = dict(os="Darwin", arch="arm64", os_version="macOS 15.1",
             gpus=[Gpu(vendor="apple", name="Apple M2", source="system_profiler", unified_memory=True)])


def test_apple_silicon_with_an_intel_python():
    m = machine(**APPLE, torch=torch(version="2.2.2", build="cpu", python_arch="x86_64", mps_built=False))
    f = only(torch_findings(m), "torch-mac-rosetta-python")
    assert f.severity == "error" and "arm64" in f.fix + f.detail


def test_apple_silicon_torch_without_mps():
    m = machine(**APPLE, torch=torch(version="2.13.0", build="cpu", python_arch="arm64", mps_built=False))
    assert only(torch_findings(m), "torch-mps-not-built").fix.endswith("pip install torch==2.15.0")


def test_apple_silicon_mps_unavailable_on_old_macos():
    # torch 2.13 uses the Apple GPU only on macOS 14: the cause is the macOS, and the fix names
    # the newest torch that still uses the GPU on 12.x (2.4.1, MPS from macOS 12.3) or the update.
    m = machine(**{**APPLE, "os_version": "macOS 12.7.6"},
                torch=torch(version="2.13.0", build="mps", python_arch="arm64", mps_built=True))
    f = only(torch_findings(m), "torch-macos-too-old")
    assert f.severity == "error" and "12.7" in f.detail and "14.0" in f.detail
    assert f.fix.endswith("pip install torch==2.4.1")


def test_apple_silicon_mps_unavailable_on_a_current_macos():
    m = machine(**{**APPLE, "os_version": "macOS 15.1"},
                torch=torch(version="2.13.0", build="mps", python_arch="arm64", mps_built=True))
    f = only(torch_findings(m), "torch-mps-unavailable")
    assert f.severity == "error" and "15.1" in f.detail


def test_apple_silicon_working():
    m = machine(**APPLE, torch=torch(version="2.13.0", build="mps", python_arch="arm64", mps_built=True,
                                     mps_available=True))
    assert ids(torch_findings(m)) == ["torch-ready"]


@pytest.mark.parametrize("info, fid, severity", [
    (TorchInfo(status="not-installed", interpreter="/usr/bin/python3"), "torch-not-installed", "info"),
    (TorchInfo(status="timeout", error_line="no answer within 25 s"), "torch-timeout", "warning"),
    (TorchInfo(status="crashed", version="2.9.1+cu128", error_line="SIGSEGV"), "torch-crashed", "error"),
    (TorchInfo(status="crashed", error_line="SIGILL"), "torch-crashed-cpu", "error"),
    (TorchInfo(status="import-error", version="2.9.1+cu128",
               error_line="OSError: libcudnn.so.9: cannot open shared object file: No such file or directory"),
     "torch-import-error", "error"),
    (TorchInfo(status="import-error", error_line="'torch' here is not PyTorch: /home/u/torch.py"),
     "torch-shadowed", "error"),
])
def test_probe_failures(info, fid, severity):
    m = machine(**nv("NVIDIA GeForce RTX 3060", "8.6"), torch=info)
    findings = torch_findings(m)
    assert ids(findings) == [fid] and findings[0].severity == severity


def test_import_error_fix_reinstalls_the_fitting_build():
    m = machine(**nv("NVIDIA GeForce RTX 3060", "8.6"),
                torch=TorchInfo(status="import-error", version="2.9.1+cu128",
                                error_line="OSError: libcudnn.so.9: cannot open shared object file"))
    f = torch_findings(m)[0]
    assert "libcudnn.so.9" in f.detail
    assert f.fix.endswith("pip install --force-reinstall torch==2.15.0 --index-url "
                          "https://download.pytorch.org/whl/cu132")


def test_not_installed_gets_the_install_command():
    m = machine(torch=TorchInfo(status="not-installed", interpreter="/usr/bin/python3", python_version="3.12.4"))
    f = torch_findings(m)[0]
    assert f.fix == "pip install torch==2.15.0 --index-url https://download.pytorch.org/whl/cpu"


def test_cpu_build_without_any_gpu_is_fine():
    findings = torch_findings(machine(torch=torch()))
    assert ids(findings) == ["torch-cpu-only"] and findings[0].severity == "info"


def test_no_torch_probe_no_findings():
    assert torch_findings(machine()) == []


def test_every_finding_has_both_languages_and_kebab_ids():
    cases = [
        machine(**nv("NVIDIA GeForce RTX 4060", "8.9"), torch=torch()),
        machine(**nv("NVIDIA GeForce RTX 5090", "12.0", "570.124.06"),
                torch=torch(version="2.7.1+cu126", build="cuda", cuda_version="12.6", arch_list=CU12_LEGACY)),
        machine(**APPLE, torch=torch(version="2.2.2", python_arch="x86_64")),
        machine(**nv("NVIDIA GeForce RTX 3060", "8.6", "450.80.02"),
                torch=torch(version="2.13.0", build="cuda", cuda_version="13.0", arch_list=("sm_86",))),
        machine(torch=torch(version="2.14.1", build="cuda", cuda_version="13.0", install_size_mb=5538.6,
                            libraries_size_mb=4334.0)),
        machine(**nv("NVIDIA GeForce RTX 3060", "8.6"),
                torch=TorchInfo(status="import-error", error_line="OSError: libcudnn.so.9: cannot open")),
    ]
    for m in cases:
        en, zh = torch_findings(m, "en"), torch_findings(m, "zh")
        assert ids(en) == ids(zh)
        for f_en, f_zh in zip(en, zh):
            assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", f_en.id)
            assert has(f"torch.findings.{f_en.id}.title", "zh") and has(f"torch.findings.{f_en.id}.title", "en")
            assert f_en.title != f_zh.title
            assert re.search(r"[\u4e00-\u9fff]", f_zh.title + f_zh.detail)
            assert "{" not in f_en.title + f_en.detail + f_en.fix + f_zh.title + f_zh.detail + f_zh.fix


def test_redacted_machine_still_diagnoses():
    m = machine(**nv("NVIDIA GeForce RTX 4060", "8.9"), torch=replace(torch(), interpreter="python3"))
    assert "torch-cpu-build-with-nvidia-gpu" in ids(torch_findings(m))


def test_a_present_but_unusable_gpu_is_not_called_absent_and_macs_are_told_mps():
    from tests.recorded import machine
    from wizard.pytorch.causes import torch_findings

    nouveau = [f.id for f in torch_findings(machine("nouveau"), "en")]
    assert "torch-gpu-not-usable-yet" in nouveau and "torch-cpu-only" not in nouveau
    [ready] = [f for f in torch_findings(machine("apple-m2"), "en") if f.id == "torch-ready"]
    assert '.to("mps")' in ready.detail and "cuda" not in ready.detail
    vm = [f.id for f in torch_findings(machine("vm-no-gpu"), "en")]
    assert "torch-gpu-not-usable-yet" not in vm
