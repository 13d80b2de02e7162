"""One judgement, one voice: every recorded machine, through every renderer (`check`, `report
show`, the headless run, the wizard's panels and the roster), gets the same marks for the NVIDIA
driver and PyTorch, the same next step, and an install line only where installing is the fix."""

from __future__ import annotations

import re

import pytest

from screens import panels
from tests.recorded import MACHINE_NAMES, machine
from wizard.answers import Answers
from wizard.commands.check import render_text
from wizard.diagnosis.judgement import INSTALL_FIXES
from wizard.evaluate import evaluate
from wizard.knowledge.load import load_knowledge
from wizard.machine.live import from_machine
from wizard.presentation import present
from wizard.report.building import build_report
from wizard.report.roster import summarize
from wizard.report.show import presentation_of, render_recommendation, render_report
from wizard.text.i18n import t
from wizard.text.output import mark

ANSWERS = Answers("yes", "unsure", "desktop", 1500, "USD", "learning")
# A line that is an install command on its own (what a user would paste).
INSTALL_LINE = re.compile(r"^\s*(\S*python\S*\s+-m\s+)?(uv\s+)?pip3?\s+install\b", re.MULTILINE)


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _mark_of(text: str, label: str) -> str:
    """The mark in front of the line that starts with `label` (after the mark)."""
    marks = {mark(severity) for severity in ("ok", "info", "warning", "error")}
    for line in text.splitlines():
        body = line.strip()
        head, _, rest = body.partition(" ")
        if head in marks and rest.startswith(label):
            return head
    raise AssertionError(f"no line for {label!r} in:\n{text}")


def _torch_mark_in_check(text: str, lang: str) -> str:
    lines = text.splitlines()
    at = lines.index(t("check.torch", lang))
    return lines[at + 1].strip().split(" ", 1)[0]


@pytest.fixture(scope="module")
def knowledge():
    return load_knowledge()


def _outcome(name: str, lang: str, knowledge):
    return evaluate(machine(name, lang), ANSWERS, knowledge, lang)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", MACHINE_NAMES)
def test_every_renderer_agrees(name, lang, knowledge, capsys):
    outcome = _outcome(name, lang, knowledge)
    m, findings, rec = outcome
    view = outcome.shown(lang)

    # `check` (no answers): the same marks, and the same leading problem.
    alone = present(m, findings, None, lang)
    text = render_text(m, list(findings), lang)
    assert (alone.nvidia, alone.torch) == (view.nvidia, view.torch)
    assert _mark_of(text, t("check.nvidia", lang)) == mark(view.nvidia)
    if m.torch is not None:
        assert _torch_mark_in_check(text, lang) == mark(view.torch)
    assert _squeeze(alone.action_text) in _squeeze(text)
    if view.action.kind in ("install", "fix") and view.action.finding:
        assert (alone.action.kind, alone.action.finding) == (view.action.kind, view.action.finding)

    # The report as saved (redacted), read back by `report show` and the headless run.
    report = build_report(ANSWERS, m, findings, rec, lang)
    read_back = presentation_of(report, lang)
    assert (read_back.action, read_back.nvidia, read_back.torch, read_back.ready) == \
        (view.action, view.nvidia, view.torch, view.ready)
    shown = render_report(report, lang, knowledge)
    assert _mark_of(shown, t("report.show.nvidia", lang)) == mark(view.nvidia)
    if m.torch is not None:
        assert _mark_of(shown, t("report.show.torch", lang)) == mark(view.torch)
    headless = render_recommendation(report, lang, knowledge)
    for out in (shown, headless):
        assert _squeeze(read_back.action_text) in _squeeze(out)

    # The wizard's live panels.
    live = from_machine(m)
    assert panels.nvidia_check(live, lang).kind == view.nvidia
    if m.torch is not None:
        assert panels.torch_check(live, lang).kind == view.torch

    # The roster.
    row = summarize([("student.toml", report)])[0]
    assert row["ready"] == ("yes" if view.ready else "no")
    assert row["torch_gpu"] == ("yes" if view.torch_on_gpu else "no")

    # The install line: only where installing is the action, and then in every renderer.
    if view.action.kind == "install" and rec.torch_command:
        assert view.command == rec.torch_command
        saved = report["recommendation"]["torch_command"]
        assert saved in shown and saved in headless
    else:
        assert rec.torch_command is None and view.command is None
        assert "torch_command" not in report["recommendation"]
        for out in (shown, headless):
            assert t("report.show.torch-command", lang) not in out


