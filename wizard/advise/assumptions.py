"""What the answers say, and what the advice assumes where they were "not sure"."""

from __future__ import annotations

import re

from wizard.advise.recommendation import Draft
from wizard.answers import Answers
from wizard.diagnosis.judgement import detected_form_factor
from wizard.knowledge.goals import Goal
from wizard.knowledge.records import Knowledge
from wizard.probe.facts import Machine
from wizard.text.i18n import has, t

# ------------------------------------------------------------------------- the answers ---

def answered_goal(answers: Answers, knowledge: Knowledge, assumed: list[str]) -> Goal:
    try:
        return knowledge.goal(answers.goal)
    except KeyError:
        # Answers are validated against the knowledge before they get here; this only
        # guards a caller that skipped that, so the advice still has a goal.
        assumed.append("goal")
        return knowledge.goals[0]


def goal_phrase(goal: Goal, lang: str) -> str:
    """The goal as it reads inside a sentence: "enough for fine-tuning LLMs"."""
    key = f"advice.goal-phrase.{goal.id}"
    if has(key, lang):
        return t(key, lang)
    return re.sub(r"\s*[(（].*?[)）]\s*", " ", goal.label(lang)).strip()


def answered_form_factor(answers: Answers, machine: Machine, assumed: list[str]) -> str:
    if answers.form_factor != "unsure":
        return answers.form_factor
    assumed.append("form_factor")
    detected = detected_form_factor(machine.chassis)   # what the wizard pre-selects
    if detected is not None:
        return detected
    # Can't tell (VM, container, WSL): assume the computer can't take a card, the cautious
    # choice; a desktop owner loses nothing but a suggestion.
    return "laptop"


def assumption_text(assumed: list[str], form: str, goal_label: str, lang: str,
                     nvidia_found: bool, host_hidden: bool = False) -> str:
    parts = []
    for name in assumed:
        key = f"form_factor-{form}" if name == "form_factor" else name
        if name == "form_factor" and host_hidden:
            key = "form_factor-hidden"
        if name == "has_nvidia" and not nvidia_found:
            key = "has_nvidia-none"  # "the GPU found here is yours" needs a GPU found
        parts.append(t(f"advice.assume.{key}", lang, goal=goal_label))
    return t("advice.assume.joiner", lang).join(parts)


def answer_disagreements(answers: Answers, machine: Machine, draft: Draft) -> None:
    """What this computer shows wins over the answer; say so when they differ."""
    nvidia = machine.nvidia_gpus()
    if answers.has_nvidia == "yes" and not nvidia:
        draft.add("said-nvidia-not-found")
    elif answers.has_nvidia == "no" and nvidia:
        draft.add("said-no-nvidia-found", gpu=nvidia[0].name)
    if answers.form_factor in ("desktop", "laptop", "laptop-only") and machine.chassis in ("vm", "container", "wsl"):
        # The advice is about the physical computer; this program only sees a guest inside it.
        draft.add(f"runs-inside-{machine.chassis}")
