"""`gpu-wizard report summarize`: a roster that fits the TA's terminal, a CSV a spreadsheet opens
as written, redacted reports that stay redacted, and unreadable files named (exit 2)."""

import csv
import dataclasses
import io
import os
import re
import signal
import sys
import time
import tomllib
from pathlib import Path

import pytest

from wizard.advise import advise
from wizard.answers import Answers
from wizard.cli import main
from wizard.diagnosis.diagnose import diagnose
from wizard.knowledge.load import load_knowledge
from wizard.probe.facts import machine_from_dict
from wizard.report import batch
from wizard.report.building import build_report
from wizard.report.reading import load_report
from wizard.report.roster import SUMMARY_COLUMNS, counted, summarize
from wizard.report.roster_csv import render_csv
from wizard.report.roster_table import render_table
from wizard.report.saving import dumps_report, save_report
from wizard.text.i18n import t
from wizard.text.output import cell_width

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


def too_wide(text: str, width: int) -> list[str]:
    """The lines wider than `width` cells, but for a command or an address on a line of its own:
    the roster never splits one (a command pasted half installs the wrong thing)."""
    from wizard.text.output import _COMMAND

    def whole(line: str) -> bool:
        line = line.strip().removeprefix("→ send them: ")
        return bool(_COMMAND.fullmatch(line)) or " " not in line

    return [line for line in lines_of(text) if cell_width(line) > width and not whole(line)]


def table_part(text: str, lang: str = "en") -> str:
    """The roster without the groups by problem under it (their texts come from the reports)."""
    return text[:text.index(t("roster.groups.heading", lang))]


# ------------------------------------------------------------------------------ width ---

@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("width", [80, 120])
def test_the_roster_fits_the_terminal(a_class, capsys, monkeypatch, lang, width):
    monkeypatch.setenv("COLUMNS", str(width))
    assert main(["report", "summarize", *a_class, "--lang", lang]) == 0
    out = capsys.readouterr().out
    lines = lines_of(out)
    assert not too_wide(out, width), too_wide(out, width)
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
    # What the issue asks of a roster (ready, GPU and VRAM, torch, verdict) stays at 80 columns,
    # and so does the error count (issue 12); whether torch uses the GPU goes first.
    assert ("GPU in torch" if lang == "en" else "torch 能用 GPU") in note
    header = out.splitlines()[0]
    assert ("VRAM" if lang == "en" else "显存") in header
    assert header.split()[-1] == t("roster.header.errors", lang)