def _kind(name: str, knowledge) -> tuple[str, str | None]:
    view = _outcome(name, "en", knowledge).shown("en")
    return view.action.kind, view.action.finding


@pytest.mark.parametrize("name, action", [
    ("nvidia-cuda-unknown-error", ("fix", "torch-cuda-unknown-error")),   # "do not reinstall"
    ("intel-arc-xpu-no-driver", ("fix", "torch-xpu-not-available")),      # a driver fix
    ("nouveau", ("fix", "nvidia-nouveau-bound")),
    ("container-no-gpu", ("fix", "container-without-gpu-access")),
    ("rtx4090-cu128-healthy", ("keep", None)),                            # a working GPU build
    ("h200-server", ("keep", None)),
    ("apple-m2", ("keep", None)),
    ("laptop-4060", ("install", "torch-cpu-build-with-nvidia-gpu")),
])
def test_the_action_is_the_right_one(name, action, knowledge):
    assert _kind(name, knowledge) == action


@pytest.mark.parametrize("name", ["nvidia-cuda-unknown-error", "intel-arc-xpu-no-driver", "nouveau",
                                  "rtx4090-cu128-healthy", "h200-server", "apple-m2"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_install_line_where_installing_is_not_the_fix(name, lang, knowledge):
    outcome = _outcome(name, lang, knowledge)
    report = build_report(ANSWERS, outcome.machine, outcome.findings, outcome.recommendation, lang)
    for text in (render_recommendation(report, lang, knowledge), render_report(report, lang, knowledge)):
        # Not as the action, not as a line of its own in the advice.
        advice = text[text.index(t("report.show.recommendation", lang)):]
        assert not INSTALL_LINE.search(advice), advice
        assert t("report.show.torch-command", lang) not in advice


def test_a_working_gpu_build_is_told_to_keep_it_and_a_newer_release_is_only_named(knowledge):
    outcome = _outcome("rtx4090-cu128-healthy", "en", knowledge)
    view = outcome.shown("en")
    assert view.action_text == t("present.action.keep-gpu", "en")
    rec = outcome.recommendation
    assert rec.newer_torch and view.upgrade_text and rec.newer_torch in view.upgrade_text
    assert view.upgrade_text.startswith("Optional")


def test_every_finding_with_a_command_is_classified():
    """INSTALL_FIXES lists the findings whose fix is the install command. A new finding whose fix
    holds {command} must be put there, or here among those where something else comes first
    (a driver update, a reboot) and the command is the fallback, so that it can never end up
    as an install line beside "do not reinstall", nor hide the one that fixes it."""
    import tomllib

    from wizard.knowledge.content import content_dir

    with (content_dir() / "en" / "strings" / "torch.toml").open("rb") as fh:
        findings = tomllib.load(fh)["findings"]
    with_command = {fid for fid, texts in findings.items()
                    if isinstance(texts, dict) and "{command}" in texts.get("fix", "")}
    something_else_first = {"torch-cuda-build-without-gpu", "torch-cuda-not-available", "torch-driver-too-old",
                            "torch-driver-too-old-said", "torch-gpu-test-failed", "torch-macos-too-old"}
    assert INSTALL_FIXES <= with_command
    assert with_command - INSTALL_FIXES == something_else_first


@pytest.mark.parametrize("currency", ["USD", "CNY"])
@pytest.mark.parametrize("name", MACHINE_NAMES)
def test_both_languages_give_the_same_figures(name, currency, knowledge):
    """A page read in Chinese names the same clouds, GPU sizes and prices as in English: the
    market comes from the budget's currency, never from the language."""
    answers = Answers("no", "unsure", "laptop", 800 if currency == "USD" else 5000, currency, "llm-inference")
    recs = {lang: evaluate(machine(name, lang), answers, knowledge, lang).recommendation
            for lang in ("en", "zh")}
    en, zh = recs["en"], recs["zh"]
    assert (en.verdict, en.action, en.torch_command) == (zh.verdict, zh.action, zh.torch_command)
    assert [p.id for p in en.platforms] == [p.id for p in zh.platforms]
    assert [(g.name, g.price) for g in en.gpus] == [(g.name, g.price) for g in zh.gpus]

    def sizes(texts):
        return sorted(re.findall(r"(\d+(?:\.\d+)?) ?GB", " ".join(texts)))

    assert sizes(en.reasons) == sizes(zh.reasons), (en.reasons, zh.reasons)
