"""The diagnosis on real broken machines: every recorded machine of tests/machines gets its true
cause as the one error it names, and the verdict never contradicts itself.

The machines come from public bug threads (named in each file); a category is right when the
cause the thread found is the finding gpu-wizard leads with, with the fix the thread needed.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import replace

import pytest

from tests.recorded import MACHINE_NAMES, MACHINES
from wizard.cli import main
from wizard.diagnosis.diagnose import diagnose
from wizard.diagnosis.findings import worst
from wizard.probe.facts import Machine, machine_from_dict


def load(stem: str) -> Machine:
    with (MACHINES / f"{stem}.toml").open("rb") as fh:
        return machine_from_dict(tomllib.load(fh)["machine"])


def errors(findings) -> list[str]:
    return [f.id for f in findings if f.severity == "error"]


# stem → (the one error it must lead with, or None for a healthy machine; words its fix must hold)
EXPECTED = {
    "amd-rx6800-cpu-torch": ("torch-cpu-build-with-amd-gpu", ["/whl/rocm"]),
    "amd-rx6700xt-rocm-gfx1031": ("torch-rocm-gfx-missing-override", ["HSA_OVERRIDE_GFX_VERSION=10.3.0"]),
    "amd-rx5700xt-rocm-gfx1010": ("torch-rocm-gfx-unsupported", ["/whl/cpu"]),
    "intel-arc-a770-cpu-torch": ("torch-cpu-build-with-intel-gpu", ["/whl/xpu"]),
    "intel-arc-xpu-no-driver": ("torch-xpu-not-available", ["driver"]),
    "nvidia-driver410-cu101": ("torch-driver-too-old", ["418.39"]),
    "nvidia-r470-cu12": ("torch-driver-too-old", ["525.60.13"]),
    "nvidia-r565-cu130": ("torch-driver-too-old", ["580"]),
    "nvidia-cuda-unknown-error": ("torch-cuda-unknown-error", ["nvidia_uvm", "/dev/nvidia-uvm"]),
    "container-no-gpus-flag": ("container-without-gpu-access", ["--gpus all"]),
    "container-no-gpu": ("container-without-gpu-access", ["--gpus all"]),
    "wsl-no-windows-driver": ("wsl-nvidia-library-missing", ["Windows"]),
    "mac-rosetta-python": ("torch-mac-rosetta-python", ["native"]),
    "pascal-cu128-linux": ("torch-gpu-arch-missing", ["/whl/cu126"]),
    "desktop-1080ti": ("torch-gpu-arch-missing", ["/whl/cu126"]),
    "laptop-4060": ("torch-cpu-build-with-nvidia-gpu", ["/whl/cu"]),
    "nouveau": ("nvidia-nouveau-bound", ["NVIDIA's own driver"]),
    "version-mismatch": ("nvidia-version-mismatch", ["Reboot"]),
    # Issue 26: the categories the private set of 38 missed.
    "win-gtx950-disabled": ("nvidia-gpu-disabled", ["Enable device", "Device Manager"]),
    "linux-rtx5090-rebar-off": ("nvidia-gpu-not-initialised", ["Above 4G Decoding", "Resizable BAR"]),
    "cuda-visible-devices-missing-gpu": ("torch-visible-devices-nowhere", ["CUDA_VISIBLE_DEVICES=0"]),
    "a100-mig-no-slice-selected": ("torch-mig-not-selected",
                                   ["CUDA_VISIBLE_DEVICES=MIG-00000000-0000-0000-0000-000000000000"]),
    "ld-library-path-cuda121": ("torch-library-path-shadow", ["unset LD_LIBRARY_PATH", "Do not reinstall"]),
    "jetson-orin-pypi-torch": ("torch-jetson-wrong-build", ["install-pytorch-jetson-platform"]),
    "centos7-glibc217": ("torch-glibc-too-old", ["Upgrade the operating system", "2.28"]),
    "wsl-amd-rocm-pytorch-index": ("torch-rocm-wsl-not-available", ["repo.radeon.com"]),
    "amd-rx6800-python37": ("torch-python-no-gpu-build", ["Python 3.12"]),
    "secure-boot-mok-not-enrolled": ("nvidia-secure-boot-blocked", ["mokutil --import", "Enroll MOK"]),
    "rtx4090-cu128-healthy": (None, []),
    "pascal-cu128-windows": (None, []),
    "h200-server": (None, []),
    "wsl2": (None, []),
    "apple-m2": (None, []),
}


def test_every_recorded_machine_has_an_expected_verdict():
    stems = set(MACHINE_NAMES)
    assert set(EXPECTED) <= stems
    # Machines that are not on the list are the ones without a GPU problem to name.
    assert stems - set(EXPECTED) == {"vm-no-gpu", "amd-rx7900", "mac-os13-torch212"}


@pytest.mark.parametrize("stem", sorted(EXPECTED))
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_true_cause_leads(stem, lang):
    findings = diagnose(load(stem), lang)
    cause, words = EXPECTED[stem]
    if cause is None:
        assert worst(findings) in ("ok", "info"), [(f.id, f.severity) for f in findings]
        assert any(f.id == "torch-ready" for f in findings)
        return
    assert errors(findings) == [cause], [(f.id, f.severity) for f in findings]
    assert findings[0].id == cause
    if lang == "en":
        for word in words:
            assert word in findings[0].fix + findings[0].detail, (word, findings[0].fix)


@pytest.mark.parametrize("stem", MACHINE_NAMES)
def test_the_verdict_never_contradicts_itself(stem):
    findings = diagnose(load(stem))
    ids = [f.id for f in findings]
    if errors(findings):
        assert not [f for f in findings if f.severity == "ok"], ids   # never "ready" beside an error
    if "torch-gpu-not-usable-yet" in ids:  # "...until the problem above is fixed": one is above
        assert any(f.severity in ("error", "warning") for f in findings[:ids.index("torch-gpu-not-usable-yet")])
    assert len(ids) == len(set(ids)), ids


@pytest.mark.parametrize("stem", sorted(EXPECTED))
def test_check_exit_status_follows_the_verdict(stem, capsys):
    status = main(["check", "--machine", str(MACHINES / f"{stem}.toml"), "--lang", "en"])
    out = capsys.readouterr().out
    if EXPECTED[stem][0] is None:
        assert status == 0 and "No problems found." in out
    else:
        assert status == 1 and "No problems found." not in out


def test_never_reinstall_for_a_driver_state():
    (finding,) = [f for f in diagnose(load("nvidia-cuda-unknown-error")) if f.severity == "error"]
    assert "pip install" not in finding.fix and "CUDA_VISIBLE_DEVICES" not in finding.fix


def test_never_a_driver_install_inside_a_container():
    for stem in ("container-no-gpus-flag", "container-no-gpu"):
        text = " ".join(f.title + f.detail + f.fix for f in diagnose(load(stem)))
        assert "ubuntu-drivers" not in text and "Install NVIDIA's driver" not in text


def test_the_driver_floor_before_cuda_11_is_the_exact_version():
    # 410.48 supports CUDA 10.0 exactly; a CUDA 10.1 build needs 418.39 (no minor-version
    # compatibility before CUDA 11), so the driver is too old although the majors match.
    m = load("nvidia-driver410-cu101")
    m = replace(m, torch=replace(m.torch, torch_warnings=()))  # the floor alone must decide
    (finding,) = [f for f in diagnose(m) if f.severity == "error"]
    assert finding.id == "torch-driver-too-old" and "418.39" in finding.detail


def test_torch_saying_found_version_is_enough_without_the_driver_version():
    m = load("nvidia-r565-cu130")
    m = replace(m, nvidia=replace(m.nvidia, driver_version=None))
    (finding,) = [f for f in diagnose(m) if f.severity == "error"]
    assert finding.id == "torch-driver-too-old-said" and "12.7" in finding.detail


def test_a_pascal_card_on_windows_cu128_is_judged_by_its_own_arch_list():
    # Windows' torch 2.8+cu128 still carries sm_61 while Linux's does not: the recorded arch
    # list (and the GPU test) decide, not the variant's name.
    win, linux = load("pascal-cu128-windows"), load("pascal-cu128-linux")
    assert win.torch.cuda_version == linux.torch.cuda_version
    assert not errors(diagnose(win)) and errors(diagnose(linux)) == ["torch-gpu-arch-missing"]


def test_the_gpu_test_is_ground_truth_when_the_arch_list_is_unreadable():
    m = load("pascal-cu128-linux")
    m = replace(m, torch=replace(m.torch, arch_list=(), torch_warnings=()))
    assert errors(diagnose(m)) == ["torch-gpu-arch-missing"]


def test_rocm_gfx_missing_is_found_by_the_gpu_test_alone():
    m = load("amd-rx6700xt-rocm-gfx1031")
    m = replace(m, torch=replace(m.torch, arch_list=()))
    assert errors(diagnose(m)) == ["torch-rocm-gfx-missing-override"]


def test_no_override_is_ever_suggested_for_rdna1_or_vega():
    for gfx, pci in (("gfx1010", "1002:731f"), ("gfx906", "1002:66af")):
        m = load("amd-rx5700xt-rocm-gfx1010")
        m = replace(m, gpus=(replace(m.gpus[0], gfx_target=gfx, pci_id=pci),),
                    torch=replace(m.torch, devices=(replace(m.torch.devices[0], capability=gfx),)))
        text = " ".join(f.detail + f.fix for f in diagnose(m))
        assert "HSA_OVERRIDE_GFX_VERSION" not in text, gfx


def test_an_rdna3_apu_neighbour_gets_the_rdna3_override():
    m = load("amd-rx6700xt-rocm-gfx1031")
    m = replace(m, gpus=(replace(m.gpus[0], gfx_target="gfx1103"),),
                torch=replace(m.torch, devices=(replace(m.torch.devices[0], capability="gfx1103"),)))
    (finding,) = [f for f in diagnose(m) if f.severity == "error"]
    assert "HSA_OVERRIDE_GFX_VERSION=11.0.0" in finding.fix


def test_a_macos13_mac_is_offered_the_newest_torch_that_uses_its_gpu():
    status_json = json.loads(_run_json(["torch-command", "--machine", str(MACHINES / "mac-os13-torch212.toml"),
                                        "--json"]))
    # 2.9 is the last series whose MPS runs on macOS 13; its newest patch is content/'s.
    from wizard.pytorch.matrix import load_matrix

    newest_2_9 = load_matrix().release("2.9").version
    assert status_json["command"].endswith(f"-m pip install torch=={newest_2_9}")   # into the Python checked
    assert status_json["variant"] == "mps"


def _run_json(argv: list[str]) -> str:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(argv)
    return out.getvalue()


def test_an_unknown_cuda_error_is_not_blamed_on_cuda_visible_devices():
    findings = diagnose(load("nvidia-cuda-unknown-error"))
    assert "torch-cuda-not-available" not in [f.id for f in findings]


def test_cuda_visible_devices_hiding_every_gpu_is_named():
    m = load("nvidia-cuda-unknown-error")
    m = replace(m, torch=replace(m.torch, torch_warnings=(), visible_devices_env=("CUDA_VISIBLE_DEVICES=",),
                                 device_count=0))
    (finding,) = [f for f in diagnose(m) if f.severity == "error"]
    assert finding.id == "torch-gpus-hidden" and "unset CUDA_VISIBLE_DEVICES" in finding.fix


def test_an_apu_beside_a_radeon_card_is_named_with_the_way_round_it():
    from wizard.probe.facts import Gpu

    m = load("amd-rx7900")   # the same desktop's Raphael iGPU (1002:164e, in the real rocm-smi output)
    raphael = Gpu(vendor="amd", name="Raphael", source="pci", pci_id="1002:164e", kernel_driver="amdgpu",
                  bus_id="0000:13:00.0")
    findings = diagnose(replace(m, gpus=(*m.gpus, raphael)))
    (finding,) = [f for f in findings if f.id == "amd-igpu-beside-card"]
    assert "HIP_VISIBLE_DEVICES" in finding.fix and "Raphael" in finding.detail
    assert "amd-igpu-beside-card" not in [f.id for f in diagnose(m)]


# --- issue 26: the doctor, third edition ----------------------------------------------------

# The fix that worked, as the Chinese texts must say it too (commands and settings are not translated).
ZH_WORDS = {
    "win-gtx950-disabled": ["设备管理器", "启用设备"],
    "linux-rtx5090-rebar-off": ["Above 4G Decoding", "Resizable BAR"],
    "cuda-visible-devices-missing-gpu": ["CUDA_VISIBLE_DEVICES=0"],
    "a100-mig-no-slice-selected": ["CUDA_VISIBLE_DEVICES=MIG-00000000-0000-0000-0000-000000000000"],
    "ld-library-path-cuda121": ["unset LD_LIBRARY_PATH", "不要重装"],
    "jetson-orin-pypi-torch": ["install-pytorch-jetson-platform"],
    "centos7-glibc217": ["glibc 2.28", "升级"],
    "wsl-amd-rocm-pytorch-index": ["repo.radeon.com"],
    "amd-rx6800-python37": ["Python 3.12"],
    "secure-boot-mok-not-enrolled": ["mokutil --import", "Enroll MOK"],
}


@pytest.mark.parametrize("stem", sorted(ZH_WORDS))
def test_the_fix_that_worked_is_said_in_chinese_too(stem):
    (first, *_) = diagnose(load(stem), "zh")
    assert first.id == EXPECTED[stem][0]
    for word in ZH_WORDS[stem]:
        assert word in first.fix + first.detail, (word, first.fix)


def _all_text(machine: Machine, lang: str) -> str:
    from wizard.commands.check import render_text

    return render_text(machine, diagnose(machine, lang), lang)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_nothing_tells_an_amd_user_in_wsl_to_install_the_nvidia_driver(lang):
    text = _all_text(load("wsl-amd-rocm-pytorch-index"), lang)
    for wrong in ("Install or update the NVIDIA driver", "Update the NVIDIA driver", "wsl --update",
                  "安装或更新 NVIDIA 驱动", "更新 NVIDIA 驱动"):
        assert wrong not in text, wrong
    assert "nvidia-smi" not in text


def test_a_working_rocm_in_wsl_is_ready_and_names_no_nvidia_problem():
    from wizard.probe.facts import TorchDevice

    m = load("wsl-amd-rocm-pytorch-index")
    m = replace(m, torch=replace(m.torch, version="2.4.0+rocm6.3.4.git7cecbf6d", cuda_available=True,
                                 device_count=1, devices=(TorchDevice("AMD Radeon RX 7900 XTX", "gfx1100"),)))
    findings = diagnose(m)
    assert not errors(findings) and "torch-ready" in [f.id for f in findings]
    assert not [f for f in findings if f.id.startswith(("nvidia-", "wsl-nvidia"))]


def test_a_jetson_is_never_a_computer_without_a_gpu():
    for torch in (None, "not-installed"):
        m = load("jetson-orin-pypi-torch")
        if torch is None:
            m = replace(m, torch=None)
        else:
            m = replace(m, torch=replace(m.torch, status=torch, version=None, build=None))
        ids = [f.id for f in diagnose(m)]
        assert "no-gpu" not in ids and "jetson-gpu" in ids, ids


def test_a_jetson_without_torch_is_sent_to_nvidia_not_to_pypi():
    m = load("jetson-orin-pypi-torch")
    m = replace(m, torch=replace(m.torch, status="not-installed", version=None, build=None))
    (first, *_) = diagnose(m)
    assert first.id == "torch-jetson-not-installed" and first.severity == "warning"
    assert "pip install torch==" not in first.fix and "install-pytorch-jetson-platform" in first.fix


def test_a_jetson_torch_that_works_is_ready():
    from wizard.probe.facts import TorchDevice

    m = load("jetson-orin-pypi-torch")
    m = replace(m, torch=replace(m.torch, version="2.1.0a0+41361538.nv23.06", build="cuda", cuda_version="11.4",
                                 cuda_available=True, device_count=1, devices=(TorchDevice("Orin", "8.7"),)))
    findings = diagnose(m)
    assert not errors(findings) and "torch-ready" in [f.id for f in findings]


def test_a_jetson_whose_pypi_torch_wants_a_newer_glibc_is_still_a_jetson_problem():
    # kakaobrain/pororo#66: Jetson Xavier NX, Ubuntu 18.04 (glibc 2.27), a pip aarch64 torch:
    # "ImportError: /lib/aarch64-linux-gnu/libc.so.6: version `GLIBC_2.28' not found".
    m = load("jetson-orin-pypi-torch")
    m = replace(m, torch=replace(m.torch, status="import-error", glibc_version="2.27",
                                 error_line="ImportError: /lib/aarch64-linux-gnu/libc.so.6: version `GLIBC_2.28' not "
                                            "found (required by <env>/lib/python3.6/site-packages/torch/lib/"
                                            "libtorch_python.so)"))
    assert errors(diagnose(m)) == ["torch-jetson-wrong-build"]


def test_an_os_too_old_for_any_wheel_is_said_before_anything_is_installed():
    m = load("centos7-glibc217")
    m = replace(m, torch=replace(m.torch, status="not-installed", version=None, build=None, error_line=None))
    (first, *_) = diagnose(m)
    assert first.id == "torch-glibc-too-old" and "2.17" in first.detail and "pip install" not in first.fix


def test_an_os_too_old_is_never_a_reinstall():
    for lang in ("en", "zh"):
        (finding,) = [f for f in diagnose(load("centos7-glibc217"), lang) if f.severity == "error"]
        assert "pip install" not in finding.fix and "--force-reinstall" not in finding.fix


def test_a_shadowing_library_path_is_never_a_reinstall():
    for lang in ("en", "zh"):
        (finding,) = [f for f in diagnose(load("ld-library-path-cuda121"), lang) if f.severity == "error"]
        assert "pip install" not in finding.fix and "--force-reinstall" not in finding.fix


def test_a_cudnn_from_ld_library_path_is_the_same_cause():
    m = load("cuda-visible-devices-missing-gpu")
    said = ("cuDNN version incompatibility: PyTorch was compiled  against (8, 9, 2) but found runtime version "
            "(8, 9, 0). PyTorch already comes bundled with cuDNN. One option to resolving this error is to ensure "
            "PyTorch can find the bundled cuDNN. Looks like your LD_LIBRARY_PATH contains incompatible version of "
            "cudnn.")
    from wizard.probe.facts import TorchDevice

    m = replace(m, torch=replace(m.torch, visible_devices_env=(), cuda_available=True, device_count=1,
                                 devices=(TorchDevice("NVIDIA GeForce RTX 2070 SUPER", "7.5"),),
                                 torch_warnings=(said,), env_vars=("LD_LIBRARY_PATH",)))
    assert errors(diagnose(m)) == ["torch-library-path-shadow"]


def _uuid(n: int) -> str:
    return f"GPU-00000000-0000-0000-0000-0000000000{n:02d}"


def test_a_gpu_uuid_of_another_machine_points_nowhere():
    m = load("cuda-visible-devices-missing-gpu")
    m = replace(m, gpus=(replace(m.gpus[0], uuid=_uuid(1)),))
    elsewhere = replace(m, torch=replace(m.torch, visible_devices_env=(f"CUDA_VISIBLE_DEVICES={_uuid(2)}",)))
    assert errors(diagnose(elsewhere)) == ["torch-visible-devices-nowhere"]
    here = replace(m, torch=replace(m.torch, visible_devices_env=(f"CUDA_VISIBLE_DEVICES={_uuid(1)}",)))
    assert "torch-visible-devices-nowhere" not in errors(diagnose(here))


def test_a_redacted_uuid_is_not_judged():
    m = load("cuda-visible-devices-missing-gpu")
    m = replace(m, torch=replace(m.torch, visible_devices_env=("CUDA_VISIBLE_DEVICES=GPU-<uuid>",)))
    assert "torch-visible-devices-nowhere" not in errors(diagnose(m))


def test_an_index_that_exists_is_not_blamed():
    m = load("cuda-visible-devices-missing-gpu")
    m = replace(m, torch=replace(m.torch, visible_devices_env=("CUDA_VISIBLE_DEVICES=0",)))
    assert "torch-visible-devices-nowhere" not in errors(diagnose(m))


def test_a_mig_uuid_that_is_not_here_points_nowhere_and_names_one_that_is():
    m = load("a100-mig-no-slice-selected")
    m = replace(m, torch=replace(m.torch, cuda_available=False, device_count=0, gpu_tests=(),
                                 visible_devices_env=("CUDA_VISIBLE_DEVICES=MIG-00000099-0000-0000-0000-000000000099",)))
    (finding,) = [f for f in diagnose(m) if f.severity == "error"]
    assert finding.id == "torch-visible-devices-nowhere"
    assert "CUDA_VISIBLE_DEVICES=MIG-00000000-0000-0000-0000-000000000000" in finding.fix


def test_a_selected_mig_instance_works_and_the_slices_are_explained():
    from wizard.probe.facts import GpuTest, TorchDevice

    m = load("a100-mig-no-slice-selected")
    m = replace(m, torch=replace(m.torch, device_count=1,
                                 devices=(TorchDevice("NVIDIA A100-SXM4-80GB MIG 1g.10gb", "8.0"),),
                                 gpu_tests=(GpuTest("cuda:0", "ok", seconds=0.3),),
                                 visible_devices_env=("CUDA_VISIBLE_DEVICES=MIG-00000001-0000-0000-0000-000000000001",)))
    findings = diagnose(m)
    assert not errors(findings)
    assert "nvidia-mig-enabled" in [f.id for f in findings] and "torch-ready" in [f.id for f in findings]


def test_mig_without_instances_is_the_one_error():
    m = load("a100-mig-no-slice-selected")
    m = replace(m, gpus=tuple(replace(g, mig_devices=()) for g in m.gpus),
                torch=replace(m.torch, cuda_available=False, device_count=0, gpu_tests=()))
    assert errors(diagnose(m)) == ["nvidia-mig-no-instances"]


def test_a_second_card_the_driver_does_not_start_is_a_warning_beside_one_that_works():
    from wizard.probe.facts import Gpu

    m = load("linux-rtx5090-rebar-off")
    working = Gpu(vendor="nvidia", name="NVIDIA GeForce RTX 4090", source="nvml", vram_gb=23.99,
                  compute_capability="8.9", pci_id="10de:2684", bus_id="00000000:02:00.0")
    m = replace(m, nvidia=replace(m.nvidia, status="ok", reason=None, cuda_driver_version="12.9"),
                gpus=(working, *m.gpus))
    (hidden,) = [f for f in diagnose(m) if f.id == "nvidia-gpu-not-initialised"]
    assert hidden.severity == "warning" and "GeForce RTX 5090" in hidden.title


def test_a_card_stopped_by_windows_is_named_with_its_code():
    m = load("win-gtx950-disabled")
    m = replace(m, gpus=tuple(replace(g, config_error=43) if g.vendor == "nvidia" else g for g in m.gpus))
    (finding,) = [f for f in diagnose(m) if f.severity == "error"]
    assert finding.id == "nvidia-gpu-stopped" and "43" in finding.title


def test_a_disabled_card_is_never_told_to_reboot_or_reinstall():
    (finding,) = [f for f in diagnose(load("win-gtx950-disabled")) if f.severity == "error"]
    assert "Reboot" not in finding.fix and "pip install" not in finding.fix and "install" not in finding.fix.lower()


def test_python_too_old_beside_a_working_nvidia_gpu():
    m = load("laptop-4060")
    m = replace(m, python_version="3.7.9", torch=replace(m.torch, python_version="3.7.9", version="1.13.1+cpu"))
    assert errors(diagnose(m)) == ["torch-python-no-gpu-build"]


def test_python_too_old_and_no_torch_yet():
    m = load("amd-rx6800-python37")
    m = replace(m, torch=replace(m.torch, status="not-installed", version=None, build=None))
    (first, *_) = diagnose(m)
    assert first.id == "torch-python-no-gpu-build" and "Python 3.12" in first.fix


def test_a_supported_python_is_not_blamed():
    assert "torch-python-no-gpu-build" not in [f.id for f in diagnose(load("amd-rx6800-cpu-torch"))]


def test_secure_boot_is_never_answered_with_reboot_first():
    for lang in ("en", "zh"):
        (finding,) = [f for f in diagnose(load("secure-boot-mok-not-enrolled"), lang) if f.severity == "error"]
        assert not finding.fix.startswith(("Reboot", "重启", "先重启"))
        assert "nvidia-driver-not-loaded" not in [f.id for f in diagnose(load("secure-boot-mok-not-enrolled"), lang)]


def test_without_secure_boot_the_driver_not_loaded_fix_still_checks_it_first():
    m = load("secure-boot-mok-not-enrolled")
    for secure_boot in (False, None):
        m2 = replace(m, nvidia=replace(m.nvidia, secure_boot=secure_boot))
        (finding,) = [f for f in diagnose(m2) if f.severity == "error"]
        assert finding.id == "nvidia-driver-not-loaded"
        assert finding.fix.index("mokutil --sb-state") < finding.fix.index("reboot")


def test_a_hip_index_past_the_last_amd_gpu_points_nowhere():
    m = load("amd-rx6800-cpu-torch")
    m = replace(m, torch=replace(m.torch, version="2.5.1+rocm6.2", build="rocm", hip_version="6.2.41133",
                                 visible_devices_env=("HIP_VISIBLE_DEVICES=1",)))
    (finding,) = [f for f in diagnose(m) if f.severity == "error"]
    assert finding.id == "torch-visible-devices-nowhere" and "HIP_VISIBLE_DEVICES=0" in finding.fix


def test_nouveau_beside_a_loaded_nvidia_module_is_still_nouveau():
    m = load("nouveau")
    m = replace(m, nvidia=replace(m.nvidia, status="no-device", reason=None))
    assert "nvidia-nouveau-bound" in errors(diagnose(m))
