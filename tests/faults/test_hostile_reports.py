"""Hostile reports against every reader: the CLI's, the wizard's replay, and a real terminal.

A TA opens whatever students send. Every attack in hostile.py goes through `report show`,
`report validate`, `report summarize` (text, CSV and the HTML page), `check --machine` and a headless replay;
each must end with exit 0, 1 or 2, a plain message, and not one control, bidi or zero-width
character on the way out. In a real terminal (tmux, with the clipboard escape enabled) the
clipboard and the window title must stay untouched, and markup must show as the text it is.
A Hypothesis fuzz then throws mutated reports at the reader.
"""

from __future__ import annotations

import shlex
import time
import tomllib
from pathlib import Path

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.faults import hostile
from tests.terminal import TMUX, Terminal, installed_command
from wizard.cli import main

pytestmark = pytest.mark.faults

ATTACKS = hostile.attacks()
COMMANDS = {
    "show": ["report", "show"],
    "validate": ["report", "validate"],
    "summarize": ["report", "summarize"],
    "csv": ["report", "summarize", "--csv"],
    "html": ["report", "summarize", "--html", "-"],
    "check": ["check", "--machine"],
}
# Hostile input must be refused fast, not parsed for minutes: far above any real run here.
BOUND = 30.0


def run_main(argv: list[str], capsys) -> tuple[int, str]:
    start = time.monotonic()
    code = main(argv)
    seconds = time.monotonic() - start
    captured = capsys.readouterr()
    assert seconds < BOUND, f"{argv} took {seconds:.1f} s"
    return code, captured.out + captured.err


def clean(output: str, command: str) -> list[str]:
    if command == "csv":  # our own byte-order mark for Excel, first thing in the file
        output = output.removeprefix("\ufeff")
    return hostile.forbidden_in(output)


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_every_reader_answers_a_hostile_report_plainly(attack, command, tmp_path, capsys):
    path = tmp_path / f"{attack}.toml"
    path.write_bytes(ATTACKS[attack])
    code, output = run_main(COMMANDS[command] + [str(path)], capsys)
    assert code in (0, 1, 2)
    assert not clean(output, command), f"{attack}: {clean(output, command)} reached the terminal"
    if command in ("show", "validate"):
        assert (code == 0) == (attack in hostile.VALID), output[-600:]
    if code != 0 and command == "show":
        assert output.strip(), "refused without a word"


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_headless_replay_of_a_hostile_report_saves_only_clean_text(attack, tmp_path, capsys):
    path = tmp_path / f"{attack}.toml"
    path.write_bytes(ATTACKS[attack])
    out = tmp_path / "out.toml"
    code, output = run_main(["--lang", "en", "--machine", str(path), "--answers", str(path),
                             "--report", str(out)], capsys)
    assert code in (0, 1, 2)
    assert not clean(output, "headless"), clean(output, "headless")
    if out.exists():
        saved = out.read_text(encoding="utf-8")
        assert not hostile.forbidden_in(_strings(tomllib.loads(saved)))
        assert main(["report", "validate", str(out)]) == 0
        capsys.readouterr()


def _strings(data) -> str:
    """Every string in parsed TOML, keys too, joined: what a later reader would show."""
    if isinstance(data, dict):
        return "".join(_strings(k) + _strings(v) for k, v in data.items())
    if isinstance(data, list):
        return "".join(_strings(v) for v in data)
    return data if isinstance(data, str) else ""


def test_hostile_files_in_a_roster_do_not_drop_the_other_students(tmp_path, capsys):
    good = tmp_path / "ana.toml"
    good.write_bytes(hostile.BASE.read_bytes())
    files = [str(good)]
    for attack in sorted(ATTACKS):
        path = tmp_path / f"{attack}.toml"
        path.write_bytes(ATTACKS[attack])
        files.append(str(path))
    code, output = run_main(["report", "summarize", "--csv"] + files, capsys)
    assert code in (0, 1, 2)
    rows = [line for line in output.removeprefix("\ufeff").splitlines() if line.startswith(str(tmp_path))]
    assert len(rows) == len(files)                    # one row per file, every student kept
    assert rows[0].startswith(f"{good},")
    assert "RTX 4060 Laptop" in rows[0]


