"""advise(): the order a good TA asks the questions in, from the answers to one Recommendation."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from wizard.advise.assumptions import (
    answer_disagreements,
    answered_form_factor,
    answered_goal,
    assumption_text,
    goal_phrase,
)
from wizard.advise.clouds import best_free_vram, rank_platforms
from wizard.advise.hardware import new_hardware
from wizard.advise.local import current_gpu_verdict, describe_missing_gpu, fix_first, local_gpu
from wizard.advise.money import number_text
from wizard.advise.recommendation import CPU_ENOUGH_VRAM_GB, MAX_PICKS, Draft, GpuPick, Recommendation
from wizard.answers import Answers
from wizard.diagnosis.findings import Finding
from wizard.diagnosis.judgement import KNOWN_CHASSIS, decide
from wizard.knowledge.records import Knowledge
from wizard.presentation import device_of
from wizard.probe.facts import Machine
from wizard.text.i18n import t


def advise(answers: Answers, machine: Machine, knowledge: Knowledge, lang: str = "en",
           findings: Iterable[Finding] = (), torch_choice: Any = None) -> Recommendation:
    """The advice for this user and machine.

    `findings` come from wizard.diagnosis.diagnose; `torch_choice` is wizard.pytorch.choose's choice for this
    machine (anything with `.command` and `.reason`); without it no command is given.
    """
    findings = tuple(findings)
    draft = Draft(lang)
    assumed: list[str] = []
    goal = answered_goal(answers, knowledge, assumed)
    goal_label = goal_phrase(goal, lang)
    form = answered_form_factor(answers, machine, assumed)
    if answers.need_gpu == "unsure":
        assumed.append("need_gpu")
    if answers.has_nvidia == "unsure":
        assumed.append("has_nvidia")
    if answers.budget_amount is None:
        assumed.append("budget_amount")
    local = local_gpu(machine, knowledge)
    errors = [f for f in findings if f.severity == "error"]
    torch_command = getattr(torch_choice, "command", None) if torch_choice is not None else None
    # The buyer's market, from the one answer that says it: the language a page is read in
    # must not change which clouds (and so which free GPU sizes) it names.
    region_cn = answers.budget_currency == "CNY"
    platforms = rank_platforms(knowledge, goal, lang, region_cn)
    platform_name = platforms[0].name if platforms else t("advice.headline.no-platform", lang)
    common = {"goal": goal_label, "min": number_text(goal.min_vram_gb),
              "comfortable": number_text(goal.comfortable_vram_gb)}

    answer_disagreements(answers, machine, draft)
    if form == "server" and machine.chassis == "server":
        draft.add("server-ssh")

    verdict: str
    headline_key: str
    values: dict[str, Any] = dict(common, platform=platform_name)
    picks: tuple[GpuPick, ...] = ()
    cheapest: GpuPick | None = None
    cheapest_total: float | None = None
    shown_platforms = platforms

    said_no = answers.need_gpu == "no"
    local_enough = local is not None and (local.vram_gb is None or local.vram_gb >= goal.min_vram_gb)
    if said_no and goal.min_vram_gb > CPU_ENOUGH_VRAM_GB:
        # The goal answers the "no": never "you don't need a GPU for fine-tuning LLMs".
        draft.add("said-no-gpu-heavy-goal", **common)
    if said_no and goal.min_vram_gb <= CPU_ENOUGH_VRAM_GB:
        verdict, headline_key = "no-gpu-needed", "no-gpu-needed"
        draft.add("cpu-start")
        fix_first(errors, draft)
        shown_platforms = tuple(p for p in platforms if p.kind != "paid")
    elif local is not None and local_enough:
        verdict, headline_key = current_gpu_verdict(local, machine, goal, errors, draft, values,
                                                     has_command=bool(torch_command))
        shown_platforms = tuple(p for p in platforms if p.kind != "paid")
        if verdict == "use-current-gpu" and local.vram_gb is not None:
            # A working GPU here: a cloud GPU is only worth naming when it is bigger (an H200
            # server is never sent to free T4s).
            shown_platforms = tuple(p for p in platforms
                                    if knowledge.platform(p.id).max_vram_gb > local.vram_gb
                                    and local.vram_gb < goal.comfortable_vram_gb)
    elif said_no:
        # No GPU here and none wanted: a cloud GPU, not a purchase.
        draft.add("goal-need", **common)
        describe_missing_gpu(local, machine, goal, draft, common)
        fix_first(errors, draft)
        free_vram = best_free_vram(knowledge, platforms, goal)
        if free_vram >= goal.min_vram_gb:
            draft.add("free-fits", vram=number_text(free_vram), goal=goal_label)
            verdict, headline_key = "use-free-cloud", "said-no-use-free-cloud"
            shown_platforms = tuple(p for p in platforms if p.kind != "paid") or platforms
        else:
            draft.add("free-too-small", vram=number_text(free_vram), min=common["min"], goal=goal_label)
            verdict, headline_key = "rent-cloud", "said-no-rent-cloud"
            shown_platforms = tuple(p for p in platforms if p.kind == "paid") + tuple(
                p for p in platforms if p.kind != "paid")
        values["platform"] = shown_platforms[0].name if shown_platforms else platform_name
    else:
        draft.add("goal-need", **common)
        describe_missing_gpu(local, machine, goal, draft, common)
        fix_first(errors, draft)
        verdict, headline_key, picks, cheapest, cheapest_total = new_hardware(
            answers, machine, knowledge, goal, form, lang, draft, values, platforms)
        if verdict == "use-free-cloud":
            shown_platforms = tuple(p for p in platforms if p.kind != "paid") or platforms
        elif verdict == "rent-cloud":
            shown_platforms = tuple(p for p in platforms if p.kind == "paid") + tuple(
                p for p in platforms if p.kind != "paid")
        values["platform"] = shown_platforms[0].name if shown_platforms else platform_name

    if machine.ram_gb is not None and machine.ram_gb < goal.min_ram_gb and verdict not in (
            "buy-desktop", "buy-laptop", "use-free-cloud", "rent-cloud"):
        # The goal step warned about it; the advice that works on this computer says it too.
        draft.add("ram-short", ram=number_text(machine.ram_gb), need=number_text(goal.min_ram_gb), goal=goal_label)
    if torch_choice is not None and torch_command is None and getattr(torch_choice, "reason", None):
        draft.add("no-torch-command", reason=torch_choice.reason)
    if torch_choice is not None and "gpu-limits" in (getattr(torch_choice, "warning_ids", None) or ()):
        # The newest PyTorch dropped this GPU (Maxwell, Pascal, Volta after 2.14.1): it still
        # works, frozen on an old release, and that belongs in the advice, not only the command.
        draft.add("gpu-support-ended", version=torch_choice.torch_version)

    offered = getattr(torch_choice, "torch_version", None)
    action = decide(machine, findings, verdict, newer=offered)
    target = device_of(getattr(torch_choice, "variant", None))
    if action.kind != "install":
        torch_command = None   # never an unexplained install beside "keep it" or "fix this first"
    elif torch_command is None and getattr(torch_choice, "cpu_fallback", None):
        # No GPU build fits (an AMD card no ROCm build lists): the CPU build is what to install.
        torch_command, target = torch_choice.cpu_fallback, "cpu"
    headline = t(f"advice.headline.{headline_key}", lang, **values)
    if assumed:
        headline = t("advice.headline.assumed", lang, headline=headline.rstrip(".。"),
                     assumptions=assumption_text(assumed, form, goal_label, lang,
                                                  bool(machine.nvidia_gpus()),
                                                  machine.chassis not in KNOWN_CHASSIS))
    return Recommendation(
        verdict=verdict,
        headline=headline,
        reasons=tuple(draft.reasons),
        torch_command=torch_command,
        gpus=picks,
        platforms=shown_platforms[:MAX_PICKS],
        goal=goal.id,
        form_factor=form,
        assumed=tuple(assumed),
        cheapest_adequate=cheapest,
        cheapest_total=cheapest_total,
        mac_purchase=draft.mac_purchase,
        action=action.kind,
        action_finding=action.finding,
        newer_torch=offered if action.kind == "keep" and action.upgrade else None,
        torch_version=offered if torch_command else None,
        torch_target=target if torch_command else None,
    )
