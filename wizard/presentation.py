"""What every screen and command says about a machine, worded once.

From (Machine, findings, recommendation) the core builds typed lines: the verdict, the one
action, the NVIDIA and PyTorch lines with their marks, the install line or its absence with the
reason, and how to check the install worked. `check`, `report show`, the wizard's panels and
result page, the headless run and the roster render these and hold no rule of their own: the
rules are wizard.diagnosis.judgement's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from wizard.diagnosis import judgement
from wizard.diagnosis.diagnose import diagnose
from wizard.diagnosis.findings import Finding
from wizard.diagnosis.judgement import Action
from wizard.knowledge.content import ContentError
from wizard.text.i18n import t
from wizard.text.output import mid_sentence


@dataclass(frozen=True)
class Presentation:
    action: Action
    action_text: str                 # one sentence (two for a fix): what to do next and why
    command: str | None              # the install line, only when installing is the action
    upgrade_text: str | None         # beside "keep": a newer release exists (optional, no line)
    verify: tuple[str, ...]          # after installing: the check to run and what it prints
    nvidia: str                      # the driver line's severity
    torch: str | None                # PyTorch's line's severity (None: not checked)
    torch_on_gpu: bool               # PyTorch really runs on a GPU
    ready: bool


def present(machine: Any, findings: Iterable[Finding], recommendation: Any, lang: str) -> Presentation:
    """The lines for `machine`. `recommendation` is the advice's (a Recommendation, or the saved
    table read back by `recorded_advice`); None for `check`."""
    findings = tuple(findings)
    rec = recommendation
    verdict = getattr(rec, "verdict", None)
    action = action_of(machine, findings, rec)
    command = getattr(rec, "torch_command", None) if rec is not None else None
    install = command if action.kind == "install" else None
    newer = getattr(rec, "newer_torch", None)
    upgrade_text = None
    if action.kind == "keep" and newer and machine.torch is not None and machine.torch.version:
        upgrade_text = t("present.action.upgrade", lang, version=newer, installed=machine.torch.version)
    target = getattr(rec, "torch_target", None)
    return Presentation(
        action=action,
        action_text=action_text(action, machine, findings, rec, lang),
        command=install,
        upgrade_text=upgrade_text,
        verify=verify_lines(install, target, machine, lang) if install else (),
        nvidia=judgement.nvidia_severity(machine, findings),
        torch=judgement.torch_severity(machine, findings) if machine.torch is not None else None,
        torch_on_gpu=machine.torch is not None and judgement.torch_uses_gpu(machine.torch, findings),
        ready=judgement.ready(machine, findings, verdict),
    )


def action_of(machine: Any, findings: tuple[Finding, ...], rec: Any) -> Action:
    """The next step: the one the advice recorded, else the rule's (`check`, or a report saved
    before the action was)."""
    if rec is None:
        return judgement.decide(machine, findings)
    kind = getattr(rec, "action", None)
    if kind in judgement.ACTIONS:
        return Action(kind, getattr(rec, "action_finding", None), bool(getattr(rec, "newer_torch", None)))
    return judgement.decide(machine, findings, rec.verdict)


def action_text(action: Action, machine: Any, findings: tuple[Finding, ...], rec: Any, lang: str) -> str:
    """The action as one sentence (a fix: the problem, then how)."""
    finding = next((f for f in findings if f.id == action.finding), None)
    problem = _problem(finding) if finding else ""
    torch = machine.torch
    on_gpu = torch is not None and torch.status == "ok" and judgement.torch_uses_gpu(torch, findings)
    if action.kind == "keep" and torch is not None and torch.interpreter_source == "own":
        # The only PyTorch found is the one beside gpu-wizard: not the user's to keep.
        return t("present.action.keep-own", lang)
    if rec is None:   # `check`: no install line of its own; the finding's fix holds the command
        if action.kind == "install" and finding is not None and finding.id != "torch-not-installed":
            return t("present.action.check-install", lang, problem=problem, fix=finding.fix)
        if action.kind == "install":
            return t("present.action.check-missing", lang)
        if action.kind == "keep":
            return t("present.action.check-keep-gpu" if on_gpu else "present.action.check-keep", lang)
    if action.kind == "fix" and finding is not None:
        text = t("present.action.fix", lang, problem=problem, fix=finding.fix).strip()
        if rec is not None and getattr(rec, "torch_command", None):
            text += (" " if lang != "zh" else "") + t("present.action.fix-then", lang)
        return text
    if action.kind == "install":
        if finding is not None and finding.id != "torch-not-installed":
            cpu = getattr(rec, "torch_target", None) == "cpu"
            return t("present.action.install-cpu" if cpu else "present.action.install-finding", lang,
                     problem=problem)
        if torch is not None and torch.status == "ok":
            return t("present.action.install-blind", lang)
        return t("present.action.install-missing", lang)
    if action.kind == "keep":
        if on_gpu:
            return t("present.action.keep-gpu", lang)
        verdict = getattr(rec, "verdict", None)
        return t("present.action.keep-no-gpu-needed" if verdict == "no-gpu-needed" else "present.action.keep-cpu", lang)
    if action.kind == "cloud":
        platforms = getattr(rec, "platforms", ()) or ()
        if platforms:
            return t("present.action.cloud", lang, platform=_name(platforms[0]))
        return t("present.action.cloud-none", lang)
    if action.kind == "buy":
        laptop = getattr(rec, "verdict", None) == "buy-laptop"
        return t("present.action.buy-laptop" if laptop else "present.action.buy", lang)
    return t("present.action.none", lang)


def _problem(finding: Finding) -> str:
    return mid_sentence(finding.title.rstrip(".。"))


def _name(platform: Any) -> str:
    return platform.get("name", "") if isinstance(platform, dict) else getattr(platform, "name", "")


def findings_for(machine: Any, lang: str) -> tuple[Finding, ...]:
    """wizard.diagnosis.diagnose's findings; none from a damaged torch matrix (the App names the file)."""
    try:
        return tuple(diagnose(machine, lang))
    except ContentError:
        return ()