def test_markup_and_escapes_are_shown_as_the_text_they_are(tmp_path, capsys):
    path = tmp_path / "r.toml"
    path.write_bytes(ATTACKS["markup-in-gpu-name"])
    code, output = run_main(["report", "show", "--lang", "en", str(path)], capsys)
    assert code == 0
    assert "[red]RTX[/] [@click=app.quit]go[/]" in output
    path.write_bytes(ATTACKS["title-in-gpu-name"])
    code, output = run_main(["report", "show", "--lang", "en", str(path)], capsys)
    # Visible, not obeyed and not silently dropped: the reader sees something was there.
    assert "\ufffd]2;PWNED\ufffdRTX 4060" in output


@pytest.mark.parametrize("when, shown", [
    ("0001-01-01 00:00:00+08:00", "0001-01-01 00:00 UTC+08:00"),
    ("9999-12-31 23:59:59-08:00", "9999-12-31 23:59 UTC-08:00"),
    ("2026-11-30 20:00:00+08:00", "2026-11-30 12:00 UTC"),   # moved to UTC, labelled so
])
def test_a_saved_time_is_never_mislabelled(when, shown, tmp_path, capsys):
    text = hostile.BASE.read_text(encoding="utf-8").replace(
        "created = 2026-11-30 15:03:03+00:00", f"created = {when}")
    path = tmp_path / "r.toml"
    path.write_text(text, encoding="utf-8")
    code, output = run_main(["report", "show", "--lang", "en", str(path)], capsys)
    assert code == 0 and f"Created {shown}," in output


# --------------------------------------------------------------------- fuzz ---

ANY_TEXT = st.text(max_size=40)
LEAVES = (st.none() | st.booleans() | st.integers(min_value=-(10**600), max_value=10**600)
          | st.floats() | ANY_TEXT | st.datetimes(timezones=st.none() | st.timezones())
          | st.dates() | st.times())
VALUES = st.recursive(LEAVES, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(ANY_TEXT, inner, max_size=4), max_leaves=12)


def _paths(data, prefix=()):
    yield prefix
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _paths(value, prefix + (index,))


BASE_PATHS = [p for p in _paths(hostile.base()) if p]


