"""`gpu-wizard --answers FILE --report OUT`: the wizard without a UI, run in-process."""

import dataclasses
import re
import sys
import tomllib

import pytest

from tests.recorded import MACHINES
from wizard.cli import main
from wizard.machine import live as live_module
from wizard.probe.facts import machine_from_dict
from wizard.report.validate import validate_report

CJK = re.compile(r"[\u4e00-\u9fff]")
GOOD = """\
[answers]
need_gpu = "yes"
has_nvidia = "yes"
form_factor = "laptop"
budget_amount = 6000
budget_currency = "CNY"
goal = "learning"
"""


def recorded(name: str):
    with (MACHINES / f"{name}.toml").open("rb") as fh:
        return machine_from_dict(tomllib.load(fh)["machine"])


@pytest.fixture(autouse=True)
def no_live_probes(monkeypatch):
    """Tests never probe the developer's machine; a test that wants a live run fakes it."""
    def refuse(*_args, **_kwargs):
        raise AssertionError("the headless run probed this machine")

    monkeypatch.setattr(live_module, "probe_this_machine", refuse)


def headless(tmp_path, answers_text=GOOD, machine="laptop-4060", lang="en", extra=()):
    answers = tmp_path / "answers.toml"
    if answers_text is not None:
        answers.write_text(answers_text, encoding="utf-8")
    out = tmp_path / "report.toml"
    argv = ["--answers", str(answers), "--report", str(out), "--lang", lang]
    if machine:
        argv += ["--machine", str(MACHINES / f"{machine}.toml")]
    return main(argv + list(extra)), out


def test_a_headless_run_writes_a_valid_report_and_prints_the_advice(tmp_path, capsys):
    code, out = headless(tmp_path)
    assert code == 0
    printed = capsys.readouterr().out
    report = tomllib.loads(out.read_text(encoding="utf-8"))
    assert validate_report(report) == []
    assert report["answers"]["budget_amount"] == 6000 and report["language"] == "en"
    assert report["recommendation"]["headline"] in printed.replace("\n  ", " ")
    assert report["recommendation"]["verdict"] == "fix-setup"
    assert "cu12" in report["recommendation"]["torch_command"]
    assert f"Report saved to {out}" in printed
    assert not CJK.search(printed.replace("¥", ""))


def test_chinese_runs_read_as_chinese(tmp_path, capsys):
    code, out = headless(tmp_path, lang="zh")
    assert code == 0
    printed = capsys.readouterr().out
    assert "建议" in printed and "报告已保存到" in printed
    report = tomllib.loads(out.read_text(encoding="utf-8"))
    assert report["language"] == "zh" and CJK.search(report["recommendation"]["headline"])


def test_a_saved_report_works_as_the_answers_file(tmp_path, capsys):
    code, first = headless(tmp_path, machine="vm-no-gpu")
    assert code == 0
    again = tmp_path / "again.toml"
    assert main(["--answers", str(first), "--machine", str(first), "--report", str(again),
                 "--lang", "en"]) == 0
    a = tomllib.loads(first.read_text(encoding="utf-8"))
    b = tomllib.loads(again.read_text(encoding="utf-8"))
    assert a["answers"] == b["answers"]
    assert a["machine"] == b["machine"]
    assert a["recommendation"] == b["recommendation"]


@pytest.mark.parametrize("text, words", [
    (GOOD.replace('need_gpu = "yes"', "need_gpu = 1"), ["answers.need_gpu", "expected text"]),
    (GOOD.replace('"laptop"', '"tablet"'), ["answers.form_factor", "'tablet'"]),
    (GOOD.replace("6000", "-20"), ["answers.budget_amount", "negative"]),
    (GOOD.replace("6000", "1e40"), ["answers.budget_amount", "implausibly large"]),
    (GOOD.replace("6000", "99999999999999999999"), ["answers.budget_amount", "implausibly large"]),
    (GOOD.replace("6000", "nan"), ["answers.budget_amount", "not a number"]),
    (GOOD.replace("6000", '"lots"'), ["answers.budget_amount", "expected a number"]),
    (GOOD.replace('"CNY"', '"EUR"'), ["answers.budget_currency", "'EUR'"]),
    (GOOD.replace('"learning"', '"mining"'), ["answers.goal", "'mining'", "learning"]),
    ('answers = "yes"\n', ["[answers]"]),
    ("[machine]\nos = 'Linux'\n", ["[answers]"]),
    ("this is = not [toml\n", ["TOML", "line 1"]),
], ids=["type", "enum", "negative", "huge", "huge-int", "nan", "text-number", "currency", "goal",
        "answers-not-table", "no-answers", "not-toml"])
