"""The live-check lines each step shows: plain data from `Live`, no Textual.

Every line is a `Check(kind, text)`: kind is "ok", "info", "warning", "error" or "pending",
drawn as ✓ • ⚠ ✗ or a spinner. A probe that failed says "unknown — why"; one that has not
answered yet says what it is doing. Kept apart from the widgets so each rule is a one-line test.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wizard.diagnosis import judgement
from wizard.diagnosis.nvidia_cause import nvidia_message
from wizard.machine.live import Live
from wizard.presentation import findings_for
from wizard.text.evidence import chassis_evidence_text
from wizard.text.i18n import t
from wizard.text.output import count_text, gb_text

if TYPE_CHECKING:
    from wizard.probe.facts import Gpu, Machine, TorchInfo


@dataclass(frozen=True)
class Check:
    kind: str   # "ok" | "info" | "warning" | "error" | "pending"
    text: str


# The order a checks box shows its lines in: what is wrong before what may be, before the facts
# (✓ •, and the checks still running). The box may be cut at the bottom of a small terminal,
# and a ✗ must not be the line below the fold.
KIND_ORDER = {"error": 0, "warning": 1}


def errors_first(checks: Iterable[Check]) -> list[Check]:
    """✗ lines, then ⚠ lines, then the rest; each group keeps the order it was given in."""
    return sorted(checks, key=lambda check: KIND_ORDER.get(check.kind, len(KIND_ORDER)))


def _u(key: str, lang: str, **values: Any) -> str:
    return t(f"ui.{key}", lang, **values)


def num(value: float | None, lang: str) -> str:
    return t("check.unknown", lang) if value is None else count_text(value)


def gb(value: float | None, lang: str) -> str:
    """Memory as every other screen says it: a driver's 11.99 is 12 GB (one rule, wizard.text.output)."""
    return t("check.unknown", lang) if value is None else gb_text(value)


def _probe_problem(live: Live, name: str, lang: str) -> Check | None:
    """The line for a probe that has no result: still running, failed, or not run."""
    state = live.state(name)
    label = _u(f"probe.{name}", lang)
    if state == "pending":
        return Check("pending", _u("probe.pending", lang, name=label))
    if state == "failed":
        return Check("warning", _u("probe.failed", lang, name=label, reason=live.failed[name]))
    if state == "skipped":
        return Check("info", _u("probe.skipped", lang, name=label))
    return None


# ------------------------------------------------------------------------- pieces ---

def system_check(live: Live, lang: str) -> Check:
    problem = _probe_problem(live, "system", lang)
    if problem:
        return problem
    s = live.system
    assert s is not None
    cpu = s.cpu_model or t("check.unknown", lang)
    text = _u("check.system", lang, cpu=cpu, cores=num(s.cpu_cores, lang),
              threads=num(s.cpu_threads, lang), ram=gb(s.ram_gb, lang))
    return Check("info", text)


def ram_check(live: Live, lang: str) -> Check | None:
    s = live.system
    if s is None or judgement.ram_severity(s.ram_gb) is None:
        return None
    return Check("warning", _u("check.ram_low", lang, ram=gb(s.ram_gb, lang)))


def gpu_text(gpu: Gpu, lang: str) -> str:
    parts = [gpu.name]
    if gpu.vram_gb is not None:
        key = "check.gpu_shared" if gpu.unified_memory else "check.gpu_vram"
        parts.append(_u(key, lang, vram=gb(gpu.vram_gb, lang)))
    if gpu.compute_capability:
        parts.append(_u("check.gpu_cc", lang, cc=gpu.compute_capability))
    if gpu.kernel_driver == "nouveau":
        parts.append(_u("check.gpu_nouveau", lang))
    elif gpu.vendor == "nvidia" and gpu.source == "pci" and not gpu.kernel_driver:
        parts.append(_u("check.gpu_no_driver", lang))
    return _u("check.sep", lang).join(parts)