def _drop_none(value):
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value if v is not None]
    return value


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(edits=st.lists(st.tuples(st.sampled_from(BASE_PATHS), VALUES), min_size=1, max_size=3))
def test_fuzzed_reports_never_break_the_reader(edits, tmp_path_factory):
    data = hostile.base()
    for path, value in edits:
        target = data
        try:
            for step in path[:-1]:
                target = target[step]
            target[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue  # an earlier edit replaced what this path ran through
    try:
        text = tomli_w.dumps(_drop_none(data))
    except (TypeError, ValueError):
        return  # not expressible in TOML at all
    _read_everywhere(text.encode("utf-8"), tmp_path_factory.mktemp("fuzz"))


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(cuts=st.lists(st.tuples(st.integers(0, 10_000), st.binary(max_size=12)), min_size=1, max_size=4))
def test_reports_with_bytes_spliced_in_never_break_the_reader(cuts, tmp_path_factory):
    raw = hostile.BASE.read_bytes()
    for at, junk in cuts:
        at %= len(raw) + 1
        raw = raw[:at] + junk + raw[at:]
    _read_everywhere(raw, tmp_path_factory.mktemp("splice"))


def _read_everywhere(raw: bytes, folder: Path) -> None:
    import contextlib
    import io

    path = folder / "r.toml"
    path.write_bytes(raw)
    for argv in (["report", "show", str(path)], ["report", "validate", str(path)],
                 ["report", "summarize", str(path)]):
        out, err = io.StringIO(), io.StringIO()
        start = time.monotonic()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
        assert time.monotonic() - start < BOUND
        assert code in (0, 1, 2)
        shown = out.getvalue() + err.getvalue()
        assert not hostile.forbidden_in(shown), (argv, hostile.forbidden_in(shown))


# -------------------------------------------------------------- a real terminal ---

needs_tmux = pytest.mark.skipif(TMUX is None or installed_command() is None,
                                reason="tmux and the installed command (.ci/run installs both)")
# What a terminal emulator would obey: tmux turns an OSC 52 into a paste buffer only with
# set-clipboard on, and lets a program retitle the pane.
OBEYING = "set -g set-clipboard on\nset -g allow-rename on"
DONE = "HOSTILE-DONE"


def _shell(command: list[str], folder: Path) -> str:
    return (f"cd {shlex.quote(str(folder))} && env LANG=C.UTF-8 TERM=xterm-256color "
            f"HOME={shlex.quote(str(folder))} " + " ".join(shlex.quote(a) for a in command)
            + f"; echo {DONE}$?; sleep 600")


@needs_tmux
def test_the_terminal_check_itself_sees_an_escape_that_gets_through(tmp_path):
    """The control: the same terminal does obey a raw OSC 52 and OSC 2, so the checks below
    would catch one that slipped through."""
    term = Terminal("hostile-control", "printf '\\033]52;c;aGVsbG8=\\007\\033]2;PWNED\\007'; sleep 600",
                    config=OBEYING)
    try:
        deadline = time.monotonic() + 10
        while "PWNED" not in term.title() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert term.title() == "PWNED"
        assert "hello" in term.buffers()
    finally:
        term.close()


@needs_tmux
def test_report_show_of_every_hostile_report_leaves_the_terminal_alone(tmp_path):
    folder = tmp_path / "inbox"
    paths = hostile.write_all(folder)
    valid = [str(paths[name]) for name in sorted(hostile.VALID)]
    loop = " ; ".join(f"{shlex.quote(installed_command())} report show {shlex.quote(p)}" for p in valid)
    term = Terminal("hostile-show", _shell(["sh", "-c", loop], folder), config=OBEYING)
    try:
        before = term.title()
        term.wait_for(DONE, timeout=120)
        assert term.buffers() == "", "a report filled the clipboard"
        assert term.title() == before, "a report retitled the terminal"
        assert "[red]RTX[/] [@click=app.quit]go[/]" in term.history()
    finally:
        term.close()


@needs_tmux
def test_the_wizard_replays_a_hostile_report_as_text(tmp_path):
    data = hostile.base()
    data["machine"]["cpu_model"] = hostile.OSC52 + "Intel"
    data["machine"]["gpus"][0]["name"] = hostile.TITLE + "[red]RTX[/] [@click=app.quit]4060[/]" + hostile.BIDI
    data["machine"]["torch"]["message"] = hostile.CLEAR + "message"
    data["answers"]["goal"] = "[/]"        # closes no tag; once crashed the notification
    folder = tmp_path / "inbox"
    folder.mkdir()
    name = f"student{hostile.TITLE}.toml"          # the banner names the file: its name is outside text too
    (folder / name).write_text(tomli_w.dumps(data), encoding="utf-8")
    wizard = [installed_command(), "--lang", "en", "--machine", name, "--report", "out.toml"]
    term = Terminal("hostile-tui", _shell(wizard, folder), config=OBEYING)
    try:
        before = term.title()
        term.wait_for("known goal", timeout=60)   # the file's own words, literally (wrapped)
        term.wait_for("'[/]'")
        for step in range(1, 6):                           # welcome → need GPU → … → goal
            term.keys("C-n")
            term.wait_for(f"Step {step} of 5", timeout=30)
        term.wait_for("What do you mainly want to do", timeout=30)
        term.keys("Enter")                                 # the goal left unanswered: pick one
        term.wait_for("[@click=app.quit]4060[/]", timeout=30)
        term.keys("C-n")
        term.wait_for("Save the report as", timeout=30)
        term.keys("Enter")
        term.wait_for("Saved", timeout=30)
        term.keys("Enter")
        term.wait_for(DONE + "0", timeout=30)
        assert term.buffers() == "", "the replay filled the clipboard"
        assert term.title() == before, "the replay retitled the terminal"
    finally:
        term.close()
    saved = tomllib.loads((folder / "out.toml").read_text(encoding="utf-8"))
    assert not hostile.forbidden_in(_strings(saved))
    assert saved["answers"]["goal"] == "learning"


def test_a_hostile_created_time_reaches_the_replay_banner_safely(tmp_path):
    from wizard.machine.recorded import load_recording

    text = hostile.BASE.read_text(encoding="utf-8").replace(
        "created = 2026-11-30 15:03:03+00:00", "created = 0001-01-01 00:00:00+08:00")
    path = tmp_path / "r.toml"
    path.write_text(text, encoding="utf-8")
    loaded = load_recording(path)
    assert loaded.created == "0001-01-01 00:00 UTC+08:00"