def test_bad_answers_exit_2_and_write_nothing(tmp_path, capsys, text, words):
    code, out = headless(tmp_path, text)
    assert code == 2
    err = capsys.readouterr().err
    assert "answers.toml" in err
    for word in words:
        assert word in err
    assert "Traceback" not in err
    assert not out.exists()


def test_non_utf8_and_huge_answer_files(tmp_path, capsys):
    answers = tmp_path / "answers.toml"
    answers.write_bytes(GOOD.encode("utf-8").replace(b"learning", b"l\xe9arning"))
    code, out = headless(tmp_path, answers_text=None)
    assert code == 2 and not out.exists()
    assert "UTF-8" in capsys.readouterr().err

    answers.write_bytes(GOOD.encode("utf-8") + b"#" * 50_000_000)
    code, out = headless(tmp_path, answers_text=None)
    assert code == 2 and not out.exists()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "50.0 MB" in err


def test_a_missing_answers_file(tmp_path, capsys):
    code, out = headless(tmp_path, answers_text=None)
    assert code == 2 and not out.exists()
    assert "no such file" in capsys.readouterr().err


def test_an_existing_report_is_not_overwritten_and_nothing_is_probed(tmp_path, capsys):
    out = tmp_path / "report.toml"
    out.write_text("precious", encoding="utf-8")
    code, _ = headless(tmp_path, machine=None)  # would probe (and fail) if it got that far
    assert code == 2
    assert out.read_text(encoding="utf-8") == "precious"
    assert "report-2.toml" in capsys.readouterr().err


def test_a_report_in_a_missing_folder(tmp_path, capsys):
    answers = tmp_path / "answers.toml"
    answers.write_text(GOOD, encoding="utf-8")
    code = main(["--answers", str(answers), "--report", str(tmp_path / "no" / "r.toml"),
                 "--machine", str(MACHINES / "vm-no-gpu.toml"), "--lang", "en"])
    assert code == 2
    assert "does not exist" in capsys.readouterr().err


def _run_to(tmp_path, report: str, *extra: str) -> int:
    answers = tmp_path / "answers.toml"
    answers.write_text(GOOD, encoding="utf-8")
    return main(["--answers", str(answers), "--report", report, "--machine",
                 str(MACHINES / "vm-no-gpu.toml"), "--lang", "en", *extra])


