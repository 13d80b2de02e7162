"""`gpu-wizard report show | validate | summarize`, run in-process, with good and hostile files."""

import io
import re
import tomllib
from pathlib import Path

import pytest

from wizard.advise import advise
from wizard.answers import Answers
from wizard.cli import main
from wizard.diagnosis.diagnose import diagnose
from wizard.knowledge.load import load_knowledge
from wizard.probe.facts import machine_from_dict
from wizard.report.building import build_report
from wizard.report.saving import dumps_report, save_report

MACHINES = Path(__file__).parent / "machines"
CJK = re.compile(r"[\u4e00-\u9fff]")


def write_report(folder: Path, name: str, machine: str = "laptop-4060", lang: str = "en",
                 budget=5000) -> Path:
    with (MACHINES / f"{machine}.toml").open("rb") as fh:
        recorded = machine_from_dict(tomllib.load(fh)["machine"])
    answers = Answers("yes", "yes", "laptop", budget, "CNY", "learning")
    findings = diagnose(recorded, lang)
    rec = advise(answers, recorded, load_knowledge(), lang, findings)
    return save_report(build_report(answers, recorded, findings, rec, lang, identifiers=[]),
                       folder / name)


def test_show_in_english(tmp_path, capsys):
    path = write_report(tmp_path, "r.toml")
    assert main(["report", "show", str(path)]) == 0
    out = capsys.readouterr().out
    for label in ("Your answers", "This computer", "What was found", "Recommendation", "Why",
                  "RTX 4060 Laptop GPU", "Budget: ¥5,000"):
        assert label in out
    assert not CJK.search(out.replace("¥", ""))


def test_show_in_chinese_reads_as_chinese(tmp_path, capsys):
    path = write_report(tmp_path, "r.toml", lang="zh")
    assert main(["report", "show", str(path)]) == 0
    out = capsys.readouterr().out
    for label in ("你的回答", "这台电脑", "检查结果", "建议", "理由"):
        assert label in out
    assert "Your answers" not in out


def test_lang_overrides_the_labels(tmp_path, capsys):
    path = write_report(tmp_path, "r.toml", lang="zh")
    assert main(["report", "show", str(path), "--lang", "en"]) == 0
    assert "Your answers" in capsys.readouterr().out
    assert main(["--lang", "en", "report", "show", str(path)]) == 0
    assert "Your answers" in capsys.readouterr().out


def test_show_falls_back_to_ascii_marks_on_a_plain_terminal(tmp_path, monkeypatch):
    path = write_report(tmp_path, "r.toml", lang="zh")
    raw = io.BytesIO()
    stdout = io.TextIOWrapper(raw, encoding="ascii", errors="strict")
    monkeypatch.setattr("sys.stdout", stdout)
    assert main(["report", "show", str(path)]) == 0
    stdout.flush()
    text = raw.getvalue().decode("ascii")
    from collections import Counter

    from wizard.text.output import ASCII_MARKS

    # Unencodable characters print as "?": a ✓ that did not fall back would leave no [ok].
    starts = Counter(line.split()[0] for line in text.splitlines() if line.strip())
    assert starts["[ok]"] >= 1                      # the laptop's working NVIDIA driver
    with path.open("rb") as fh:
        findings = Counter(ASCII_MARKS[f["severity"]] for f in tomllib.load(fh)["findings"])
    assert findings and all(starts[mark] >= count for mark, count in findings.items()), (findings, starts)