def test_a_wide_terminal_gets_the_full_table(a_class, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")
    main(["report", "summarize", *a_class, "--lang", "en"])
    out = table_part(capsys.readouterr().out)
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


# ------------------------------------------------------------- issue 12: for teachers ---

STAMPED = [f"gpu-report-20261201-1352{10 + i:02d}.toml" for i in range(10)]
TEN_MACHINES = ["laptop-4060", "h200-server", "vm-no-gpu", "desktop-1080ti", "apple-m2",
                "nouveau", "wsl2", "rtx4090-cu128-healthy", "amd-rx7900", "version-mismatch"]


@pytest.fixture(scope="module")
def stamped(tmp_path_factory, knowledge):
    """Ten students who kept the default names, saved a second apart: the names differ only in
    their last digits."""
    folder = tmp_path_factory.mktemp("stamped") / "week-01"
    return [str(write(folder, name, knowledge, machine))
            for name, machine in zip(STAMPED, TEN_MACHINES)]


def table_rows(out: str, count: int) -> list[str]:
    return lines_of(out)[2:2 + count]


def file_cells(out: str, count: int) -> list[str]:
    return [re.split(r"\s{2,}", line)[0] for line in table_rows(out, count)]


def flat(text: str) -> str:
    """Text with every line break and space gone: a sentence however the roster wrapped it."""
    return re.sub(r"\s+", "", text)


def said(sentence: str, out: str) -> bool:
    return flat(sentence) in flat(out)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("width", [80, 60])
def test_default_file_names_stay_apart_at_80_and_60(stamped, capsys, monkeypatch, lang, width):
    monkeypatch.setenv("COLUMNS", str(width))
    assert main(["report", "summarize", *stamped, "--lang", lang]) == 0
    out = capsys.readouterr().out
    assert not too_wide(out, width)
    cells = file_cells(out, len(stamped))
    assert len(set(cells)) == len(stamped), cells
    for cell, name in zip(cells, STAMPED):
        assert name[-11:-5] in cell, (cell, name)           # "135215": what tells them apart
    # The start they share is said once, under the table, not cut away unsaid. (The groups by
    # problem below name the files in full.)
    assert out[:out.index(t("roster.groups.heading", lang))].count("gpu-report-20261201-") == 1
    assert said(t("roster.shared", lang, mark="…", start="gpu-report-20261201-",
                  title=t("roster.header.file", lang)), out)


@pytest.mark.parametrize("width", [40, 50, 60, 80, 100])
def test_names_that_differ_only_in_the_middle_or_the_folder_stay_apart(stamped, width):
    """Mixed folders, the same name in two folders, a `-2` the wizard adds to a taken name: each
    cut name still points at one file only."""
    report = load_report(stamped[0])
    names = ([f"/home/teacher/course/week1/student-{i:02d}-gpu-report-20261130.toml"
              for i in range(4)]
             + [f"sec-a/student-{i:02d}-gpu-report-20261130-2.toml" for i in range(3)]
             + [f"a/very/long/folder/name/that/goes/on/student-{i:02d}-gpu-report-20261130.toml"
                for i in range(3)]
             + [f"class/{who}/gpu-report-20261201-135215.toml" for who in ("ana", "bo", "chen")]
             + ["reports/gpu-report-20261201-135215.toml",
                "reports/gpu-report-20261201-135215-2.toml"])
    rows = summarize([(n, report) for n in names])
    for row in rows:
        row["duplicate_of"] = ""   # the same report under every name: here only the names count
    for lang in ("en", "zh"):
        out = render_table(rows, lang, width)
        assert max(cell_width(line) for line in lines_of(out)) <= width
        cells = file_cells(out, len(names))
        assert len(set(cells)) == len(names), (width, lang, cells)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_error_count_stays_at_80_columns(a_class, stamped, capsys, monkeypatch, lang):
    monkeypatch.setenv("COLUMNS", "80")
    for paths in (a_class, stamped):
        assert main(["report", "summarize", *paths, "--lang", lang]) == 0
        out = capsys.readouterr().out
        header = lines_of(out)[0]
        assert header.split()[-1] == t("roster.header.errors", lang)
        expected = [row["errors"] for row in summarize([(p, load_report(p)) for p in paths])]
        assert [line.split()[-1] for line in table_rows(out, len(paths))] == expected
        assert "1" in expected and "0" in expected
        # Said what it counts, in the language of the table.
        assert said(t("roster.legend.errors", lang, title=t("roster.header.errors", lang)), out)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("width", [60, 80, 400])
def test_ready_and_the_other_status_words_are_defined_under_the_table(
        stamped, tmp_path, capsys, monkeypatch, lang, width):
    (tmp_path / "broken.toml").write_text("[[[\n", encoding="utf-8")
    paths = [*stamped, str(tmp_path / "broken.toml")]
    monkeypatch.setenv("COLUMNS", str(width))
    assert main(["report", "summarize", *paths, "--lang", lang]) == 2
    out = capsys.readouterr().out
    lines = lines_of(out)
    header = lines[0]
    below = "\n".join(lines[2 + len(paths):])
    compact = width < 400

    def title(c):
        return t(f"roster.header.{c}" if compact else f"report.summarize.{c}", lang)

    yes = t("report.value.yes", lang)
    assert said(t("roster.legend.ready", lang, title=title("ready"), yes=yes), below)
    assert said(t("roster.legend.unusable", lang, unreadable=t("report.value.unreadable", lang),
                  invalid=t("report.value.invalid", lang)), below)
    # Each column of status words that is shown is defined; one that is not shown is not.
    for column in ("torch_gpu", "errors"):
        definition = t(f"roster.legend.{column}", lang, title=title(column), yes=yes)
        assert said(definition, below) == (title(column) in header), column
    # The definition is in the language of the table.
    other = "zh" if lang == "en" else "en"
    assert not said(t("roster.legend.ready", other, title=t("roster.header.ready", other),
                      yes=t("report.value.yes", other)), out)
    assert "Ready" in header if lang == "en" else "就绪" in header


def replay_of(path: str, folder: Path, name: str) -> str:
    """What `gpu-wizard --machine PATH` saves: the same machine, marked as a replay."""
    data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    data["created"] = data["created"].replace(year=2027)        # saved later, by the TA
    data["replay"] = {"of_report": True, "recorded": "2026-12-01 13:52 UTC"}
    target = folder / name
    target.write_text(dumps_report(data), encoding="utf-8")
    return str(target)


@pytest.fixture()
def with_replay_and_copy(stamped, tmp_path):
    """The class, a replay of a ready student (h200-server) and the same file sent twice."""
    replay = replay_of(stamped[1], tmp_path, "gpu-report-20261201-135299.toml")
    copy = tmp_path / "ana-again.toml"
    copy.write_bytes(Path(stamped[3]).read_bytes())
    return [*stamped, replay, str(copy)], replay, str(copy)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("width", [60, 80, 400])
def test_a_replay_and_a_copy_are_marked_and_not_counted(with_replay_and_copy, capsys, monkeypatch,
                                                        lang, width):
    paths, replay, copy = with_replay_and_copy
    monkeypatch.setenv("COLUMNS", str(width))
    assert main(["report", "summarize", *paths, "--lang", lang]) == 0
    out = capsys.readouterr().out
    assert not too_wide(out, width)
    rows = table_rows(out, len(paths))
    replay_tag, copy_tag = t("roster.tag.replay", lang), t("roster.tag.copy", lang)
    assert [replay_tag in row for row in rows] == [False] * 10 + [True, False]
    assert [copy_tag in row for row in rows] == [False] * 11 + [True]
    students = summarize([(p, load_report(p)) for p in paths[:10]])
    ready = sum(r["ready"] == "yes" for r in students)
    assert load_report(replay)["recommendation"]["verdict"] == "use-current-gpu"  # a ready one
    left_out = [t("roster.uncounted.replay", lang, count=1),
                t("roster.uncounted.copy", lang, count=1)]
    total = t("roster.total", lang, ready=ready, total=10,
              uncounted=t("roster.uncounted.sep", lang).join(left_out))
    assert said(total, out), out
    assert said(t("roster.legend.replay", lang, tag=replay_tag), out)
    assert said(t("roster.legend.copy", lang, tag=copy_tag), out)
    if lang == "en":
        assert said("4 of 10 students ready (1 replay and 1 duplicate not counted).", out)
    else:
        assert said("10 名学生中 4 人已就绪（另有 1 份回放、1 份重复的报告未计入）。", out)


def test_a_replay_alone_in_the_totals(stamped, tmp_path, capsys, monkeypatch):
    replay = replay_of(stamped[1], tmp_path, "again.toml")
    monkeypatch.setenv("COLUMNS", "80")
    main(["report", "summarize", *stamped[:3], replay, "--lang", "en"])
    out = capsys.readouterr().out
    assert "1 of 3 students ready (1 replay not counted)." in out
    assert [("again" in row, "(replay)" in row) for row in table_rows(out, 4)] == [
        (False, False)] * 3 + [(True, True)]
    # Without a replay or a copy the totals read as they always did.
    main(["report", "summarize", *stamped[:3], "--lang", "en"])
    out = capsys.readouterr().out
    assert "1 of 3 ready." in lines_of(out) and "not counted" not in out and "(replay)" not in out


def test_the_csv_marks_replays_and_copies(with_replay_and_copy, capsys):
    paths, replay, copy = with_replay_and_copy
    assert main(["report", "summarize", "--csv", *paths]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out.removeprefix("\ufeff"))))
    assert [r["replay"] for r in rows] == ["no"] * 10 + ["yes", "no"]
    assert [r["duplicate_of"] for r in rows] == [""] * 11 + [paths[3]]
    # The replay keeps the recorded machine's verdict and readiness: only the count leaves it out.
    assert rows[10]["ready"] == "yes" and rows[10]["gpu"] == "NVIDIA H200"


