"""`gpu-wizard report summarize`: a roster that fits the TA's terminal, a CSV a spreadsheet opens
as written, redacted reports that stay redacted, and unreadable files named (exit 2)."""

import csv
import dataclasses
import io
import re
import tomllib
from pathlib import Path

import pytest

from wizard.advise import advise
from wizard.answers import Answers
from wizard.cli import main
from wizard.commands.report_cmd import render_csv, render_table
from wizard.diagnose import diagnose
from wizard.i18n import t
from wizard.knowledge import load_knowledge
from wizard.probe.model import machine_from_dict
from wizard.report import SUMMARY_COLUMNS, build_report, dumps_report, load_report, save_report, summarize
from wizard.textout import cell_width

MACHINES = Path(__file__).parent / "machines"
ALL_MACHINES = sorted(p.stem for p in MACHINES.glob("*.toml"))
HOST, USER = "alice-zenbook", "alice"
UUID = "GPU-8f9a1b2c-3d4e-5f60-7182-93a4b5c6d7e8"


@pytest.fixture(scope="module")
def knowledge():
    return load_knowledge()


def recorded(name: str):
    with (MACHINES / f"{name}.toml").open("rb") as fh:
        return machine_from_dict(tomllib.load(fh)["machine"])


def write(folder: Path, name: str, knowledge, machine: str = "laptop-4060", lang: str = "en",
          redact: bool = True, identify: bool = False) -> Path:
    """A report as the wizard saves it; `identify` gives the machine Alice's host name, home
    folder, and a GPU name that carries her card's UUID (as a fallback name might)."""
    probed = recorded(machine)
    if identify:
        gpus = tuple(dataclasses.replace(g, name=f"{g.name} {UUID}") for g in probed.gpus)
        torch = probed.torch and dataclasses.replace(
            probed.torch, interpreter=f"/home/{USER}/venv/bin/python3.11",
            message=f"torch imported from /home/{USER}/venv/lib/python3.11/site-packages/torch")
        probed = dataclasses.replace(probed, hostname=HOST, gpus=gpus, torch=torch)
    answers = Answers("yes", "yes", "laptop", 5000, "CNY", "learning")
    findings = diagnose(probed, lang)
    rec = advise(answers, probed, knowledge, lang, findings)
    report = build_report(answers, probed, findings, rec, lang, redact=redact, identifiers=[HOST])
    folder.mkdir(parents=True, exist_ok=True)
    return save_report(report, folder / name)


@pytest.fixture(scope="module")
def a_class(tmp_path_factory, knowledge):
    """Every recorded machine in both languages, in a deep folder, some with Chinese names."""
    folder = tmp_path_factory.mktemp("roster") / "course-2026" / "week-01-submissions"
    paths = []
    for i, machine in enumerate(ALL_MACHINES):
        for lang in ("en", "zh"):
            name = f"张三-{i:02d}.toml" if lang == "zh" else f"student-{i:02d}-gpu-report-20261130.toml"
            paths.append(write(folder, name, knowledge, machine, lang))
    return [str(p) for p in paths]


def lines_of(text: str) -> list[str]:
    return text.rstrip("\n").split("\n")


# ------------------------------------------------------------------------------ width ---

@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("width", [80, 120])
def test_the_roster_fits_the_terminal(a_class, capsys, monkeypatch, lang, width):
    monkeypatch.setenv("COLUMNS", str(width))
    assert main(["report", "summarize", *a_class, "--lang", lang]) == 0
    out = capsys.readouterr().out
    lines = lines_of(out)
    too_wide = [line for line in lines if cell_width(line) > width]
    assert not too_wide, too_wide
    assert len(lines) >= len(a_class) + 4           # header, rule, one row each, totals
    assert t("report.summarize.total", lang, ready=_ready(a_class), total=len(a_class)) in lines
    assert ("File" if lang == "en" else "文件") in lines[0]
    for machine_hint in ("H200", "RTX 4060"):   # the GPU column survives at 80
        assert machine_hint in out
    names = [re.split(r"\s{2,}", line)[0] for line in lines[2:2 + len(a_class)]]
    assert len(set(names)) == len(a_class), names     # cut or not, each student stays apart
    # The common folder is said once, not repeated on every row.
    assert out.count("week-01-submissions") == 1
    assert "张三-03" in out


def _ready(paths: list[str]) -> int:
    rows = summarize([(p, load_report(p)) for p in paths])
    return sum(r["ready"] == "yes" for r in rows)


@pytest.mark.parametrize("lang, hidden_word, csv_word", [("en", "Not shown", "--csv"),
                                                         ("zh", "没有显示", "--csv")])
def test_a_narrow_roster_says_what_it_left_out(a_class, capsys, monkeypatch, lang, hidden_word,
                                               csv_word):
    monkeypatch.setenv("COLUMNS", "80")
    main(["report", "summarize", *a_class, "--lang", lang])
    out = capsys.readouterr().out
    note = out[out.index(hidden_word):]
    assert csv_word in note
    # What the issue asks of a roster (ready, GPU and VRAM, torch, verdict) stays at 80 columns;
    # the error count goes first.
    assert ("Errors" if lang == "en" else "错误数") in note
    header = out.splitlines()[0]
    assert ("VRAM" if lang == "en" else "显存") in header


