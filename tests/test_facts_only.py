"""Facts in, words out (issue 25): the Machine holds facts and reason codes only, the same in every
language; the renderers word them when they draw, so a language switch re-renders the same Machine.
A sentence that gets back into the Machine (a probe, `identify`, a reader or the wizard's Live
wording a fact in the reader's language) fails here. And redaction works on the Machine itself,
by the report's rules.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest

from tests.recorded import MACHINE_FILES, MACHINE_NAMES, machine, machine_path
from wizard.answers import Answers
from wizard.diagnosis.diagnose import diagnose
from wizard.diagnosis.nvidia_cause import nvidia_message
from wizard.evaluate import evaluate
from wizard.knowledge.load import load_knowledge
from wizard.machine.live import Probes, from_machine, settle
from wizard.machine.recorded import load_machine
from wizard.probe.facts import Machine, ProbeNote, to_dict
from wizard.pytorch.wording import torch_message
from wizard.report.building import build_report
from wizard.report.redaction import redact_machine, redact_report
from wizard.report.saving import dumps_report
from wizard.state import WizardState
from wizard.text.output import CJK_RANGES

CJK = re.compile(f"[{CJK_RANGES}]")
ANSWERS = Answers("yes", "unsure", "laptop", 5000, "CNY", "learning")


def texts(obj: Any):
    """Every string a record holds, however deep."""
    if dataclasses.is_dataclass(obj):
        for f in dataclasses.fields(obj):
            yield from texts(getattr(obj, f.name))
    elif isinstance(obj, (tuple, list)):
        for value in obj:
            yield from texts(value)
    elif isinstance(obj, str):
        yield obj


def assert_facts_only(found: Machine, name: str) -> None:
    """No sentence of ours in `found`: no NVIDIA or PyTorch message, no text that the renderers
    word, in either language, and no Chinese the recording itself does not hold."""
    recorded_text = machine_path(name).read_text(encoding="utf-8")
    assert found.nvidia.message is None, found.nvidia.message   # no recorded machine quotes its run
    assert found.torch is None or found.torch.message is None, found.torch.message
    worded = {nvidia_message(found, lang) for lang in ("en", "zh")}
    if found.torch is not None:
        worded |= {torch_message(found.torch, lang) for lang in ("en", "zh")}
    for text in texts(found):
        assert not any(sentence in text for sentence in worded), text
        assert not CJK.search(text) or text in recorded_text, text


def probes_of(recorded: Machine) -> Probes:
    """The live probes, answering what `recorded` holds: the wizard's and `check`'s way in."""
    live = from_machine(recorded)
    return Probes(system=lambda: live.system, nvidia=lambda: live.nvidia, hardware=lambda: live.hardware,
                  torch=(lambda: live.torch) if live.torch is not None else None)


@pytest.mark.parametrize("name", MACHINE_NAMES)
def test_a_machine_is_the_same_in_every_language_and_holds_no_sentence(name):
    en, zh = machine(name, "en"), machine(name, "zh")
    assert en == zh
    assert_facts_only(en, name)
    # Probed (the probes' answers assembled and identified), as `check` and the wizard build it.
    probed = settle(probes_of(en))
    assert_facts_only(probed, name)
    # The wizard's: one Machine, whichever language the pages are read in.
    live = dataclasses.replace(from_machine(en), recorded=None)
    seen = [WizardState(lang, live).outcome() for lang in ("en", "zh")]
    assert seen[0] is not None and seen[1] is not None
    assert seen[0].machine == seen[1].machine == probed
    # A language switch words the same Machine again; it does not build another.
    state = WizardState("en", from_machine(en))
    before = state.outcome()
    state.lang = "zh"
    after = state.outcome()
    assert before is not None and after is not None and after.machine is before.machine


@pytest.fixture(scope="module")
def knowledge():
    return load_knowledge()


@pytest.mark.parametrize("name", MACHINE_NAMES)
def test_a_report_keeps_its_sentences_and_reading_it_takes_the_facts(name, tmp_path, knowledge):
    """The report format keeps `message` (written in the report's language); read back, in
    either language, the Machine is the facts alone, the same as the one the report was built from."""
    original = machine(name)
    read = {}
    for lang in ("en", "zh"):
        outcome = evaluate(original, ANSWERS, knowledge, lang)
        report = build_report(ANSWERS, original, outcome.findings, outcome.recommendation, lang, redact=False)
        assert report["machine"]["nvidia"]["message"] == nvidia_message(original, lang)
        if original.torch is not None:
            assert report["machine"]["torch"]["message"] == torch_message(original.torch, lang)
        path = tmp_path / f"{lang}.toml"
        path.write_text(dumps_report(report), encoding="utf-8")
        read[lang] = load_machine(path, "en" if lang == "zh" else "zh")
    assert read["en"] == read["zh"] == original


def test_a_timeout_is_worded_from_its_probe_note_not_kept_as_a_sentence():
    """The seconds NVML was waited for and what it printed stay facts (the nvml probe note)."""
    recorded = machine("laptop-4060")
    live = from_machine(recorded)
    nvidia = live.nvidia._replace(
        info=dataclasses.replace(recorded.nvidia, status="timeout", reason=None, driver_version=None),
        gpus=(), note=ProbeNote("nvml", "timeout", 8.0, "no answer"))
    probes = probes_of(recorded)
    found = settle(probes._replace(nvidia=lambda: nvidia))
    assert found.nvidia.message is None and found.nvidia.reason == "timeout"
    assert "8 seconds" in nvidia_message(found, "en") and "8 秒" in nvidia_message(found, "zh")


# ------------------------------------------------------------------ redacting the Machine ---

def identifying(name: str) -> Machine:
    """A recorded machine with a host name, a GPU UUID and the user's folders in its texts."""
    found = machine(name)
    notes = found.probes + (ProbeNote("x", "error", detail="host alice-zenbook at 192.168.1.23, /home/alice/x"),)
    gpus = tuple(dataclasses.replace(g, uuid="GPU-8f9a1b2c-3d4e-5f60-7182-93a4b5c6d7e8") for g in found.gpus)
    torch = found.torch and dataclasses.replace(found.torch, interpreter="/home/alice/venv/bin/python3",
                                                error_line="torch at /home/alice/venv/lib/torch failed")
    return dataclasses.replace(found, hostname="alice-zenbook", gpus=gpus, torch=torch, probes=notes)


@pytest.mark.parametrize("path", MACHINE_FILES, ids=lambda p: p.stem)
def test_redacting_the_machine_is_redacting_its_report_table(path):
    """`check` redacts the Machine itself (no trip through a table and back), by the rules the
    report's table is redacted with: field for field the same."""
    found = identifying(path.stem)
    findings = diagnose(found, "en")
    identity: dict[str, Any] = {"identifiers": ["alice"], "folders": [], "full_name": ""}
    shared, shared_findings = redact_machine(found, findings, **identity)
    table = redact_report({"machine": to_dict(found), "findings": [to_dict(f) for f in findings]}, **identity)
    assert to_dict(shared) == table["machine"]
    assert [to_dict(f) for f in shared_findings] == table["findings"]
    assert shared.hostname is None and all(g.uuid is None for g in shared.gpus)
    assert "alice" not in repr(shared)