def test_two_checks_of_one_computer_are_two_rows_but_one_file_twice_is_one(knowledge, tmp_path):
    """Redacted reports cannot tell one computer from an identical one in the same lab, so two
    separate checks stay two students; the same saved report under two names is one."""
    import shutil

    first = write(tmp_path, "a.toml", knowledge, "laptop-4060")
    data = tomllib.loads(first.read_text(encoding="utf-8"))
    data["created"] = data["created"].replace(year=2027)
    (tmp_path / "b.toml").write_text(dumps_report(data), encoding="utf-8")
    shutil.copy(first, tmp_path / "c.toml")
    names = [str(tmp_path / n) for n in ("a.toml", "b.toml", "c.toml")]
    rows = summarize([(n, load_report(n)) for n in names])
    assert [r["duplicate_of"] for r in rows] == ["", "", names[0]]
    assert [counted(r) for r in rows] == [True, True, False]
    # Across calls (the command summarizes file by file), with what was seen carried over.
    seen: dict = {}
    rows = [row for n in names for row in summarize([(n, load_report(n))], seen)]
    assert [r["duplicate_of"] for r in rows] == ["", "", names[0]]


def test_a_replay_of_an_invalid_report_is_still_marked(stamped, tmp_path, capsys):
    replay = replay_of(stamped[0], tmp_path, "bad-replay.toml")
    data = tomllib.loads(Path(replay).read_text(encoding="utf-8"))
    data["language"] = "fr"
    Path(replay).write_text(dumps_report(data), encoding="utf-8")
    assert main(["report", "summarize", "--csv", replay, stamped[1]]) == 2
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out.removeprefix("\ufeff"))))
    assert rows[0]["ready"] == "invalid" and rows[0]["replay"] == "yes"
    assert main(["report", "summarize", replay, stamped[1], "--lang", "en"]) == 2
    assert "1 of 1 student ready (1 replay not counted)." in capsys.readouterr().out


