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
from wizard.diagnose import diagnose
from wizard.findings import worst
from wizard.probe.model import Machine, machine_from_dict


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
    assert status_json["command"].endswith("-m pip install torch==2.9.1")   # into the Python checked
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
    from wizard.probe.model import Gpu

    m = load("amd-rx7900")   # the same desktop's Raphael iGPU (1002:164e, in the real rocm-smi output)
    raphael = Gpu(vendor="amd", name="Raphael", source="pci", pci_id="1002:164e", kernel_driver="amdgpu",
                  bus_id="0000:13:00.0")
    findings = diagnose(replace(m, gpus=(*m.gpus, raphael)))
    (finding,) = [f for f in findings if f.id == "amd-igpu-beside-card"]
    assert "HIP_VISIBLE_DEVICES" in finding.fix and "Raphael" in finding.detail
    assert "amd-igpu-beside-card" not in [f.id for f in diagnose(m)]