# ------------------------------------------------------------------------ verification ---

# What to run after installing, per the device the build targets. ROCm builds drive AMD GPUs
# through the same torch.cuda API.
_VERIFY_CODE = {
    "cuda": "import torch; print(torch.__version__, torch.cuda.is_available(), torch.cuda.get_device_name(0))",
    "xpu": "import torch; print(torch.__version__, torch.xpu.is_available(), torch.xpu.get_device_name(0))",
    "mps": "import torch; print(torch.__version__, torch.backends.mps.is_available())",
    "cpu": "import torch; print(torch.__version__, torch.rand(2, 2).sum())",
}


def device_of(variant: str | None) -> str | None:
    """The device a wheel variant targets: cu130 → cuda, rocm7.2 → cuda, xpu, mps, cpu."""
    if not variant:
        return None
    if variant.startswith(("cu", "rocm")):
        return "cuda"
    return variant if variant in _VERIFY_CODE else None


def verify_lines(command: str, target: str | None, machine: Any, lang: str) -> tuple[str, ...]:
    """The one-line check after `command`, with the Python it installed into, and what it prints."""
    if target not in _VERIFY_CODE:
        return ()
    # The Python the command installs into; `pip install` and `uv pip install` name none.
    python = command.split(" -m pip ", 1)[0] if " -m pip " in command else "python"
    line = f'{python} -c "{_VERIFY_CODE[target]}"'
    values: dict[str, str] = {}
    if target in ("cuda", "xpu"):
        left, right = ("（", "）") if lang == "zh" else (" (", ")")
        suffix = _variant_suffix(command, target)
        values["suffix"] = f"{left}2.x.x{suffix}{right}" if suffix else ""
        name = _gpu_name(machine, target)
        values["gpu"] = f"{left}{name}{right}" if name else ""
    return (t("present.verify.heading", lang), line, t(f"present.verify.{target}", lang, **values))


def _variant_suffix(command: str, target: str) -> str:
    found = re.search(r"/whl/(?:test/|nightly/)?(cu\d+|rocm[\d.]+|xpu)\b", command)
    return f"+{found.group(1)}" if found else ""


def _gpu_name(machine: Any, target: str) -> str | None:
    if machine is None:
        return None
    vendors = ("intel",) if target == "xpu" else ("nvidia", "amd")
    gpu = next((g for g in machine.gpus if g.vendor in vendors), None)
    return gpu.name if gpu is not None else None


# ------------------------------------------------------------------------- saved advice ---

@dataclass(frozen=True)
class RecordedAdvice:
    """A report's [recommendation] table as the presentation reads it."""

    verdict: str
    torch_command: str | None = None
    action: str | None = None
    action_finding: str | None = None
    newer_torch: str | None = None
    torch_target: str | None = None
    platforms: tuple[Any, ...] = ()


def recorded_advice(table: Any) -> RecordedAdvice | None:
    if not isinstance(table, dict) or not isinstance(table.get("verdict"), str):
        return None

    def text(key: str) -> str | None:
        value = table.get(key)
        return value if isinstance(value, str) and value else None

    platforms = table.get("platforms")
    return RecordedAdvice(
        verdict=table["verdict"], torch_command=text("torch_command"),
        action=text("action"), action_finding=text("action_finding"),
        newer_torch=text("newer_torch"), torch_target=text("torch_target"),
        platforms=tuple(p for p in platforms if isinstance(p, dict)) if isinstance(platforms, list) else ())


def findings_of(saved: Any) -> tuple[Finding, ...]:
    """A report's [[findings]] as Findings (a reader skips what is not one)."""
    out = []
    for item in saved if isinstance(saved, list) else ():
        if isinstance(item, dict) and all(isinstance(item.get(k), str) for k in ("id", "severity", "title")):
            out.append(Finding(id=item["id"], severity=item["severity"], title=item["title"],
                               detail=item.get("detail", "") if isinstance(item.get("detail"), str) else "",
                               fix=item.get("fix", "") if isinstance(item.get("fix"), str) else ""))
    return tuple(out)
