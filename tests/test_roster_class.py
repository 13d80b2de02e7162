"""Issue 28, the class roster a teacher can act on: `report validate FILE…`, the students grouped
by problem with the fix to send, the CSV's new columns, the class page (`--html`), what survives
at 80 columns, and which of two copies is marked. The page in a real browser:
tests/test_roster_browser.py."""

from __future__ import annotations

import base64
import csv
import hashlib
import html
import io
import os
import re
import shutil
import tomllib
from pathlib import Path

import pytest

from wizard.answers import Answers
from wizard.cli import main
from wizard.evaluate import evaluate
from wizard.knowledge.load import load_knowledge
from wizard.probe.facts import machine_from_dict
from wizard.report.building import build_report
from wizard.report.reading import load_report
from wizard.report.roster import SUMMARY_COLUMNS, by_problem, entry_of, place, summarize
from wizard.report.roster_html import render_html
from wizard.report.roster_table import _distinct_cuts, render_table
from wizard.report.saving import dumps_report, save_report
from wizard.text.i18n import t
from wizard.text.output import cell_width

MACHINES = Path(__file__).parent / "machines"
OLD_COLUMNS = ("file", "ready", "gpu", "vram_gb", "torch", "torch_gpu", "verdict", "errors",
               "replay", "duplicate_of")


@pytest.fixture(scope="module")
def knowledge():
    return load_knowledge()


def write(folder: Path, name: str, knowledge, machine: str, lang: str = "en",
          goal: str = "learning", form: str = "desktop", budget: int = 5000) -> Path:
    with (MACHINES / f"{machine}.toml").open("rb") as fh:
        probed = machine_from_dict(tomllib.load(fh)["machine"])
    answers = Answers("yes", "yes", form, budget, "CNY", goal)
    # As the wizard saves it: the install line is the build the torch matrix picks.
    outcome = evaluate(probed, answers, knowledge, lang)
    folder.mkdir(parents=True, exist_ok=True)
    report = build_report(answers, probed, outcome.findings, outcome.recommendation, lang, identifiers=[])
    return save_report(report, folder / name)


def edited(path: Path, change) -> Path:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(dumps_report(data), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def course(tmp_path_factory, knowledge):
    """Three students with the CPU build on an NVIDIA laptop, two whose PyTorch lacks their GPU's
    kernels on different Pythons, one with nouveau, one without a GPU, two ready."""
    folder = tmp_path_factory.mktemp("course") / "reports"
    plan = [("ana", "laptop-4060", {}), ("bo", "laptop-4060", {"lang": "zh"}),
            ("chen", "h200-server", {}), ("dan", "laptop-4060", {"goal": "kaggle"}),
            ("eve", "desktop-1080ti", {}), ("fay", "pascal-cu128-linux", {}), ("gus", "nouveau", {}),
            ("hal", "vm-no-gpu", {"form": "laptop", "budget": 0}), ("ivy", "rtx4090-cu128-healthy", {})]
    paths = {name: write(folder, f"{name}.toml", knowledge, machine, **extra) for name, machine, extra in plan}
    return {name: str(path) for name, path in paths.items()}


def csv_rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))


def flat(text: str) -> str:
    return re.sub(r"\s+", "", text)


# ------------------------------------------------------------ 1. validate FILE... ---