def gpu_checks(live: Live, lang: str) -> list[Check]:
    if not (live.settled("hardware") and live.settled("nvidia")):
        pending = _probe_problem(live, "hardware", lang) or _probe_problem(live, "nvidia", lang)
        return [pending] if pending else []
    gpus = live.gpus()
    if not gpus:
        problem = _probe_problem(live, "hardware", lang)
        return [problem or Check("info", _u("check.gpus_none", lang))]
    out = []
    for gpu in gpus[:MAX_GPU_LINES]:
        out.append(Check(judgement.gpu_severity(gpu), gpu_text(gpu, lang)))
    if len(gpus) > MAX_GPU_LINES:  # a server (or a replayed report) with more than fit a screen
        out.append(Check("info", _u("check.gpus_more", lang, count=len(gpus) - MAX_GPU_LINES)))
    return out


MAX_GPU_LINES = 8


def nvidia_check(live: Live, lang: str) -> Check:
    problem = _probe_problem(live, "nvidia", lang)
    if problem:
        return problem
    machine = live.machine(need_torch=False)
    if machine is None:
        return Check("pending", _u("probe.pending", lang, name=_u("probe.nvidia", lang)))
    kind = judgement.nvidia_severity(machine, findings_for(machine, lang))
    return Check(kind, nvidia_message(machine, lang))


def torch_check(live: Live, lang: str) -> Check:
    problem = _probe_problem(live, "torch", lang)
    if problem:
        if problem.kind == "pending":
            return Check("pending", _u("check.torch_pending", lang))
        return problem
    info = live.torch_info()
    assert info is not None
    return Check(torch_kind(info, live), torch_text(info, lang))


def torch_text(info: TorchInfo, lang: str) -> str:
    # Here, not at the top: the torch probe's thread has loaded it by now
    # (wizard.machine.live.load_torch_advice); at the top, +30 ms of CPU before the first
    # screen (target: 1.5× a minimal Textual app's time; 2026-12-04).
    from wizard.pytorch.wording import torch_message

    return torch_message(info, lang)


def torch_kind(info: TorchInfo, live: Live) -> str:
    """PyTorch's mark: the core's rule over the whole machine once it is assembled."""
    machine = live.machine()
    if machine is None or machine.torch is None:
        return "error" if info.status in ("import-error", "crashed") else \
            "warning" if info.status != "ok" else "info"
    return judgement.torch_severity(machine, findings_for(machine, "en"))


def reference_gpu(knowledge: Any) -> Any:
    """The cheapest NVIDIA desktop card of the newest generation in the catalog, with its
    rated fp32 speed: what "a GPU" means when this computer has none to measure."""
    cards = [g for g in knowledge.gpus
             if g.vendor == "nvidia" and g.segment == "desktop" and g.fp32_tflops
             and g.launch_price_usd and g.compute_capability
             and float(g.compute_capability) >= 7.5]
    if not cards:
        return None
    newest = max(g.launch_year for g in cards)
    return min((g for g in cards if g.launch_year == newest), key=lambda g: g.launch_price_usd)


def benchmark_checks(live: Live, lang: str, knowledge: Any = None) -> list[Check]:
    problem = _probe_problem(live, "torch", lang)
    if problem:
        if problem.kind == "pending":
            return [Check("pending", _u("check.bench_pending", lang))]
        return [Check("info", _u("check.bench_not_run", lang))]
    bench = live.benchmark()
    info = live.torch_info()
    if bench is None:
        if live.recorded is not None:  # a replayed report: the student's machine, not this one
            return [Check("info", _u("check.bench_not_recorded", lang))]
        if info is not None and info.status != "ok":
            return [Check("info", _u("check.bench_no_torch", lang))]
        return [Check("info", _u("check.bench_not_run", lang))]
    out = [Check("info", _u("check.bench_cpu", lang, gflops=num(bench.cpu_gflops, lang),
                            size=bench.matrix_size))]
    if bench.gpu_tflops:
        ratio = bench.gpu_tflops * 1000 / bench.cpu_gflops if bench.cpu_gflops else None
        out.append(Check("ok", _u("check.bench_gpu", lang, gpu=bench.gpu_name or "GPU",
                                  tflops=num(bench.gpu_tflops, lang),
                                  ratio=f"{ratio:,.0f}" if ratio else t("check.unknown", lang))))
    elif bench.gpu_error:
        out.append(Check("warning", _u("check.bench_gpu_failed", lang, error=bench.gpu_error)))
    else:
        out.append(Check("info", _u("check.bench_no_gpu", lang)))
    if not bench.gpu_tflops and knowledge is not None and bench.cpu_gflops:
        card = reference_gpu(knowledge)
        if card is not None:
            ratio = card.fp32_tflops * 1000 / bench.cpu_gflops
            out.append(Check("info", _u("check.bench_reference", lang, gpu=card.name,
                                        tflops=num(card.fp32_tflops, lang), ratio=f"{ratio:,.0f}")))
    return out