def test_a_folder_as_the_report_saves_the_default_name_inside_it(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert _run_to(tmp_path, ".") == 0
    saved = list(tmp_path.glob("gpu-report-*.toml"))
    assert len(saved) == 1 and validate_report(tomllib.loads(saved[0].read_text(encoding="utf-8"))) == []
    assert _run_to(tmp_path, str(tmp_path)) == 0       # the same second: the next free name
    assert len(list(tmp_path.glob("gpu-report-*.toml"))) == 2


def test_a_name_longer_than_the_file_system_allows(tmp_path, capsys):
    assert _run_to(tmp_path, str(tmp_path / ("a" * 300 + ".toml"))) == 2
    err = capsys.readouterr().err
    assert "longer than the file system allows" in err and "Traceback" not in err


def test_a_dangling_link_as_the_report_is_a_taken_name(tmp_path, capsys):
    link = tmp_path / "r.toml"
    link.symlink_to(tmp_path / "nowhere")
    assert _run_to(tmp_path, str(link)) == 2
    assert "r-2.toml" in capsys.readouterr().err
    assert not (tmp_path / "nowhere").exists()


def test_a_deleted_current_folder(tmp_path, capsys, monkeypatch):
    gone, home = tmp_path / "gone", tmp_path / "home"
    gone.mkdir()
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(gone)
    gone.rmdir()
    assert _run_to(tmp_path, "r.toml") == 2             # a relative name: nowhere to put it
    assert "current folder no longer exists" in capsys.readouterr().err
    answers = tmp_path / "answers.toml"
    assert main(["--answers", str(answers), "--machine", str(MACHINES / "vm-no-gpu.toml"),
                 "--lang", "en"]) == 0                   # no name given: the home folder
    assert len(list(home.glob("gpu-report-*.toml"))) == 1


def test_a_broken_machine_file(tmp_path, capsys):
    bad = tmp_path / "machine.toml"
    bad.write_text('[machine]\nos = "BeOS"\n', encoding="utf-8")
    answers = tmp_path / "answers.toml"
    answers.write_text(GOOD, encoding="utf-8")
    code = main(["--answers", str(answers), "--report", str(tmp_path / "r.toml"), "--machine", str(bad)])
    assert code == 2
    assert "machine.toml" in capsys.readouterr().err
    assert not (tmp_path / "r.toml").exists()


def live_machine():
    machine = recorded("laptop-4060")
    gpus = (dataclasses.replace(machine.gpus[0], uuid="GPU-8f9a1b2c-3d4e-5f60-7182-93a4b5c6d7e8"),)
    return dataclasses.replace(machine, hostname="alice-zenbook", gpus=gpus)


def test_without_machine_this_computer_is_probed(tmp_path, capsys, monkeypatch):
    calls = []

    def fake_gather(lang, **kwargs):
        calls.append(kwargs)
        return live_machine()

    monkeypatch.setattr(live_module, "probe_this_machine", fake_gather)
    code, out = headless(tmp_path, machine=None, lang="zh", extra=["--python", sys.executable])
    assert code == 0
    assert calls[0]["python"] == sys.executable
    text = out.read_text(encoding="utf-8")
    assert "alice-zenbook" not in text and "GPU-8f9a1b2c" not in text


def test_no_redact_keeps_the_identifiers(tmp_path, monkeypatch):
    monkeypatch.setattr(live_module, "probe_this_machine", lambda *a, **k: live_machine())
    code, out = headless(tmp_path, machine=None, extra=["--no-redact"])
    assert code == 0
    report = tomllib.loads(out.read_text(encoding="utf-8"))
    assert report["redacted"] is False
    assert report["machine"]["hostname"] == "alice-zenbook"


def test_a_report_used_as_answers_without_machine_gets_a_hint(tmp_path, capsys, monkeypatch):
    code, first = headless(tmp_path, machine="vm-no-gpu")
    assert code == 0
    monkeypatch.setattr(live_module, "probe_this_machine", lambda *a, **k: live_machine())
    again = tmp_path / "again.toml"
    assert main(["--answers", str(first), "--report", str(again), "--lang", "en"]) == 0
    assert "--machine" in capsys.readouterr().err


def test_unknown_keys_are_noted_not_fatal(tmp_path, capsys):
    code, out = headless(tmp_path, GOOD + "budjet = 5\n")
    assert code == 0 and out.exists()
    assert "answers.budjet" in capsys.readouterr().err


def test_missing_answers_count_as_not_sure(tmp_path, capsys):
    code, out = headless(tmp_path, '[answers]\ngoal = "kaggle"\n', machine="vm-no-gpu")
    assert code == 0
    report = tomllib.loads(out.read_text(encoding="utf-8"))
    assert report["answers"]["form_factor"] == "unsure"
    assert "not sure" in report["recommendation"]["headline"]


def test_a_person_at_a_terminal_is_told_why_it_takes_a_while(tmp_path):
    from tests.test_check_cli import _run_in_a_terminal

    answers = tmp_path / "answers.toml"
    answers.write_text(GOOD, encoding="utf-8")
    code, shown = _run_in_a_terminal(["--answers", str(answers), "--report", str(tmp_path / "r.toml"),
                                      "--lang", "en"], {"LANG": "en_US.UTF-8"})
    assert code == 0, shown
    assert shown.index("Checking this computer") < shown.index("Recommendation")