def test_a_wide_terminal_gets_the_full_table(a_class, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")
    main(["report", "summarize", *a_class, "--lang", "en"])
    out = capsys.readouterr().out
    assert "NVIDIA GeForce RTX 4060 Laptop GPU" in out and a_class[0] in out
    assert "Not shown" not in out and "…" not in out


@pytest.mark.parametrize("width", [40, 60, 80, 100, 120, 160])
def test_every_width_keeps_the_totals_and_each_student(a_class, width):
    rows = summarize([(p, load_report(p)) for p in a_class])
    for lang in ("en", "zh"):
        text = render_table(rows, lang, width)
        lines = lines_of(text)
        assert max(cell_width(line) for line in lines) <= width
        assert len(lines[2:2 + len(rows)]) == len(rows)
        ready = sum(r["ready"] == "yes" for r in rows)
        assert t("report.summarize.total", lang, ready=ready, total=len(rows)) in lines


def test_long_chinese_names_are_cut_by_cells_not_characters(knowledge, tmp_path):
    path = write(tmp_path, "计算机科学与技术学院二〇二六级人工智能实验班第三组张三同学的报告.toml", knowledge)
    rows = summarize([(str(path), load_report(path))])
    for width in (40, 50, 80):
        lines = lines_of(render_table(rows, "zh", width))
        assert max(cell_width(line) for line in lines) <= width
        assert "…" in lines[2]


def test_a_line_break_inside_a_value_does_not_break_the_row(knowledge, tmp_path, capsys, monkeypatch):
    path = write(tmp_path, "a.toml", knowledge, "desktop-1080ti")
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    data["machine"]["gpus"][0]["name"] = "GeForce GTX 1080 Ti\nsecond line\tand a tab"
    path.write_text(dumps_report(data), encoding="utf-8")
    for width in ("80", "400"):
        monkeypatch.setenv("COLUMNS", width)
        main(["report", "summarize", str(path), "--lang", "en"])
        lines = lines_of(capsys.readouterr().out)
        assert "1080 Ti second" in lines[2] and lines[3] == ""
        assert max(cell_width(line) for line in lines) <= int(width)


# -------------------------------------------------------------------------------- CSV ---

def test_csv_reads_back_into_the_same_rows(knowledge, tmp_path, capsys, monkeypatch):
    odd = tmp_path / "odd"
    paths = [write(odd, "王小明.toml", knowledge, "h200-server", "zh"),
             write(odd, 'o\'brien, "jr".toml', knowledge, "desktop-1080ti"),
             write(odd, "=cmd.toml", knowledge, "vm-no-gpu")]
    # A GPU name with a comma, quotes and a line break in it (a hand-edited file).
    data = tomllib.loads(paths[1].read_text(encoding="utf-8"))
    data["machine"]["gpus"][0]["name"] = 'GeForce GTX 1080 Ti, "FE"\nsecond line'
    paths[1].write_text(dumps_report(data), encoding="utf-8")
    monkeypatch.chdir(odd)
    names = [p.name for p in paths]
    assert main(["report", "summarize", "--csv", *names]) == 0
    out = capsys.readouterr().out
    assert out.startswith("\ufeff") and out.count("\ufeff") == 1

    records = list(csv.reader(io.StringIO(out.removeprefix("\ufeff"), newline="")))
    assert records[0] == list(SUMMARY_COLUMNS)                         # one header row
    assert all(len(r) == len(SUMMARY_COLUMNS) for r in records)        # consistent columns
    expected = summarize([(n, load_report(n)) for n in names])
    got = [dict(zip(records[0], r)) for r in records[1:]]
    assert len(got) == len(expected)
    for want, row in zip(expected, got):
        for key in SUMMARY_COLUMNS:
            # Text that a spreadsheet would run as a formula is kept as text with a leading '.
            shown = "'" + want[key] if want[key][:1] in ("=", "+", "-", "@") else want[key]
            assert row[key] == shown, key
    assert got[0]["file"] == "王小明.toml" and got[1]["file"] == 'o\'brien, "jr".toml'
    assert got[1]["gpu"] == 'GeForce GTX 1080 Ti, "FE"\nsecond line'
    assert got[2]["file"] == "'=cmd.toml"


def test_csv_bytes_open_in_excel_with_chinese_intact(knowledge, tmp_path, monkeypatch):
    """What lands in the file of `... --csv > roster.csv`: UTF-8 with a BOM, Chinese intact."""
    path = write(tmp_path, "李四.toml", knowledge, "laptop-4060", "zh")
    raw = io.BytesIO()
    monkeypatch.setattr("sys.stdout", io.TextIOWrapper(raw, encoding="utf-8", newline=""))
    assert main(["report", "summarize", "--csv", str(path)]) == 0
    import sys

    sys.stdout.flush()
    data = raw.getvalue()
    assert data.startswith(b"\xef\xbb\xbf")
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"), newline="")))
    assert rows[0]["file"] == str(path) and "李四" in rows[0]["file"]


def test_no_bom_on_a_terminal_or_in_a_legacy_code_page(knowledge, tmp_path, monkeypatch):
    path = write(tmp_path, "李四.toml", knowledge, "laptop-4060", "zh")
    import sys

    class Terminal(io.TextIOWrapper):
        def isatty(self):
            return True

    for stream, encoding in ((Terminal(io.BytesIO(), encoding="utf-8"), "utf-8"),
                             (io.TextIOWrapper(io.BytesIO(), encoding="gbk"), "gbk")):
        monkeypatch.setattr("sys.stdout", stream)
        assert main(["report", "summarize", "--csv", str(path)]) == 0
        sys.stdout.flush()
        data = stream.buffer.getvalue()
        assert data.startswith(b"file,"), data[:10]
        assert "李四".encode(encoding) in data


def test_render_csv_alone_has_no_bom_unless_asked():
    row = dict.fromkeys(SUMMARY_COLUMNS, "x")
    assert render_csv([row]).startswith("file,")
    assert render_csv([row], bom=True).startswith("\ufefffile,")


# -------------------------------------------------------------------------- redaction ---

def test_redacted_reports_stay_redacted_in_summaries(knowledge, tmp_path, capsys, monkeypatch):
    kept = write(tmp_path / "kept", "a.toml", knowledge, identify=True, redact=False)
    gone = write(tmp_path / "gone", "a.toml", knowledge, identify=True)
    assert HOST in kept.read_text(encoding="utf-8")
    assert HOST not in gone.read_text(encoding="utf-8")
    secrets = (HOST, f"/home/{USER}", UUID, UUID[4:])

    # The check can see them: a --no-redact report shows the GPU name it recorded.
    main(["report", "summarize", "--csv", str(kept)])
    assert UUID in capsys.readouterr().out

    # A redacted report even with a host name added back by hand (a reader ignores the key).
    data = tomllib.loads(gone.read_text(encoding="utf-8"))
    data["machine"]["hostname"] = HOST
    gone.write_text(dumps_report(data), encoding="utf-8")
    for width in ("60", "80", "120", "400"):
        monkeypatch.setenv("COLUMNS", width)
        for args in (["--lang", "en"], ["--lang", "zh"], ["--csv"]):
            assert main(["report", "summarize", str(gone), *args]) == 0
            out = capsys.readouterr().out
            assert "ready" in out or "就绪" in out
            for secret in secrets:
                assert secret not in out, (secret, width, args)


# -------------------------------------------------------------------------- bad files ---

def test_unreadable_files_are_named_and_the_rest_summarized(knowledge, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    good = str(write(tmp_path, "good.toml", knowledge, "h200-server"))
    (tmp_path / "binary.toml").write_bytes(b"\xff\xfe\x00")
    (tmp_path / "syntax.toml").write_text("[[[\n", encoding="utf-8")
    (tmp_path / "invalid.toml").write_text('schema = "gpu-wizard/report/1"\nlanguage = "fr"\n',
                                           encoding="utf-8")
    (tmp_path / "folder.toml").mkdir()
    bad = [str(tmp_path / n) for n in ("binary.toml", "syntax.toml", "invalid.toml", "folder.toml",
                                       "missing.toml")]
    for args in ([], ["--csv"], ["--lang", "zh"]):
        assert main(["report", "summarize", *bad, good, *args]) == 2
        captured = capsys.readouterr()
        for name in bad:
            assert captured.err.count(name) == 1, (name, captured.err)
        assert "Traceback" not in captured.err
        assert "validate" in captured.err          # the invalid one says how to see its problems
        assert "good" in captured.out and "H200" in captured.out
    # A student whose file is broken stays on the roster, marked, so a TA sees who is missing.
    assert main(["report", "summarize", *bad, good, "--csv"]) == 2
    rows = {Path(r["file"]).name: r for r in csv.DictReader(io.StringIO(capsys.readouterr().out.lstrip("\ufeff")))}
    assert {name: rows[name]["ready"] for name in ("binary.toml", "syntax.toml", "folder.toml",
                                                  "missing.toml", "invalid.toml")} == {
        "binary.toml": "unreadable", "syntax.toml": "unreadable", "folder.toml": "unreadable",
        "missing.toml": "unreadable", "invalid.toml": "invalid"}
    assert rows["good.toml"]["ready"] == "yes" and len(rows) == 6
    assert main(["report", "summarize", *bad, "--lang", "en"]) == 2
    out = capsys.readouterr().out
    assert "0 of 5 ready" in out and "invalid report" in out
    assert sum(1 for line in out.splitlines() if line.rstrip().endswith("unreadable")) == 4