# -------------------------------------------------------------------------- steps ---

def welcome_checks(live: Live, lang: str) -> list[Check]:
    out = [system_check(live, lang)]
    out += gpu_checks(live, lang)
    out.append(nvidia_check(live, lang))
    out.append(torch_check(live, lang))
    return out


def need_gpu_checks(live: Live, lang: str, knowledge: Any = None) -> list[Check]:
    out = [system_check(live, lang)]
    low = ram_check(live, lang)
    if low:
        out.append(low)
    return out + benchmark_checks(live, lang, knowledge)


def nvidia_checks(live: Live, lang: str) -> list[Check]:
    out = gpu_checks(live, lang)
    out.append(nvidia_check(live, lang))
    out.append(torch_check(live, lang))
    machine = live.machine()
    if machine is not None:
        for finding in findings_for(machine, lang):
            # Memory and disk have their own steps (need a GPU, budget).
            if finding.severity in ("warning", "error") and finding.id not in judgement.SYSTEM_FINDINGS:
                fix = f" → {finding.fix}" if finding.fix else ""
                out.append(Check(finding.severity, f"{finding.title}{fix}"))
    out.append(Check("info", torch_size_text(live, lang)))
    return out


def torch_size_text(live: Live, lang: str) -> str:
    """The guide's first question, answered where the build is chosen: why the GPU build is so
    much bigger, measured against this machine's own PyTorch when there is one."""
    parts = [_u("check.why_big", lang)]
    info = live.torch_info()
    if info is not None and info.status == "ok" and info.install_size_mb:
        libs = _u("check.torch_libs", lang, libs=num(info.libraries_size_mb, lang)) if info.libraries_size_mb else ""
        parts.append(_u("check.torch_size", lang, version=info.version or "", build=info.build or "",
                        size=num(info.install_size_mb, lang), libs=libs))
    return ("" if lang == "zh" else " ").join(parts)


def detected_nvidia(live: Live) -> str | None:
    """The answer detection suggests for "do you have NVIDIA": yes/no, or None (can't tell)."""
    if not (live.settled("hardware") and live.settled("nvidia")):
        return None
    done = live.state("hardware") == "done" and live.state("nvidia") == "done"
    return judgement.detected_has_nvidia(live.gpus(), done)


def nvidia_detection_note(live: Live, lang: str) -> Check:
    answer = detected_nvidia(live)
    if answer == "yes":
        gpu = next(g for g in live.gpus() if g.vendor == "nvidia")
        return Check("ok", _u("detect.nvidia_yes", lang, gpu=gpu.name))
    if answer == "no":
        return Check("info", _u("detect.nvidia_no", lang))
    if not (live.settled("hardware") and live.settled("nvidia")):
        return Check("pending", _u("detect.nvidia_pending", lang))
    return Check("warning", _u("detect.nvidia_unknown", lang))


def chassis(live: Live) -> str | None:
    if live.recorded is not None:
        return live.recorded.chassis
    return live.hardware.chassis if live.hardware else None


def detected_form_factor(live: Live) -> str | None:
    return judgement.detected_form_factor(chassis(live))


