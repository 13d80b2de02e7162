"""Sentences about the checked PyTorch that `check`, `report show` and the wizard share: what
the probe found, which Python was checked and why that one, and how the tiny GPU test went."""

from __future__ import annotations

import re

from wizard.probe.facts import GpuTest, TorchInfo
from wizard.pytorch.matrix import arch_support
from wizard.pytorch.probe import NOT_PYTHON, SHADOW_MARK
from wizard.text.evidence import run_text
from wizard.text.i18n import t
from wizard.text.output import mark, near_path


def interpreter_line(torch: TorchInfo, lang: str, key: str = "check.interpreter") -> str:
    """ "Python checked: /path/python (the activated virtualenv)" (`key`: another lead-in)."""
    line = t(key, lang, path=torch.interpreter)
    if not torch.interpreter_source:
        return line
    return t("check.interpreter-why", lang, line=line, source=t(f"check.source.{torch.interpreter_source}", lang))


def not_run_lines(torch: TorchInfo, lang: str) -> list[str]:
    """What was run besides the checked Python, and what was found and not run, with why: the
    heading, then a line per interpreter ("- PATH (how it was found): why; its files show
    PyTorch 2.5.1"), then how to check one anyway. [] when discovery ran nothing else."""
    lines = []
    if torch.asked:
        lines.append(t("check.not-run.asked", lang, paths=t("check.comma", lang).join(torch.asked)))
    if torch.not_run:
        lines.append(t("check.not-run.heading", lang))
        for item in torch.not_run:
            text = t("check.not-run.item", lang, path=near_path(item.interpreter),
                     source=t(f"check.source.{item.source}", lang),
                     reason=t(f"check.not-run-reason.{item.reason}", lang))
            if item.torch_version:
                text += t("check.sep", lang) + t("check.not-run.torch", lang, version=item.torch_version)
            lines.append(f"- {text}")
        lines.append(t("check.not-run.how", lang))
    return lines


def gpu_test_line(test: GpuTest, lang: str) -> str:
    """ "✓ GPU test on cuda:0: passed (0.31 s)", or what failed, with its error line."""
    severity = "ok" if test.status == "ok" else "error"
    key = test.status if test.status != "ok" or test.seconds is not None else "ok-untimed"
    text = t(f"check.gpu-test.{key}", lang, device=test.device,
             seconds=f"{test.seconds:g}" if test.seconds is not None else "")
    if test.error_line and test.status != "ok":
        text += f"{t('check.sep', lang)}{run_text(test.error_line, lang)}"
    return f"{mark(severity)} {text}"


def _lacks_kernels(info: TorchInfo) -> bool:
    """A device the build has neither SASS nor PTX for: "available", yet every kernel fails."""
    return bool(info.arch_list) and any(
        d.capability and arch_support(info.arch_list, d.capability) is None for d in info.devices
    )


def _waited(error_line: str) -> str | None:
    """The seconds in "no answer within 25 s": the probe keeps them only there."""
    match = re.search(r"within ([\d.]+) s\b", error_line)
    return match.group(1) if match else None


def torch_message(info: TorchInfo, lang: str = "en") -> str:
    """One plain sentence or two about the torch in this interpreter, for a beginner: the words
    for what the probe (wizard.pytorch.probe) found, live or recorded."""
    raw = info.error_line or ""  # what the rules below read; the reader gets it framed in `lang`
    values = {
        "version": info.version or t("torch.findings.version-unknown", lang),
        "interpreter": info.interpreter or "python",
        "error": run_text(raw, lang) or t("evidence.message.none", lang),
        "seconds": _waited(raw) or t("check.unknown", lang),
        "devices": ", ".join(d.name for d in info.devices) or t("check.unknown", lang),
    }
    if info.status == "not-installed":
        if info.error_line == NOT_PYTHON:
            return t("torch.probe.not-python", lang, **values)
        if info.error_line and not info.python_version:
            return t("torch.probe.interpreter-missing", lang, **values)
        return t("torch.probe.not-installed", lang, **values)
    if info.status == "import-error" and SHADOW_MARK in raw:
        return t("torch.probe.shadowed", lang, path=raw.split(SHADOW_MARK, 1)[1])
    if info.status == "import-error":
        key = "import-error-library" if re.search(r"\.so|\.dll|shared object|DLL", raw) \
            else "import-error"
        return t(f"torch.probe.{key}", lang, **values)
    if info.status == "crashed":
        key = "crashed-sigill" if "SIGILL" in raw or "illegal" in raw else "crashed"
        return t(f"torch.probe.{key}", lang, **values)
    if info.status == "timeout":
        return t("torch.probe.timeout", lang, **values)
    failed = next((test for test in info.gpu_tests if test.status != "ok"), None)
    if failed is not None:
        return t("torch.probe.gpu-test-failed", lang, device=failed.device,
                 failure=run_text(failed.error_line or "", lang) or t("evidence.message.none", lang),
                 **values)
    if info.cuda_available:
        if info.build == "cuda" and _lacks_kernels(info):
            return t("torch.probe.ok-cuda-no-kernels", lang, **values)
        return t("torch.probe.ok-rocm" if info.build == "rocm" else "torch.probe.ok-cuda", lang, **values)
    if info.mps_available:
        return t("torch.probe.ok-mps", lang, **values)
    if info.xpu_available:
        return t("torch.probe.ok-xpu", lang, **values)
    if info.build in ("cuda", "rocm", "xpu"):
        return t("torch.probe.ok-no-gpu", lang, build=info.build.upper() if info.build != "rocm"
                 else "ROCm", **values)
    if info.build == "mps":
        return t("torch.probe.ok-mps-unavailable", lang, **values)
    return t("torch.probe.ok-cpu", lang, **values)
