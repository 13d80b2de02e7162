"""One-line sentences about the checked PyTorch that `check`, `report show` and the wizard share:
which Python was checked and why that one, and how the tiny GPU test went."""

from __future__ import annotations

from wizard.evidence import run_text
from wizard.i18n import t
from wizard.probe.model import GpuTest, TorchInfo
from wizard.textout import mark


def interpreter_line(torch: TorchInfo, lang: str, key: str = "check.interpreter") -> str:
    """ "Python checked: /path/python (the activated virtualenv)" (`key`: another lead-in)."""
    line = t(key, lang, path=torch.interpreter)
    if not torch.interpreter_source:
        return line
    return t("check.interpreter-why", lang, line=line, source=t(f"check.source.{torch.interpreter_source}", lang))


def gpu_test_line(test: GpuTest, lang: str) -> str:
    """ "✓ GPU test on cuda:0: passed (0.31 s)", or what failed, with its error line."""
    severity = "ok" if test.status == "ok" else "error"
    key = test.status if test.status != "ok" or test.seconds is not None else "ok-untimed"
    text = t(f"check.gpu-test.{key}", lang, device=test.device,
             seconds=f"{test.seconds:g}" if test.seconds is not None else "")
    if test.error_line and test.status != "ok":
        text += f"{t('check.sep', lang)}{run_text(test.error_line, lang)}"
    return f"{mark(severity)} {text}"
