"""Replay: `gpu-wizard --machine REPORT` shows a TA what the student saw.

The student's report is produced the way a student produces it (the headless run on a recorded
machine); the TA's wizard is then driven with Pilot, and the CLI end is checked in a process.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from screens.app import make_app
from tests.conftest import run_cli
from tests.pilot import answer, at_step, shown, until
from tests.recorded import MACHINES
from wizard.knowledge.load import load_knowledge
from wizard.machine.recorded import MachineFileError, load_recording
from wizard.text.i18n import t

STUDENT_ANSWERS = """
[answers]
need_gpu = "yes"
has_nvidia = "yes"
form_factor = "laptop"
budget_amount = 5000
budget_currency = "CNY"
goal = "kaggle"
"""


@pytest.fixture
def student_report(tmp_path) -> Path:
    answers = tmp_path / "answers.toml"
    answers.write_text(STUDENT_ANSWERS, encoding="utf-8")
    out = tmp_path / "student.toml"
    done = run_cli("--answers", str(answers), "--machine", str(MACHINES / "laptop-4060.toml"),
                   "--report", str(out), "--lang", "zh")
    assert done.returncode == 0, done.stderr
    return out


def recording(path: Path):
    return load_recording(path, load_knowledge())


def test_a_report_gives_machine_answers_language_date_and_verdict(student_report):
    rec = recording(student_report)
    data = tomllib.loads(student_report.read_text(encoding="utf-8"))
    assert rec.is_report
    assert rec.language == "zh"
    assert rec.answers.goal == "kaggle" and rec.answers.budget_amount == 5000
    assert rec.answers.budget_currency == "CNY" and rec.answers.form_factor == "laptop"
    assert rec.verdict == data["recommendation"]["verdict"]
    assert rec.headline == data["recommendation"]["headline"]
    assert rec.created and rec.created.endswith("UTC")
    assert rec.machine.gpus[0].name == "NVIDIA GeForce RTX 4060 Laptop GPU"


def test_a_fixture_without_answers_is_a_recorded_machine_not_a_report():
    rec = recording(MACHINES / "vm-no-gpu.toml")
    assert not rec.is_report and rec.answers is None and rec.verdict is None


def test_bad_answers_are_set_aside_with_reasons_and_the_machine_still_loads(student_report):
    text = student_report.read_text(encoding="utf-8").replace('goal = "kaggle"', 'goal = "mining"')
    student_report.write_text(text, encoding="utf-8")
    rec = recording(student_report)
    assert rec.is_report
    assert any("answers.goal" in p and "mining" in p for p in rec.answers_problems)
    # Only the bad answer is left out; the student's other answers stay.
    assert rec.answers.goal == "learning"          # the default: "not answered"
    assert (rec.answers.budget_amount, rec.answers.form_factor) == (5000, "laptop")
    assert rec.answers_left_out == {"goal"}
    assert rec.machine.gpus
    from wizard.state import replay_session

    # The wizard asks the goal again instead of presenting the default as the student's answer.
    assert "goal" not in replay_session(rec).touched and "budget" in replay_session(rec).touched


def test_a_bad_currency_takes_the_amount_with_it(student_report):
    text = student_report.read_text(encoding="utf-8").replace('"CNY"', '"XYZ"')
    student_report.write_text(text, encoding="utf-8")
    rec = recording(student_report)
    assert rec.answers.budget_amount is None and rec.answers.goal == "kaggle"


def test_a_report_without_a_machine_is_an_error(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('schema = "gpu-wizard/report/1"\n[answers]\ngoal = "kaggle"\n', encoding="utf-8")
    with pytest.raises(MachineFileError, match="no \\[machine\\]"):
        recording(bad)


async def test_replay_prefills_every_answer_and_marks_every_step(student_report, tmp_path):
    rec = recording(student_report)
    app = make_app("zh", replay=rec, report_path=tmp_path / "ta.toml")
    async with app.run_test(size=(80, 24)) as pilot:
        steps_seen = []
        await at_step(pilot, "welcome")
        for step in ("welcome", "need_gpu", "has_nvidia", "form_factor", "budget", "goal"):
            await at_step(pilot, step)
            banner = shown(app.screen.query_one("#replay-banner"))
            assert "student.toml" in banner and "回放" in banner
            panel = app.screen.query_one("#checks")
            assert panel.border_title == t("ui.panel.title_recorded", "zh")
            if step == "budget":
                assert app.screen.query_one("#amount").value == "5000"
            steps_seen.append(step)
            await pilot.press("ctrl+n")   # accept what is shown: the student's answer
        await at_step(pilot, "result")
        assert "student.toml" in shown(app.screen.query_one("#replay-banner"))
        await until(pilot, lambda: app.screen.query("#recorded-advice"), what="recorded advice")
        assert shown(app.screen.query_one("#recorded-advice")) == "".join(
            t("ui.replay.recorded_advice_same", "zh").split())
    assert app.state.session.answers == rec.answers
    assert app.state.outcome().recommendation.verdict == rec.verdict


async def test_replay_shows_what_the_student_was_told_when_the_advice_now_differs(student_report):
    rec = recording(student_report)
    app = make_app("en", replay=rec)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_step(pilot, "welcome")
        await pilot.press("enter")
        await answer(pilot, "need_gpu", "no")   # the TA tries other answers
        for step in ("has_nvidia", "form_factor", "budget"):
            await at_step(pilot, step)
            await pilot.press("ctrl+n")
        await answer(pilot, "goal", "learning")  # (a "no" with Kaggle is answered by the goal)
        await at_step(pilot, "result")
        await until(pilot, lambda: app.screen.query("#recorded-advice"), what="recorded advice")
        note = shown(app.screen.query_one("#recorded-advice"))
    assert app.state.outcome().recommendation.verdict != rec.verdict
    assert "".join(rec.headline.split()) in note


async def test_a_plain_recorded_machine_is_marked_but_asks_the_questions():
    rec = recording(MACHINES / "vm-no-gpu.toml")
    app = make_app("en", replay=rec)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_step(pilot, "welcome")
        banner = shown(app.screen.query_one("#replay-banner"))
        await pilot.press("enter")
        await at_step(pilot, "need_gpu")
    assert "RECORDED" in banner and "vm-no-gpu.toml" in banner
    assert app.state.session.touched == frozenset()


async def test_the_live_wizard_has_no_replay_banner():
    from tests.recorded import machine

    app = make_app("en", machine=machine("laptop-4060"))
    async with app.run_test(size=(80, 24)) as pilot:
        await at_step(pilot, "welcome")
        assert not app.screen.query("#replay-banner")
        assert app.screen.query_one("#checks").border_title == t("ui.panel.title", "en")


def test_the_cli_refuses_a_broken_replay_file_in_one_line(tmp_path):
    bad = tmp_path / "broken.toml"
    bad.write_text("schema = [unclosed\n", encoding="utf-8")
    done = run_cli("--machine", str(bad))
    assert done.returncode == 2
    assert "broken.toml" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


async def test_a_replayed_answer_is_not_called_a_detection(student_report):
    app = make_app("en", replay=recording(student_report))
    async with app.run_test(size=(80, 24)) as pilot:
        await at_step(pilot, "welcome")
        await pilot.press("enter")
        await at_step(pilot, "need_gpu")
        await pilot.press("ctrl+n")
        await at_step(pilot, "has_nvidia")
        note = shown(app.screen.query_one("#note"))
    assert "".join(t("ui.replay.answered", "en").split()) in note
    assert "We chose" not in note


# ----------------------------------------------------- "available" is not "usable" ---

def test_the_nvidia_panel_marks_a_torch_without_the_gpus_kernels_as_an_error():
    from screens.panels import torch_check
    from tests.recorded import machine

    # GTX 1080 Ti (sm_61) with torch 2.8.0+cu128: cuda.is_available() is True, kernels are not there.
    assert torch_check(make_app("en", machine=machine("desktop-1080ti")).state.live, "en").kind == "error"
    assert torch_check(make_app("en", machine=machine("h200-server")).state.live, "en").kind == "ok"


def test_report_show_does_not_tick_a_torch_that_cannot_run_on_the_gpu(tmp_path):
    answers = tmp_path / "answers.toml"
    answers.write_text(STUDENT_ANSWERS, encoding="utf-8")
    shown_lines = {}
    # This VM as recorded, but with the CPU build of torch installed.
    vm = (MACHINES / "vm-no-gpu.toml").read_text(encoding="utf-8").replace(
        'status = "not-installed"\ninterpreter = "python3"\nmessage = "PyTorch is not installed for this Python."',
        'status = "ok"\ninterpreter = "python3"\nversion = "2.13.0+cpu"\nbuild = "cpu"\n'
        'cuda_available = false\nmps_available = false\ndevice_count = 0')
    assert 'version = "2.13.0+cpu"' in vm
    (tmp_path / "vm-cpu-torch.toml").write_text(vm, encoding="utf-8")
    for name in ("desktop-1080ti", "h200-server", "vm-cpu-torch"):
        out = tmp_path / f"{name}-report.toml"
        source = MACHINES / f"{name}.toml" if name != "vm-cpu-torch" else tmp_path / f"{name}.toml"
        assert run_cli("--answers", str(answers), "--machine", str(source),
                       "--report", str(out), "--lang", "en").returncode == 0
        show = run_cli("report", "show", str(out))
        shown_lines[name] = next(line for line in show.stdout.splitlines() if "PyTorch:" in line)
    assert "GPU in use: no" in shown_lines["desktop-1080ti"] and "✓" not in shown_lines["desktop-1080ti"]
    assert "GPU in use: yes" in shown_lines["h200-server"]
    # No GPU at all: a CPU build is what fits, not a warning.
    assert "GPU in use: no" in shown_lines["vm-cpu-torch"]
    assert not any(m in shown_lines["vm-cpu-torch"] for m in ("⚠", "✗", "[!]", "[x]"))


async def test_replay_never_says_detection_chose_what_the_student_answered(tmp_path):
    answers = tmp_path / "answers.toml"
    answers.write_text(STUDENT_ANSWERS.replace('form_factor = "laptop"', 'form_factor = "desktop"'),
                       encoding="utf-8")
    out = tmp_path / "desktop-answer.toml"
    assert run_cli("--answers", str(answers), "--machine", str(MACHINES / "laptop-4060.toml"),
                   "--report", str(out)).returncode == 0
    app = make_app("en", replay=recording(out))
    async with app.run_test(size=(80, 30)) as pilot:
        await at_step(pilot, "welcome")
        await pilot.press("enter")
        for step in ("need_gpu", "has_nvidia"):
            await at_step(pilot, step)
            await pilot.press("ctrl+n")
        await at_step(pilot, "form_factor")
        panel = " ".join(check.text for check in app.screen.checks())
        answer = app.screen.query_one("#answer").current
        await pilot.press("ctrl+n")
        await at_step(pilot, "budget")
        budget_note = shown(app.screen.query_one("#note"))
    assert answer == "desktop"
    assert "Detected: a laptop" in panel and "We chose" not in panel
    assert "".join(t("ui.replay.answered", "en").split()) in budget_note


async def test_a_report_saved_from_a_replay_says_it_is_one(student_report, tmp_path):
    from tests.pilot import save

    rec = recording(student_report)
    app = make_app("en", replay=rec, report_path=tmp_path / "ta-copy.toml")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_step(pilot, "welcome")
        for step in ("welcome", "need_gpu", "has_nvidia", "form_factor", "budget", "goal"):
            await at_step(pilot, step)
            await pilot.press("ctrl+n")
        await at_step(pilot, "result")
        saved = await save(pilot)
    data = tomllib.loads(saved.read_text(encoding="utf-8"))
    assert data["replay"] == {"of_report": True, "recorded": rec.created}
    # Readers of version 1 ignore a key they do not know: the copy is still a valid report.
    assert run_cli("report", "validate", str(saved)).returncode == 0
    shown_text = run_cli("report", "show", str(saved), "--lang", "en").stdout
    assert f"Saved from a replay of a report recorded {rec.created}" in shown_text


@pytest.mark.parametrize("replay, says", [
    ({"of_report": False, "recorded": "unknown"}, "report.show.replay-machine"),
    ({"of_report": True, "recorded": "unknown"}, "report.show.replay-undated"),
])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_report_show_says_what_was_replayed_without_a_placeholder_date(student_report, replay, says, lang):
    """A replay of a machine file (it has no date of its own) is not 'a report recorded unknown'."""
    import tomli_w

    data = tomllib.loads(student_report.read_text(encoding="utf-8"))
    data["replay"] = replay
    student_report.write_text(tomli_w.dumps(data), encoding="utf-8")
    shown_text = run_cli("report", "show", str(student_report), "--lang", lang).stdout
    assert "".join(t(says, lang).split()) in "".join(shown_text.split())
    assert "recorded unknown" not in shown_text and "记录于 未知" not in shown_text


def test_a_replayed_machine_with_many_gpus_and_long_names_shows_a_bounded_panel():
    import dataclasses

    from screens.panels import MAX_GPU_LINES, gpu_checks
    from screens.widgets import MAX_SHOWN_CHARS, Bullets
    from tests.recorded import machine as recorded_machine
    from wizard.machine.live import from_machine

    machine = recorded_machine("h200-server")
    gpu = dataclasses.replace(machine.gpus[0], name="H200 " * 2000)
    machine = dataclasses.replace(machine, gpus=(gpu,) * 60)
    checks = gpu_checks(from_machine(machine), "en")
    assert len(checks) == MAX_GPU_LINES + 1
    assert checks[-1].text == f"… and {60 - MAX_GPU_LINES} more GPUs (the report lists them all)."
    shown_items = Bullets([("•", c.text) for c in checks])._items
    assert all(len(text) <= MAX_SHOWN_CHARS for _, text in shown_items)
    assert shown_items[0][1].endswith("…")