def test_a_roster_checks_answers_without_parsing_the_gpu_catalog(a_class, monkeypatch, capsys):
    """Checking 200 students' [answers] needs the goals and currencies, not gpus.toml (the
    biggest data file): `report summarize` loads only those."""
    from wizard.knowledge import content, entries
    from wizard.knowledge.goals import load_answer_rules
    from wizard.knowledge.load import _default_knowledge

    read: list[str] = []
    real = content.read_toml
    monkeypatch.setattr(entries, "read_toml", lambda path, name=None: read.append(Path(path).name) or real(path, name))
    _default_knowledge.cache_clear()
    load_answer_rules.cache_clear()
    try:
        status = main(["report", "summarize", *a_class])
        assert status in (0, 2)
        assert "goals.toml" in read and "currency.toml" in read
        assert "gpus.toml" not in read and "platforms.toml" not in read
        # …and a goal the content does not know is still caught in the answers.
        rules = load_answer_rules()
        assert "learning" in rules.goal_ids and "USD" in rules.currency_codes
    finally:
        _default_knowledge.cache_clear()
        load_answer_rules.cache_clear()


def test_a_roster_does_not_load_the_catalogs_declarations(a_class):
    """Nor the records of the catalog, the platforms and the market: a new process, as a TA
    runs it, imports none of them (their dataclasses cost more to create than a roster's rows)."""
    import subprocess
    import sys

    code = ("import sys\nfrom wizard.cli import main\nmain(['report', 'summarize', '--csv', *sys.argv[1:]])\n"
            "print(sorted(m for m in sys.modules if m in ('wizard.knowledge.records', 'wizard.advise.market',"
            " 'wizard.knowledge.load')), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code, *a_class[:4]], capture_output=True, text=True, timeout=60)
    assert done.stderr.strip().splitlines()[-1] == "[]", done.stderr


# ------------------------------------------------- issue 13: a big class, read in parallel ---

# The workers are forked, which gpu-wizard does on Linux only (wizard.report.batch).
forks = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers are forked on Linux only")

@pytest.fixture(scope="module")
def big_class(a_class, stamped, tmp_path_factory):
    """More files than one process reads alone: the class three times over (so copies), with
    files that are not reports mixed in."""
    folder = tmp_path_factory.mktemp("big")
    paths = []
    for i, path in enumerate([*a_class, *stamped] * 3):
        target = folder / f"{i:03d}-{Path(path).name}"
        target.write_bytes(Path(path).read_bytes())
        paths.append(str(target))
    (folder / "binary.toml").write_bytes(b"\xff\xfe\x00")
    (folder / "invalid.toml").write_text('schema = "gpu-wizard/report/1"\nlanguage = "fr"\n', encoding="utf-8")
    paths[5:5] = [str(folder / "binary.toml"), str(folder / "missing.toml")]
    paths.insert(40, str(folder / "invalid.toml"))
    assert len(paths) >= batch.PARALLEL_FROM
    return paths


@forks
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_workers_give_the_rows_one_process_gives_in_the_same_order(big_class, knowledge, lang):
    alone = list(batch.load_all(big_class, knowledge, lang, jobs=1))
    shared = list(batch.load_all(big_class, knowledge, lang, jobs=3))
    assert shared == alone
    assert [loaded.name for loaded in shared] == big_class
    skipped = {Path(loaded.name).name: loaded.row["ready"] for loaded in shared if loaded.skipped}
    assert skipped == {"binary.toml": "unreadable", "missing.toml": "unreadable", "invalid.toml": "invalid"}


@forks
def test_the_roster_of_a_big_class_marks_copies_as_one_process_would(big_class, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setattr(batch, "default_jobs", lambda count: 1)
    assert main(["report", "summarize", "--csv", *big_class]) == 2
    alone = capsys.readouterr()
    monkeypatch.setattr(batch, "default_jobs", lambda count: 3)
    assert main(["report", "summarize", "--csv", *big_class]) == 2
    shared = capsys.readouterr()
    assert (shared.out, shared.err) == (alone.out, alone.err)
    rows = list(csv.DictReader(io.StringIO(shared.out.lstrip("\ufeff"))))
    # The second and third rounds are copies of the first, each marked as one.
    first_round = (len(big_class) - 3) // 3
    later = [row for row in rows if Path(row["file"]).name[:3].isdigit()
             and int(Path(row["file"]).name[:3]) >= first_round]
    assert len(later) == 2 * first_round and all(row["duplicate_of"] for row in later)


def child_pids(parent: int) -> list[str]:
    """The processes whose parent is `parent` (from /proc: no ps or pgrep needed)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().rsplit(")", 1)[1].split()[1] == str(parent):
                    found.append(pid)
        except OSError:
            pass
    return found


class InterruptedHere:
    """Answers' rules that raise Ctrl+C in the process that made them, not in a forked worker."""

    def __init__(self, rules) -> None:
        self.rules, self.pid = rules, os.getpid()

    def __getattr__(self, name):
        if os.getpid() == self.pid:
            raise KeyboardInterrupt
        return getattr(self.rules, name)


@forks
def test_an_interrupt_while_this_process_reads_ends_the_workers(big_class):
    from wizard.knowledge.goals import load_answer_rules

    with pytest.raises(KeyboardInterrupt):
        list(batch.load_all(big_class, InterruptedHere(load_answer_rules()), "en", jobs=3))
    assert child_pids(os.getpid()) == []


def worker_turns(monkeypatch, after: int, then) -> None:
    """Patch the reading of a file so that a worker reads `after` files truly, then does
    `then(name)` instead (this process always reads truly)."""
    real = batch.read_report
    parent = os.getpid()
    answered = []

    def turning(name):
        if os.getpid() != parent:
            answered.append(name)   # the worker's own copy of the list
            if len(answered) > after:
                return then(name)
        return real(name)

    monkeypatch.setattr(batch, "read_report", turning)


@forks
@pytest.mark.parametrize("answered", [0, 5])
def test_a_worker_that_dies_costs_time_not_rows(big_class, knowledge, monkeypatch, answered):
    alone = list(batch.load_all(big_class, knowledge, "en", jobs=1))
    # Killed, out of memory, a segfault in a C library.
    worker_turns(monkeypatch, answered, lambda name: os._exit(3))
    assert list(batch.load_all(big_class, knowledge, "en", jobs=3)) == alone
    assert child_pids(os.getpid()) == []


@forks
def test_a_worker_that_sends_what_is_not_a_report_is_no_longer_listened_to(big_class, knowledge,
                                                                          monkeypatch):
    alone = list(batch.load_all(big_class, knowledge, "en", jobs=1))
    worker_turns(monkeypatch, 3, lambda name: ["not", "a", "table"])
    assert list(batch.load_all(big_class, knowledge, "en", jobs=2)) == alone


def read_here(monkeypatch, delay_here: float, delay_there: float) -> list[str]:
    """Patch the reading of a file to take `delay_here` s in this process and `delay_there`
    in a worker; the names this process read."""
    real = batch.read_report
    parent = os.getpid()
    here: list[str] = []

    def timed(name):
        if os.getpid() == parent:
            here.append(name)
            time.sleep(delay_here)
        else:
            time.sleep(delay_there)
        return real(name)

    monkeypatch.setattr(batch, "read_report", timed)
    return here


@forks
def test_a_slow_worker_leaves_its_files_to_this_process(big_class, knowledge, monkeypatch):
    """No process waits for a slower one: a worker that the machine slows down answers for
    few files; this process reads the rest, and the roster is the same."""
    alone = list(batch.load_all(big_class, knowledge, "en", jobs=1))
    here = read_here(monkeypatch, 0.0, 0.05)
    assert list(batch.load_all(big_class, knowledge, "en", jobs=2)) == alone
    assert len(here) > len(big_class) * 3 // 4


@forks
def test_a_fast_worker_reads_most_files_while_this_process_is_slow(big_class, knowledge,
                                                                   monkeypatch):
    alone = list(batch.load_all(big_class, knowledge, "en", jobs=1))
    here = read_here(monkeypatch, 0.05, 0.0)
    assert list(batch.load_all(big_class, knowledge, "en", jobs=2)) == alone
    assert 0 < len(here) < len(big_class) // 4
    # This process read from the back: the last files, never one in the middle of the run.
    assert here == big_class[len(big_class) - len(here):][::-1]
    assert child_pids(os.getpid()) == []


@forks
def test_the_answers_rules_are_read_after_the_workers_start(big_class, knowledge, monkeypatch):
    """The workers only read files: they do not wait for the rules to be read."""
    started = []
    real_worker = batch._Worker

    def counted(*args, **kwargs):
        started.append(True)
        return real_worker(*args, **kwargs)

    monkeypatch.setattr(batch, "_Worker", counted)
    asked = []

    def rules():
        asked.append(len(started))
        return knowledge

    alone = list(batch.load_all(big_class, knowledge, "en", jobs=1))
    assert list(batch.load_all(big_class, lang="en", jobs=3, knowledge_from=rules)) == alone
    assert asked == [2]
    asked.clear()
    started.clear()
    assert list(batch.load_all(big_class, lang="en", jobs=1, knowledge_from=rules)) == alone
    assert asked == [0]


@forks
@pytest.mark.parametrize("started", [0, 1])
def test_a_system_that_cannot_start_more_processes_costs_time_not_rows(big_class, knowledge,
                                                                     monkeypatch, started):
    """fork() refused (a process limit, no memory): the runs without a worker are read here,
    no pipe is left open, and Ctrl+C is held while a worker starts, never lost."""
    alone = list(batch.load_all(big_class, knowledge, "en", jobs=1))
    real_fork = os.fork
    masks = []

    def refusing():
        masks.append(signal.pthread_sigmask(signal.SIG_BLOCK, []))
        if len(masks) > started:
            raise BlockingIOError(11, "Resource temporarily unavailable")
        return real_fork()

    open_before = set(os.listdir("/proc/self/fd"))
    monkeypatch.setattr(batch.os, "fork", refusing)
    assert list(batch.load_all(big_class, knowledge, "en", jobs=4)) == alone
    assert len(masks) == started + 1 and all(signal.SIGINT in mask for mask in masks)
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    assert set(os.listdir("/proc/self/fd")) == open_before
    assert child_pids(os.getpid()) == []


def test_few_files_or_no_fork_are_read_in_this_process(monkeypatch):
    monkeypatch.setattr(batch.sys, "platform", "linux")
    monkeypatch.setattr(batch.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    assert batch.default_jobs(batch.PARALLEL_FROM - 1) == 1
    assert batch.default_jobs(1000) == 4
    monkeypatch.setattr(batch.threading, "active_count", lambda: 2)   # forking a threaded process
    assert batch.default_jobs(1000) == 1
    monkeypatch.setattr(batch.threading, "active_count", lambda: 1)
    for platform in ("darwin", "win32"):
        monkeypatch.setattr(batch.sys, "platform", platform)
        assert batch.default_jobs(1000) == 1


@forks
def test_ctrl_c_ends_a_big_roster_and_its_workers(big_class):
    """Ctrl+C while the workers read: exit 130 and one line, no traceback, no worker left."""
    import os
    import signal
    import subprocess
    import sys
    import time

    files = big_class * 20   # long enough to be interrupted on a fast machine too
    proc = subprocess.Popen([sys.executable, "-m", "wizard", "report", "summarize", *files],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    workers: list[str] = []
    deadline = time.monotonic() + 20
    while not workers and proc.poll() is None and time.monotonic() < deadline:
        workers = child_pids(proc.pid)
        time.sleep(0.01)
    assert workers, "the roster never started a worker"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "gpu-wizard: interrupted."
    time.sleep(0.2)
    assert not [pid for pid in workers if os.path.exists(f"/proc/{pid}")]