def test_show_an_invalid_or_unreadable_report(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('schema = "gpu-wizard/report/1"\nlanguage = "fr"\n', encoding="utf-8")
    assert main(["report", "show", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.toml" in err and "language: 'fr'" in err
    assert main(["report", "show", str(tmp_path / "missing.toml")]) == 2
    assert "missing.toml" in capsys.readouterr().err


def test_validate_exit_codes(tmp_path, capsys):
    good = write_report(tmp_path, "good.toml")
    assert main(["report", "validate", str(good)]) == 0
    assert "valid" in capsys.readouterr().out

    data = tomllib.loads(good.read_text(encoding="utf-8"))
    data["machine"]["chassis"] = "tablet"
    del data["recommendation"]["verdict"]
    data["findings"][0]["severity"] = "doom"
    bad = tmp_path / "bad.toml"
    bad.write_text(dumps_report(data), encoding="utf-8")
    assert main(["report", "validate", str(bad)]) == 1
    out = capsys.readouterr().out
    for path in ("machine.chassis", "recommendation.verdict: missing", "findings[0].severity"):
        assert path in out

    garbage = tmp_path / "garbage.toml"
    garbage.write_bytes(b"\xff\xfe\x00 not text")
    assert main(["report", "validate", str(garbage)]) == 2
    assert "UTF-8" in capsys.readouterr().err


@pytest.mark.parametrize("content, words", [
    ("50 MB", ["far bigger", "50.0 MB"]),
    (b'schema = "gpu-wizard/report/1"\n\xc3\x28 = 1\n', ["UTF-8", "line 2"]),
    (b"[[[\n", ["TOML", "line 1"]),
    (b'schema = 1\n', ["schema: expected text"]),
    (b'answers = "yes"\nschema = "gpu-wizard/report/1"\n', ["answers: expected a table"]),
], ids=["50MB", "not-utf8", "bad-toml", "schema-type", "answers-type"])
def test_hostile_reports_get_one_clear_message(tmp_path, capsys, content, words):
    path = tmp_path / "hostile.toml"
    path.write_bytes(b"x" * 50_000_000 if content == "50 MB" else content)
    assert main(["report", "show", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "Traceback" not in captured.err
    assert "hostile.toml" in captured.err
    for word in words:
        assert word in captured.err


def test_summarize_a_class(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")    # wide enough for the full table (test_summarize: narrow)
    write_report(tmp_path, "ann.toml", machine="h200-server")
    write_report(tmp_path, "bo.toml", machine="laptop-4060")
    write_report(tmp_path, "cy.toml", machine="vm-no-gpu", lang="zh")
    files = [str(tmp_path / n) for n in ("ann.toml", "bo.toml", "cy.toml")]
    assert main(["report", "summarize", *files, "--lang", "en"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split()[:2] == ["File", "Ready"]
    assert any("ann.toml" in line and "NVIDIA H200" in line for line in lines)
    assert "1 of 3 ready." in out


def test_summarize_as_csv(tmp_path, capsys):
    write_report(tmp_path, "ann.toml", machine="h200-server")
    assert main(["report", "summarize", str(tmp_path / "ann.toml"), "--csv"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("\ufeff")     # not a terminal: the mark Excel needs to read UTF-8
    rows = out.removeprefix("\ufeff").splitlines()
    # The columns a TA's spreadsheet already uses stay first, as they were; new ones come after.
    assert rows[0] == "file,ready,gpu,vram_gb,torch,torch_gpu,verdict,errors,replay,duplicate_of," \
                      "goal,os,problem,fix,python"
    assert ",no,,learning,Linux,,," in rows[1]     # not a replay, not a copy; ready: nothing to fix
    assert rows[1].startswith(str(tmp_path / "ann.toml") + ",yes,NVIDIA H200,140,")


def test_summarize_goes_on_past_a_bad_file_and_says_which(tmp_path, capsys):
    write_report(tmp_path, "ann.toml", machine="h200-server")
    (tmp_path / "broken.toml").write_bytes(b"\x00\xff")
    files = [str(tmp_path / "broken.toml"), str(tmp_path / "ann.toml")]
    assert main(["report", "summarize", *files, "--lang", "en"]) == 2
    captured = capsys.readouterr()
    assert "broken.toml" in captured.err and "UTF-8" in captured.err
    assert "ann.toml" in captured.out


def test_a_report_action_is_required(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["report"])
    assert caught.value.code == 2


def test_a_hostile_report_cannot_drive_the_terminal_or_the_spreadsheet(tmp_path, capsys):
    """Escape sequences in a student's file must not reach the TA's terminal; formulas stay text."""
    path = write_report(tmp_path, "evil.toml")
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    evil = '=HYPERLINK("http://example.invalid")\x1b]0;pwned\x07\x1b[2J'
    data["recommendation"]["headline"] = evil
    data["machine"]["gpus"][0]["name"] = evil
    path.write_text(dumps_report(data), encoding="utf-8")
    for args in (["report", "show", str(path)], ["report", "summarize", str(path)]):
        main(args)
        out = capsys.readouterr().out
        assert "\x1b" not in out and "\x07" not in out
    main(["report", "summarize", "--csv", str(path)])
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert ",=HYPERLINK" not in out and '"=HYPERLINK' not in out


def test_roster_does_not_count_a_gpu_without_kernels_as_usable(tmp_path, capsys):
    write_report(tmp_path, "ti.toml", machine="desktop-1080ti")
    main(["report", "summarize", "--csv", str(tmp_path / "ti.toml")])
    rows = capsys.readouterr().out.splitlines()
    header, row = rows[0].split(","), rows[1].split(",")
    values = dict(zip(header, row))
    assert values["torch_gpu"] == "no" and values["ready"] == "no"