def test_validate_takes_any_number_of_files_a_line_each(tmp_path, knowledge, capsys):
    good = [str(write(tmp_path, f"s{i}.toml", knowledge, "h200-server")) for i in range(3)]
    bad = str(edited(Path(shutil.copy(good[0], tmp_path / "bad.toml")),
                     lambda d: d["answers"].update(need_gpu="maybe")))
    garbage = tmp_path / "garbage.toml"
    garbage.write_bytes(b"\xff\xfe not text")

    assert main(["report", "validate", *good, "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert [line.split(":")[0] for line in out.splitlines()[:3]] == good
    assert out.splitlines()[-1] == "3 files: 3 valid, 0 invalid, 0 unreadable."

    assert main(["report", "validate", good[0], bad, good[1], "--lang", "en"]) == 1
    out = capsys.readouterr().out
    assert f"{bad}: 1 problem:" in out and "answers.need_gpu: 'maybe'" in out
    assert good[0] in out and good[1] in out
    assert out.splitlines()[-1] == "3 files: 2 valid, 1 invalid, 0 unreadable."

    assert main(["report", "validate", bad, str(garbage), good[2], "--lang", "zh"]) == 2
    captured = capsys.readouterr()
    assert "garbage.toml" in captured.err and good[2] in captured.out and bad in captured.out
    assert captured.out.splitlines()[-1] == t("report.validate.summary", "zh", count=3, valid=1,
                                              invalid=1, unreadable=1)


def test_validate_of_one_file_says_no_tally(tmp_path, knowledge, capsys):
    good = write(tmp_path, "a.toml", knowledge, "h200-server")
    assert main(["report", "validate", str(good), "--lang", "en"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{good}: a valid gpu-wizard report (gpu-wizard/report/1)."]


# ------------------------------------------------------------------ 2. by problem ---

def by_problem_part(out: str) -> str:
    return out[out.index("By problem"):]


def test_students_with_one_problem_are_grouped_with_the_one_command_to_send(course, capsys,
                                                                            monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["report", "summarize", *course.values(), "--lang", "en"]) == 0
    part = by_problem_part(capsys.readouterr().out)
    command = load_report(course["ana"])["recommendation"]["torch_command"]
    assert command and command.startswith(("pip", "python")) and "--index-url" in command
    # The biggest group first: the three laptops (one report in Chinese), one command for all.
    first = part.splitlines()[1:4]
    assert first[0].startswith("3 students: ") and first[0].endswith("(torch-cpu-build-with-nvidia-gpu)")
    assert "CPU-only PyTorch" in first[0]          # the English report's title, for an English roster
    assert first[1].strip() == "ana.toml, bo.toml, dan.toml"
    assert first[2].strip() == f"→ send them: {command}"
    # Ready students are counted, not listed.
    assert "2 students ready: nothing to send." in part
    assert "chen.toml" not in part and "ivy.toml" not in part
    # Nothing to fix on the computer: the next step, and what to use.
    assert "1 student: next step “Use a free cloud GPU”" in part
    hal = part[part.index("next step"):].splitlines()[1:3]
    assert hal[0].strip() == "hal.toml" and hal[1].strip().startswith("→ send them: Use a cloud GPU")
    # A fix that is a sentence is sent as the finding words it.
    nouveau = next(f for f in load_report(course["gus"])["findings"] if f["id"] == "nvidia-nouveau-bound")
    assert flat(f"→ send them: {nouveau['fix']}") in flat(part)


def test_one_problem_on_different_computers_gets_each_its_command(course, capsys, monkeypatch):
    """Two students whose PyTorch has no kernels for their GPU, on two Pythons: each gets the
    command for theirs, and the roster says whose is which."""
    monkeypatch.setenv("COLUMNS", "200")
    main(["report", "summarize", course["eve"], course["fay"], "--lang", "en"])
    part = by_problem_part(capsys.readouterr().out)
    eve, fay = (load_report(course[n]) for n in ("eve", "fay"))
    commands = [r["recommendation"]["torch_command"] for r in (eve, fay)]
    assert commands[0] != commands[1]
    python = [r["machine"]["torch"].get("python_version") or r["machine"]["python_version"] for r in (eve, fay)]
    lines = [line.strip() for line in part.splitlines()]
    assert lines[1] == "2 students: This PyTorch has no kernels for your GPU (torch-gpu-arch-missing)"
    for name, command, version in zip(("eve", "fay"), commands, python):
        where = f"Linux, Python {'.'.join(version.split('.')[:2])}: {name}.toml"
        assert where in lines and lines[lines.index(where) + 1] == f"→ send them: {command}"


def test_by_problem_leaves_out_copies_and_replays_and_names_unusable_files(course, tmp_path):
    copy = shutil.copy(course["ana"], tmp_path / "ana-again.toml")
    replay = edited(Path(shutil.copy(course["gus"], tmp_path / "gus-replay.toml")),
                    lambda d: d.update(replay={"of_report": True, "recorded": "2026-12-01 13:52 UTC"}))
    seen: dict = {}
    pairs = []
    for name in (course["ana"], course["gus"], str(copy), str(replay), course["chen"]):
        entry = entry_of(name, load_report(name), "en")
        pairs.append((place(entry.row, entry.identity, seen, entry.created), entry.student))
    pairs.append(({**dict.fromkeys(SUMMARY_COLUMNS, ""), "file": "lost.toml", "ready": "unreadable"}, None))
    groups = by_problem(pairs, "en")
    assert [(g.problem, g.files) for g in groups.groups] == [
        ("torch-cpu-build-with-nvidia-gpu", (course["ana"],)), ("nvidia-nouveau-bound", (course["gus"],))]
    assert groups.ready == 1 and groups.unusable == ("lost.toml",)


def test_the_groups_speak_chinese_too(course, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    main(["report", "summarize", *course.values(), "--lang", "zh"])
    out = capsys.readouterr().out
    part = out[out.index(t("roster.groups.heading", "zh")):]
    assert "3 名学生：" in part and "→ 发给他们：" in part and "2 名学生已就绪，不用发什么。" in part
    # The group's problem in the reader's language where a student's report has it.
    bo = load_report(course["bo"])
    title = next(f["title"] for f in bo["findings"] if f["id"] == "torch-cpu-build-with-nvidia-gpu")
    assert flat(f"3 名学生：{title}") in flat(part)


@pytest.mark.parametrize("width", [40, 60, 80])
def test_the_groups_fit_the_width_except_a_command(course, width):
    rows, students = [], []
    for name in course.values():
        entry = entry_of(name, load_report(name), "en")
        rows.append(entry.row)
        students.append(entry.student)
    from wizard.report.roster_table import render_groups

    text = render_groups(by_problem(zip(rows, students), "en"), "en", width)
    commands = {row["fix"] for row in rows if row["fix"].startswith(("pip", "python"))}
    assert commands
    for line in text.splitlines():
        # A command is never split (pasted half, it installs the wrong thing), even past the width.
        assert cell_width(line) <= width or line.strip() in commands or \
            line.strip().removeprefix("→ send them: ") in commands, line
    for command in commands:
        assert command in text


# ------------------------------------------------------------------------- 3. CSV ---

def test_csv_keeps_its_columns_and_adds_goal_os_problem_fix_python(course, capsys):
    assert main(["report", "summarize", "--csv", *course.values()]) == 0
    out = capsys.readouterr().out
    header = out.removeprefix("\ufeff").splitlines()[0].split(",")
    assert tuple(header[:len(OLD_COLUMNS)]) == OLD_COLUMNS
    assert header[len(OLD_COLUMNS):] == ["goal", "os", "problem", "fix", "python"]
    rows = {Path(r["file"]).stem: r for r in csv_rows(out)}
    ana = load_report(course["ana"])
    assert rows["ana"]["goal"] == "learning" and rows["ana"]["os"] == ana["machine"]["os"]
    assert rows["ana"]["problem"] == "torch-cpu-build-with-nvidia-gpu"
    assert rows["ana"]["fix"] == ana["recommendation"]["torch_command"]
    assert rows["ana"]["python"] == (ana["machine"]["torch"].get("python_version")
                                     or ana["machine"]["python_version"])
    gus = load_report(course["gus"])
    assert rows["gus"]["problem"] == "nvidia-nouveau-bound"
    assert rows["gus"]["fix"] == next(f["fix"] for f in gus["findings"] if f["id"] == "nvidia-nouveau-bound")
    assert "torch_command" not in gus["recommendation"]
    # Ready, nothing to act on.
    assert (rows["chen"]["ready"], rows["chen"]["problem"], rows["chen"]["fix"]) == ("yes", "", "")


def test_the_problem_is_the_one_the_student_was_told_to_act_on(course):
    from wizard.report.show import presentation_of

    for name in course.values():
        report = load_report(name)
        row = summarize([(name, report)])[0]
        shown = presentation_of(report, "en")
        if shown.action.finding:
            assert row["problem"] == shown.action.finding
        if shown.command:
            assert row["fix"] == shown.command


# ------------------------------------------------------------------------ 4. HTML ---

def page_of(paths, lang="en", **kwargs) -> str:
    rows, students = [], []
    seen: dict = {}
    for name in paths:
        entry = entry_of(name, load_report(name), lang)
        rows.append(place(entry.row, entry.identity, seen, entry.created))
        students.append(entry.student)
    return render_html(rows, students, lang, **kwargs)


def test_the_page_is_self_contained_and_only_its_own_script_may_run(course):
    page = page_of(course.values())
    assert page.startswith("<!DOCTYPE html>")
    # Nothing fetched: no link, no src, no url() and no address outside the text.
    for fetch in ("<link", " src=", "url(", "@import", "http-equiv=\"refresh\""):
        assert fetch not in page
    assert "on" + "click=" not in page.lower() and "javascript:" not in page.lower()
    policy = html.unescape(re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1))
    script = re.fullmatch(r"(?s).*<script>(.*)</script>.*", page).group(1)
    style = re.fullmatch(r"(?s).*<style>(.*)</style>.*", page).group(1)

    def digest(text):
        return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()

    assert f"script-src '{digest(script)}'" in policy and f"style-src '{digest(style)}'" in policy
    assert "default-src 'none'" in policy and "unsafe-inline" not in policy
    assert page.count("<script") == 1 and page.count("<style") == 1
    assert 'name="viewport"' in page


def test_hostile_report_text_is_text_on_the_page(course, tmp_path):
    evil = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">&amp;"\''
    path = edited(Path(shutil.copy(course["gus"], tmp_path / "evil.toml")), lambda d: (
        d["machine"]["gpus"][0].update(name=evil),
        d["findings"][0].update(title=evil, detail=evil, fix=evil),
        d["answers"].update(goal="learning")))
    page = page_of([str(path), course["ana"]])
    assert page.count("<script") == 1 and "<img" not in page
    assert "&lt;script&gt;window.pwned=1&lt;/script&gt;&lt;img src=x onerror=&quot;window.pwned=2&quot;&gt;" \
           "&amp;amp;&quot;&#x27;" in page


def test_the_page_in_chinese(course):
    page = page_of(course.values(), "zh")
    assert '<html lang="zh-CN">' in page
    for key in ("roster.html.title", "roster.html.by-problem", "roster.html.filter", "report.summarize.ready"):
        assert t(key, "zh") in page
    assert "Class roster" not in page


def test_every_student_is_a_row_with_their_findings(course):
    page = page_of(course.values())
    body = page[page.index("<tbody>"):page.index("</tbody>")]
    assert body.count("<tr ") == len(course)
    gus = load_report(course["gus"])
    for finding in gus["findings"]:
        assert finding["title"].replace("'", "&#x27;").replace('"', "&quot;") in body
    states = re.findall(r'<tr data-state="([a-z-]+)">', body)
    assert states.count("ready") == 2 and states.count("not-ready") == len(course) - 2


def test_summarize_html_writes_the_page(course, tmp_path, capsys):
    out = tmp_path / "class.html"
    assert main(["report", "summarize", *course.values(), "--html", str(out), "--lang", "en"]) == 0
    said = capsys.readouterr().out
    assert f"Class page written to {out}" in said and "2 of 9 ready." in said
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    # Again, over the old page; and to stdout.
    assert main(["report", "summarize", course["ana"], "--html", str(out)]) == 0
    capsys.readouterr()
    assert out.read_text(encoding="utf-8").count('<tr data-state=') == 1
    assert main(["report", "summarize", course["ana"], "--html", "-"]) == 0
    assert capsys.readouterr().out.startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["class.html"]   # no temporary file left


def test_summarize_html_to_a_folder_that_is_not_there(course, tmp_path, capsys):
    out = tmp_path / "missing" / "class.html"
    assert main(["report", "summarize", course["ana"], "--html", str(out), "--lang", "en"]) == 2
    assert "Could not write the class page" in capsys.readouterr().err and not out.exists()


def test_csv_and_html_are_one_or_the_other(course, tmp_path, capsys):
    with pytest.raises(SystemExit) as caught:
        main(["report", "summarize", course["ana"], "--csv", "--html", str(tmp_path / "x.html")])
    assert caught.value.code == 2


def test_the_page_keeps_a_file_that_could_not_be_used(course, tmp_path, capsys):
    broken = tmp_path / "broken.toml"
    broken.write_text("[[[\n", encoding="utf-8")
    out = tmp_path / "class.html"
    assert main(["report", "summarize", course["ana"], str(broken), "--html", str(out), "--lang", "en"]) == 2
    page = out.read_text(encoding="utf-8")
    assert '<tr data-state="unusable">' in page and "broken.toml" in page and "not valid TOML" in page


# ----------------------------------------------------------------------- 5. width ---

def test_a_broken_file_does_not_cost_the_error_count_at_80_columns(course, tmp_path, capsys, monkeypatch):
    (tmp_path / "corrupt.toml").write_text("[[[\n", encoding="utf-8")
    (tmp_path / "invalid.toml").write_text('schema = "gpu-wizard/report/1"\nlanguage = "fr"\n', encoding="utf-8")
    files = [*course.values(), str(tmp_path / "corrupt.toml"), str(tmp_path / "invalid.toml")]
    for lang in ("en", "zh"):
        monkeypatch.setenv("COLUMNS", "80")
        assert main(["report", "summarize", *files, "--lang", lang]) == 2
        lines = capsys.readouterr().out.splitlines()
        assert lines[0].split()[-1] == t("roster.header.errors", lang)
        table = lines[2:2 + len(files)]
        assert max(cell_width(line) for line in table) <= 80
        counts = [line.split()[-1] for line in table[:len(course)]]
        assert all(count.isdigit() for count in counts), table
        assert table[-2].endswith(t("report.value.unreadable", lang))
        assert table[-1].endswith(t("report.value.invalid", lang))


def test_two_cards_whose_names_start_alike_stay_apart_at_80_columns(course, tmp_path, capsys, monkeypatch):
    names = {"a.toml": "Radeon RX 6700/6700 XT/6750 XT / 6800M/6850M XT",
             "b.toml": "Radeon RX 6700/6700 XT/6750 XT", "c.toml": "AMD Radeon RX 6800 XT"}
    files = [str(edited(Path(shutil.copy(course["hal"], tmp_path / name)),
                        lambda d, gpu=gpu: d["machine"].update(gpus=[{"vendor": "amd", "name": gpu,
                                                                      "source": "pci", "vram_gb": 12.0}])))
             for name, gpu in names.items()]
    files.append(str(Path(shutil.copy(course["ana"], tmp_path / ("x" * 60 + ".toml")))))  # a long name
    monkeypatch.setenv("COLUMNS", "80")
    main(["report", "summarize", *files, "--lang", "en"])
    out = capsys.readouterr().out
    lines = out.splitlines()
    start = lines[0].index("GPU")
    cells = [line[start:].split("  ")[0] for line in lines[2:5]]
    assert len(set(cells)) == 3, cells
    assert all(cell.startswith("RX 6") for cell in cells), cells


@pytest.mark.parametrize("width", [6, 8, 12, 16])
def test_distinct_cuts_never_make_two_names_alike(width):
    values = ["Radeon RX 6700/6700 XT/6750 XT / 6800M/6850M XT", "Radeon RX 6700/6700 XT/6750 XT",
              "Radeon RX 6700/6700 XT", "Radeon RX 6800/6800 XT / 6900 XT", "RTX 4070 SUPER",
              "RTX 4070 Ti SUPER", "RTX 4070", "H200", "Radeon RX 6700/6700 XT/6750 XT / 6800M"]
    cuts = _distinct_cuts(values, width)
    assert len(set(cuts.values())) == len(values)
    assert all(cell_width(cut) <= width for cut in cuts.values())
    assert cuts["H200"] == "H200"
    if width >= 8:
        assert cuts["RTX 4070"] == "RTX 4070"   # a name that fits is never cut


def test_the_later_copy_is_marked_whichever_name_sorts_first(course, tmp_path, capsys):
    original = Path(shutil.copy(course["eve"], tmp_path / "zed.toml"))
    copy = Path(shutil.copy(original, tmp_path / "amy-again.toml"))   # written after, sorts before
    os.utime(original, ns=(1_000_000_000, 1_000_000_000))
    for order in ([copy, original], [original, copy]):
        assert main(["report", "summarize", "--csv", *map(str, order)]) == 0
        rows = {Path(r["file"]).name: r["duplicate_of"] for r in csv_rows(capsys.readouterr().out)}
        assert rows == {"zed.toml": "", "amy-again.toml": str(original)}


def test_a_copy_that_kept_its_originals_time_is_still_the_copy(course, tmp_path, capsys):
    original = Path(shutil.copy(course["eve"], tmp_path / "zed.toml"))
    copy = Path(shutil.copy2(original, tmp_path / "amy.toml"))   # `cp -p`: the same mtime
    assert os.stat(copy).st_mtime_ns == os.stat(original).st_mtime_ns
    assert main(["report", "summarize", "--csv", str(copy), str(original)]) == 0
    rows = {Path(r["file"]).name: r["duplicate_of"] for r in csv_rows(capsys.readouterr().out)}
    assert rows == {"zed.toml": "", "amy.toml": str(original)}


def test_the_report_saved_first_is_the_original(course):
    """Rows with one identity: the one whose report was created first stays the student; then
    the file written first; then the name."""
    rows = [{"file": name, "duplicate_of": ""} for name in ("b.toml", "a.toml", "c.toml")]
    seen: dict = {}
    place(rows[0], "same", seen, created=100.0)
    place(rows[1], "same", seen, created=200.0)
    assert [r["duplicate_of"] for r in rows[:2]] == ["", "b.toml"]
    place(rows[2], "same", seen, created=50.0)   # saved earliest, listed last
    assert [r["duplicate_of"] for r in rows] == ["c.toml", "c.toml", ""]
    # Created alike, files that are not there: the name decides.
    twins = [{"file": name, "duplicate_of": ""} for name in ("y.toml", "x.toml")]
    seen = {}
    for row in twins:
        place(row, "twin", seen, created=1.0)
    assert [r["duplicate_of"] for r in twins] == ["x.toml", ""]


def test_the_table_legend_does_not_say_the_copy_is_below(course, tmp_path, capsys, monkeypatch):
    copy = Path(shutil.copy(course["eve"], tmp_path / "a-copy.toml"))
    monkeypatch.setenv("COLUMNS", "120")
    main(["report", "summarize", str(copy), course["eve"], "--lang", "en"])
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "a-copy" in line)
    assert "(duplicate)" in row and "above" not in out


# ----------------------------------------------------------------------- 6. scale ---

def test_the_scale_benchmark_times_table_csv_and_page(monkeypatch):
    """The 1,000-report figure's machinery on a small class, once (timing is the bench's, not
    the suite's: benchmarks/summarize_bench.py)."""
    from benchmarks import summarize_bench

    figures = summarize_bench._scale(runs=1, reports=12)
    assert [f.name for f in figures] == ["summarize 12 table", "summarize 12 --csv", "summarize 12 --html"]
    assert all(f.ratio and f.ratio > 0 for f in figures)


def test_a_big_class_renders_every_row_in_each_output(course, tmp_path):
    """1,000 rows through every renderer: each student once, the groups' counts add up."""
    base = [entry_of(name, load_report(name), "en") for name in course.values()]
    rows, students = [], []
    for i in range(1000):
        entry = base[i % len(base)]
        rows.append({**entry.row, "file": f"s{i:04d}.toml"})
        students.append(entry.student)
    table = render_table(rows, "en", 80)
    assert sum(1 for line in table.splitlines() if re.match(r"s\d{4}", line)) == 1000
    groups = by_problem(zip(rows, students), "en")
    assert sum(len(g.files) for g in groups.groups) + groups.ready == 1000
    page = render_html(rows, students, "en")
    assert page.count('<tr data-state=') == 1000
