"""One number per fact: a card's memory reads the same on every screen and in every command.

A driver reports 11.99 GB for a 12 GB card and 140.4 GB for an H200 whose datasheet says 141;
the user must not read 11.99 in `check`, 12 in the wizard and 141 in the advice. For every
recorded machine, every "N GB" near a GPU's memory, in `check`, `report show`, the wizard's
check boxes and its advice, must be the one way wizard.text.output.gb_text says it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from wizard.answers import Answers
from wizard.evaluate import evaluate
from wizard.knowledge.load import load_knowledge
from wizard.machine.live import from_machine
from wizard.machine.recorded import load_machine
from wizard.report.building import build_report
from wizard.text.output import gb_text

MACHINES = sorted((Path(__file__).parent / "machines").glob("*.toml"))
GB = re.compile(r"(\d+(?:\.\d+)?)\s*GB")


def _texts(path: Path, lang: str) -> dict[str, str]:
    """What each front end says about the machine at `path`."""
    from screens import panels
    from wizard.commands.check import render_text
    from wizard.report.show import render_report

    knowledge = load_knowledge()
    machine = load_machine(path, lang)
    answers = Answers(need_gpu="yes", goal="llm-finetune", budget_amount=3000, budget_currency="USD")
    outcome = evaluate(machine, answers, knowledge, lang)
    report = build_report(answers, machine, outcome.findings, outcome.recommendation, lang)
    live = from_machine(machine)
    boxes = [c.text for c in panels.nvidia_checks(live, lang)]
    boxes += [c.text for c in panels.goal_checks(live, lang, knowledge.goal("llm-finetune"), knowledge)]
    rec = outcome.recommendation
    return {
        "check": render_text(machine, list(outcome.findings), lang),
        "report show": render_report(report, lang, knowledge),
        "wizard checks": "\n".join(boxes),
        "advice": "\n".join([rec.headline, *rec.reasons]),
    }


# "needs 4 GB or more", "至少 8 GB": what a goal needs, not what a card has.
_NEED_BEFORE = re.compile(r"(need[s]?|at least|至少|需要)\W{0,3}$")
_NEED_AFTER = re.compile(r"^\s*(or more|及以上|以上)")


def _is_a_need(text: str, match: re.Match) -> bool:
    return bool(_NEED_BEFORE.search(text[max(0, match.start() - 12):match.start()])
                or _NEED_AFTER.match(text[match.end():match.end() + 10]))


def _memories(path: Path) -> list[float]:
    machine = load_machine(path, "en")
    return [gpu.vram_gb for gpu in machine.gpus if gpu.vram_gb]


@pytest.mark.parametrize("path", [p for p in MACHINES if _memories(p)], ids=lambda p: p.stem)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_cards_memory_reads_the_same_everywhere(path, lang):
    memories = _memories(path)
    for where, text in _texts(path, lang).items():
        for match in GB.finditer(text):
            if _is_a_need(text, match):
                continue
            shown = float(match.group(1))
            for memory in memories:
                near = abs(shown - memory) <= max(0.1, 0.005 * memory)
                if near and not any(match.group(1) == gb_text(m) for m in memories):
                    pytest.fail(f"{where} says {match.group(0)!r} for a card of {memory} GB "
                                f"(everywhere else: {gb_text(memory)} GB):\n{text}")


def test_the_check_sees_a_second_spelling():
    """The test above would catch 11.99 next to 12: its pattern finds both."""
    found = [m.group(1) for m in GB.finditer("RTX 3060, 11.99 GB; 12 GB in the advice; 140.4GB")]
    assert found == ["11.99", "12", "140.4"]
    assert gb_text(11.99) == "12" and gb_text(140.4) == "140"
