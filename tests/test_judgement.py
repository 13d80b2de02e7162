"""wizard.diagnosis.judgement's rules and wizard.presentation's words, one case each: the next step, the
marks, the device each install is checked on."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.recorded import machine
from wizard.diagnosis import judgement
from wizard.diagnosis.findings import Finding
from wizard.diagnosis.judgement import Action, decide
from wizard.presentation import device_of, present, verify_lines
from wizard.probe.facts import GpuTest, TorchInfo
from wizard.text.i18n import t


def finding(fid: str, severity: str) -> Finding:
    return Finding(fid, severity, f"title of {fid}", "detail", f"fix of {fid}")


WORKING = TorchInfo(status="ok", version="2.8.0+cu128", build="cuda", cuda_available=True,
                    gpu_tests=(GpuTest(device="cuda:0", status="ok"),))


@pytest.fixture
def healthy():
    return replace(machine("rtx4090-cu128-healthy"), torch=WORKING)


def test_a_working_gpu_build_is_kept_whatever_a_warning_says(healthy):
    for warning in ("torch-gpu-arch-ptx-only", "torch-gpu-memory-full", "nvidia-probe-failed"):
        assert decide(healthy, [finding(warning, "warning")], "use-current-gpu") == Action("keep")


def test_an_error_comes_first_and_says_whether_installing_fixes_it(healthy):
    assert decide(healthy, [finding("torch-cuda-unknown-error", "error")]) == \
        Action("fix", "torch-cuda-unknown-error")
    assert decide(healthy, [finding("torch-gpu-arch-missing", "error")]) == Action("install", "torch-gpu-arch-missing")
    # Worst first: the error leads even when a warning was listed before it.
    assert decide(healthy, [finding("low-ram", "warning"), finding("nvidia-no-driver", "error")]).finding == \
        "nvidia-no-driver"


def test_limits_of_the_machine_are_never_the_next_step(healthy):
    cpu = replace(healthy, torch=TorchInfo(status="ok", version="2.13.0+cpu", build="cpu"))
    for limit in ("low-ram", "low-disk", "gpu-low-vram"):
        assert decide(cpu, [finding(limit, "warning")], "no-gpu-needed").kind == "keep"
    assert decide(cpu, [finding("torch-not-run", "warning")]) == Action("fix", "torch-not-run")


def test_without_a_problem_the_verdict_and_torch_decide(healthy):
    missing = replace(healthy, torch=TorchInfo(status="not-installed"))
    assert decide(missing, [], "use-current-gpu") == Action("install", "torch-not-installed")
    assert decide(missing, [], "use-free-cloud").kind == "cloud"
    assert decide(missing, [], "buy-desktop").kind == "buy"
    assert decide(replace(healthy, torch=None), []).kind == "none"
    blind = replace(healthy, torch=replace(WORKING, cuda_available=False))
    assert decide(blind, [], "fix-setup").kind == "install"
    assert decide(healthy, [], "use-current-gpu", newer="2.15.0") == Action("keep", upgrade=True)
    assert decide(healthy, [], "use-current-gpu", newer="2.8.1") == Action("keep", upgrade=False)


@pytest.mark.parametrize("installed, offered, older", [
    ("2.8.0+cu128", "2.15.0", True), ("2.15.0", "2.15.0", False), ("2.15.1", "2.15.0", False),
    (None, "2.15.0", False), ("not a version", "2.15.0", False), ("2.8.0", None, False),
])
def test_is_older_compares_releases(installed, offered, older):
    assert judgement.is_older(installed, offered) is older


def test_marks(healthy):
    assert judgement.torch_severity(healthy, [finding("torch-ready", "ok")]) == "ok"
    failed = replace(WORKING, gpu_tests=(GpuTest(device="cuda:0", status="failed"),))
    # Available is not usable: a failed GPU test is never a ✓.
    assert judgement.torch_severity(replace(healthy, torch=failed), [finding("torch-ready", "ok")]) == "info"
    assert judgement.torch_severity(replace(healthy, torch=TorchInfo(status="crashed")), []) == "error"
    assert judgement.nvidia_severity(healthy, []) == "ok"
    broken = replace(healthy, nvidia=replace(healthy.nvidia, status="error"))
    assert judgement.nvidia_severity(broken, [finding("container-without-gpu-access", "error")]) == "error"
    assert judgement.nvidia_severity(broken, []) == "info"
    assert judgement.ram_severity(6) == "warning" and judgement.ram_severity(16) is None
    assert judgement.disk_severity(5) == "warning" and judgement.disk_severity(50) == "ok"
    assert judgement.detected_form_factor("laptop") == "laptop" and judgement.detected_form_factor("vm") is None
    assert judgement.detected_has_nvidia(healthy.gpus, False) == "yes"
    assert judgement.detected_has_nvidia((), True) == "no" and judgement.detected_has_nvidia((), False) is None


@pytest.mark.parametrize("variant, device, code", [
    ("cu130", "cuda", "torch.cuda.is_available()"), ("rocm7.2", "cuda", "torch.cuda.is_available()"),
    ("xpu", "xpu", "torch.xpu.is_available()"), ("mps", "mps", "torch.backends.mps.is_available()"),
    ("cpu", "cpu", "torch.rand"),
])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_check_after_installing_uses_the_builds_device(variant, device, code, lang):
    assert device_of(variant) == device
    command = f"/home/ana/proj/.venv/bin/python -m pip install torch==2.15.0 --index-url https://x/whl/{variant}"
    heading, line, expect = verify_lines(command, device, machine("laptop-4060"), lang)
    assert heading == t("present.verify.heading", lang)
    assert line.startswith('/home/ana/proj/.venv/bin/python -c "') and code in line   # the same Python
    if device == "cuda":
        assert f"+{variant}" in expect and "RTX 4060" in expect
    other = {"cuda": "torch.xpu", "xpu": "torch.cuda", "mps": "torch.cuda", "cpu": "torch.cuda"}[device]
    assert other not in line


def test_the_install_line_appears_only_with_the_install_action():
    laptop = machine("laptop-4060")
    from wizard.answers import Answers
    from wizard.evaluate import evaluate

    outcome = evaluate(laptop, Answers("yes", "yes", "laptop", 1500, "USD", "learning"), None, "en")
    shown = present(laptop, outcome.findings, outcome.recommendation, "en")
    assert shown.action.kind == "install" and shown.command == outcome.recommendation.torch_command
    fixed = replace(outcome.recommendation, action="fix", action_finding="torch-cpu-build-with-nvidia-gpu")
    assert present(laptop, outcome.findings, fixed, "en").command is None


def test_gpu_wizards_own_pytorch_is_not_called_the_users(healthy):
    own = replace(healthy, torch=replace(WORKING, interpreter="/opt/gpu-wizard/bin/python", interpreter_source="own"))
    shown = present(own, [], None, "en")
    assert shown.action.kind == "keep" and shown.action_text == t("present.action.keep-own", "en")
    users = replace(healthy, torch=replace(WORKING, interpreter="/home/ana/.venv/bin/python",
                                           interpreter_source="project-venv"))
    assert present(users, [], None, "en").action_text != t("present.action.keep-own", "en")