def form_factor_checks(live: Live, lang: str, answered: bool = False) -> list[Check]:
    """`answered`: the answer is the user's (or, replayed, the student's), not detection's."""
    problem = _probe_problem(live, "hardware", lang)
    if problem:
        return [problem]
    kind = chassis(live) or "unknown"
    evidence = live.recorded.chassis_evidence if live.recorded else live.hardware.evidence  # type: ignore[union-attr]
    kind_text = _u(f"chassis.{kind}", lang)
    why = _u("detect.because", lang, evidence=chassis_evidence_text(evidence[0], lang)) if evidence else ""
    answer = detected_form_factor(live)
    if answer and answered:
        return [Check("ok", _u("detect.chassis_only", lang, kind=kind_text, why=why))]
    if answer:
        option = t(f"guide.options.form_factor.{answer}", lang)
        return [Check("ok", _u("detect.chassis", lang, kind=kind_text, why=why, answer=option))]
    if kind == "unknown":
        return [Check("warning", _u("detect.chassis_unknown", lang))]
    return [Check("info", _u("detect.chassis_virtual", lang, kind=kind_text, why=why))]


def budget_checks(live: Live, lang: str) -> list[Check]:
    out: list[Check] = []
    problem = _probe_problem(live, "system", lang)
    if problem:
        out.append(problem)
    elif live.system and live.system.disk_free_gb is not None:
        free = live.system.disk_free_gb
        kind = judgement.disk_severity(free) or "ok"
        key = "check.disk_low" if kind == "warning" else "check.disk"
        out.append(Check(kind, _u(key, lang, free=num(free, lang))))
    info = live.torch_info()
    if info is not None and info.status == "ok" and info.install_size_mb:
        libs = ""
        if info.libraries_size_mb:
            libs = _u("check.torch_libs", lang, libs=num(info.libraries_size_mb, lang))
        out.append(Check("info", _u("check.torch_size", lang, version=info.version or "",
                                    build=info.build or t("check.unknown", lang),
                                    size=num(info.install_size_mb, lang),
                                    libs=libs)))
    elif live.state("torch") == "pending":
        out.append(Check("pending", _u("check.torch_pending", lang)))
    out.append(Check("info", _u("check.cuda_size", lang)))
    return out


def local_gpu_memory(machine: Machine, knowledge: Any) -> tuple[str, float | None, float | None] | None:
    """(name, usable GPU memory, memory as shown) of the GPU the advice would use; None when
    there is none. The first size is compared with the goal, the second is the one shown."""
    # The advice's own rule, so both always agree. Imported here, not at the top: with the
    # torch wording above, +60 ms of CPU before the first screen (target: 1.5× a minimal
    # Textual app's time; 2026-12-04); it runs once the probes have answered.
    from wizard.advise import local_gpu

    local = local_gpu(machine, knowledge)
    return (local.name, local.vram_gb, local.shown_gb) if local is not None else None


def goal_checks(live: Live, lang: str, goal: Any, knowledge: Any) -> list[Check]:
    out = [Check("info", _u("check.goal_need", lang, goal=goal.label(lang), min=num(goal.min_vram_gb, lang),
                            comfortable=num(goal.comfortable_vram_gb, lang),
                            ram=num(goal.min_ram_gb, lang)))]
    machine = live.machine(need_torch=False)
    if machine is None:
        return out + [Check("pending", _u("check.goal_pending", lang))]
    local = local_gpu_memory(machine, knowledge)
    if local is None:
        out.append(Check("warning", _u("check.vram_none", lang)))
    else:
        name, vram, shown = local
        if vram is None:
            out.append(Check("info", _u("check.vram_unknown", lang, gpu=name)))
        elif vram >= goal.comfortable_vram_gb:
            out.append(Check("ok", _u("check.vram_comfortable", lang, gpu=name, vram=gb(shown, lang))))
        elif vram >= goal.min_vram_gb:
            out.append(Check("warning", _u("check.vram_enough", lang, gpu=name, vram=gb(shown, lang))))
        else:
            out.append(Check("error", _u("check.vram_short", lang, gpu=name, vram=gb(shown, lang),
                                         min=num(goal.min_vram_gb, lang))))
    ram = machine.ram_gb
    if ram is not None:
        key, kind = ("check.ram_ok", "ok") if ram >= goal.min_ram_gb else ("check.ram_short", "warning")
        out.append(Check(kind, _u(key, lang, ram=gb(ram, lang), need=num(goal.min_ram_gb, lang))))
    return out
