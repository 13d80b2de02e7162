"""Paths survive, and no path drives the terminal (issue 23: items 3 and 6).

An interpreter's path is used (run, handed to pip) and shown. The use gets it exactly as the
probe found it, escape sequences and bytes that are not UTF-8 included; the screen and the printed
text get a copy with every escape made visible (the one sanitizer, wizard.text.output.shown), the
zero-width joiners that Persian and emoji are spelled with kept; and a command quotes it so that
the shell reads back exactly that path while the terminal shows all of it. Proved with bash
itself, and by walking every screen and dialog of the wizard, and the commands' output, with a
machine whose paths and texts carry escape sequences, checking what would be written to the
terminal.
"""

from __future__ import annotations

import io
import json
import re
import shlex
import shutil
import subprocess
from dataclasses import replace

import pytest

from tests.faults.hostile import BIDI, C1, CLEAR, FORBIDDEN, TITLE, forbidden_in
from tests.pilot import Told, at_step, screen_rows, screen_strips, type_budget, until
from tests.recorded import machine
from wizard.machine.live import Probes, from_machine, settle
from wizard.probe.facts import NotRunPython, OtherPython
from wizard.pytorch.choose import pip_for, shell_quote
from wizard.text.output import has_hidden

ZWJ = "\u200d"
# A Linux machine with the CPU build beside an AMD GPU: the advice installs another build.
LINUX_MACHINE = "amd-rx6800-cpu-torch"
POSIX_PATHS = [
    "/home/ana/.venv/bin/python3",
    "/home/ana/my project/.venv/bin/python3",
    "/home/ana/it's/.venv/bin/python3",
    f"/home/ana/پروژه{ZWJ}ها/.venv/bin/python3",           # Persian, with a zero-width joiner
    "/home/ana/👩\u200d💻/.venv/bin/python",                  # an emoji sequence
    "/home/ana/caf\udce9/.venv/bin/python3",                  # "café" in Latin-1: not UTF-8
    f"/home/ana/proj{TITLE}{CLEAR}/.venv/bin/python3",
    f"/home/ana/{BIDI}/x\n/.venv/bin/python3",
    "/home/ana/$(touch pwned)`id`;&|*?/.venv/bin/python3",
    "/home/ana/two\nlines\tand a tab/.venv/bin/python3",  # shown raw, one word on two lines
]


def bash_reads(word: str) -> bytes:
    """What bash makes of `word` typed on a command line: the bytes of the one argument."""
    result = subprocess.run(["bash", "-c", f"printf %s {word}"], capture_output=True, timeout=10)
    assert result.returncode == 0, result.stderr
    return result.stdout


def raw(path: str) -> bytes:
    return path.encode("utf-8", "surrogateescape")


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("path", POSIX_PATHS, ids=range(len(POSIX_PATHS)))
def test_a_posix_path_is_read_back_exactly_and_shown_whole(path):
    quoted = shell_quote(path, "Linux", program=True)
    assert bash_reads(quoted) == raw(path)
    assert not has_hidden(quoted)                    # a terminal shows every character of it
    assert not set(quoted) & FORBIDDEN


# --------------------------------------------------------------------------- PowerShell ---

def powershell_value(text: str) -> tuple[str, str]:
    """One PowerShell word read as PowerShell reads it: (its value, what follows it). Single
    quotes: nothing special but a quote, doubled; double quotes: ` escapes and $([char]0x…)."""
    singles, doubles = "'\u2018\u2019\u201a\u201b", '"\u201c\u201d\u201e'
    if text[:1] in singles:
        value, i = [], 1
        while i < len(text):
            if text[i] in singles:
                if i + 1 < len(text) and text[i + 1] in singles:
                    value.append(text[i])
                    i += 2
                    continue
                return "".join(value), text[i + 1:]
            value.append(text[i])
            i += 1
        raise AssertionError(f"unterminated: {text!r}")
    if text[:1] in doubles:
        value, i = [], 1
        while i < len(text):
            ch = text[i]
            if ch == "`":
                value.append(text[i + 1])
                i += 2
            elif text.startswith("$([char]0x", i):
                end = text.index(")", i)
                value.append(chr(int(text[i + 10:end], 16)))
                i = end + 1
            elif ch == "$":
                raise AssertionError(f"a live $ inside double quotes: {text!r}")
            elif ch in doubles:
                return "".join(value), text[i + 1:]
            else:
                value.append(ch)
                i += 1
        raise AssertionError(f"unterminated: {text!r}")
    word = re.match(r"[^\s]*", text).group(0)
    assert re.fullmatch(r"[\w:\\/.=+-]*", word), f"a bare word with specials: {word!r}"
    return word, text[len(word):]


WINDOWS_PATHS = [
    r"C:\Python312\python.exe",
    "C:\\Users\\张伟\\AppData\\Local\\Programs\\Python\\Python312\\python.exe",
    r"C:\Users\Ana Lopez\project\.venv\Scripts\python.exe",
    'C:\\x" & calc & "\\python.exe',
    "C:\\it's $(calc)\\python.exe",
    "C:\\x\u2019; calc; \u2018\\python.exe",             # PowerShell's typographic quotes
    "C:\\a`b$env:PATH\\python.exe",
    f"C:\\proj{ZWJ}\\$x\\python.exe",
]


@pytest.mark.parametrize("path", WINDOWS_PATHS, ids=range(len(WINDOWS_PATHS)))
def test_a_windows_path_is_one_word_in_powershell_and_only_that_path(path):
    command = shell_quote(path, "Windows", program=True) + " -m pip"
    quoted = command[2:] if command.startswith("& ") else command
    if quoted is command:
        assert re.fullmatch(r"[\w:\\/.=+-]+ -m pip", command)   # no quoting needed: cmd reads it too
    value, rest = powershell_value(quoted)
    assert value == path and rest == " -m pip"
    assert not has_hidden(command)


def test_a_quoted_program_gets_the_call_operator_and_an_argument_does_not():
    assert shell_quote(r"C:\My env\python.exe", "Windows", program=True).startswith("& '")
    assert shell_quote("numpy<2", "Windows") == "'numpy<2'"
    assert shell_quote("--index-url", "Windows") == "--index-url"
    # A user folder named in Chinese needs no quotes: the same line runs in PowerShell and cmd.
    chinese = "C:\\Users\\张伟\\.venv\\Scripts\\python.exe"
    assert shell_quote(chinese, "Windows", program=True) == chinese
    # Dashes and spaces of other scripts are no letters: PowerShell reads "–x" as "-x".
    assert shell_quote("C:\\a\u2013b\\python.exe", "Windows", program=True).startswith("& '")
    assert shell_quote("C:\\a\u3000b\\python.exe", "Windows", program=True).startswith("& '")


# ------------------------------------------------------------------------- arrival, use ---

def hostile_torch(path: str):
    info, bench, note = from_machine(machine(LINUX_MACHINE)).torch
    info = replace(info, interpreter=path, interpreter_source="project-venv",
                   message=f"checked {path}", asked=(path,),
                   other_pythons=(OtherPython(path + "2", "conda-env", "2.8.0"),),
                   not_run=(NotRunPython(path + "3", "project-venv", "ask-first", "2.5.1"),))
    return info, bench, note


def hostile_probes(path: str) -> Probes:
    live = from_machine(machine(LINUX_MACHINE))
    system = live.system
    hardware = live.hardware
    gpus = tuple(replace(g, name=f"{TITLE}{g.name}{BIDI}") for g in hardware.gpus)
    return Probes(system=lambda: system, nvidia=lambda: live.nvidia,
                  hardware=lambda: hardware._replace(gpus=gpus),
                  torch=lambda: hostile_torch(path), torch_for=lambda picked: hostile_torch(picked))


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("path", [POSIX_PATHS[3], POSIX_PATHS[5], POSIX_PATHS[6]], ids=["zwj", "latin-1", "osc"])
def test_the_path_a_probe_found_reaches_pip_and_the_plan_exactly(path):
    from wizard.pytorch.installer import make_plan

    found = settle(hostile_probes(path))
    torch = found.torch
    assert torch.interpreter == path and torch.asked == (path,)
    assert torch.other_pythons[0].interpreter == path + "2" and torch.not_run[0].interpreter == path + "3"
    # What is only shown is still cleaned where it arrives.
    assert not any(set(g.name) & FORBIDDEN for g in found.gpus)
    pip = pip_for(found)
    assert bash_reads(pip.rsplit(" -m pip", 1)[0]) == raw(path)
    from wizard.pytorch.choose import choose_for_machine

    plan = make_plan(torch.interpreter, torch.interpreter_source, choose_for_machine(found, "en"))
    assert plan.argv[0] == path
    assert bash_reads(plan.shown.split(" ", 1)[0]) == raw(path)
    assert not has_hidden(plan.shown)


# ------------------------------------------------------------------------ the one sanitizer ---

ZWNJ = "\u200c"


class Utf8(io.StringIO):
    """Where safe() prints: a UTF-8 terminal, whatever the one running the tests is."""

    encoding = "utf-8"
PERSIAN = f"پروژه{ZWJ}ها"
# Everything a terminal must not be handed: an OSC title, a clear and colour (CSI), their C1
# forms, bidi overrides and isolates, a zero-width space.
EVIL = f"{TITLE}{CLEAR}{C1}{BIDI}"


def test_the_display_sanitizer_keeps_the_joiners_and_makes_the_rest_visible():
    from screens.widgets import shown_text
    from wizard.text.output import safe, shown, strip_controls

    # Persian and emoji are spelled with the joiners: drawn as they are, a path keeps its look
    # and a command copied from the screen is the command.
    words = f"می{ZWNJ}خواهم {PERSIAN} 👩{ZWJ}💻"
    for draw in (shown, shown_text, strip_controls):
        assert draw(words) == words
    assert not has_hidden(words)
    for ch in "\x1b\x07\x00\x7f\x9b\x9d\u200b\u200e\u200f\u202e\u2066\u2060\ufeff\u061c":
        assert shown(f"a{ch}b") == "a\ufffdb" and has_hidden(ch), repr(ch)
    # A byte that is not UTF-8 (the path is used as it is, so it reaches the screen): the
    # terminal is written UTF-8.
    assert shown("caf\udce9") == shown_text("caf\udce9") == "caf\ufffd"
    assert shown("a\r\nb\tc") == "a\nb\tc"
    assert safe(f"{TITLE}{words}\udce9", Utf8()) == f"\ufffd]2;PWNED\ufffd{words}\ufffd"


@pytest.mark.parametrize("path", [POSIX_PATHS[3], POSIX_PATHS[4]], ids=["persian", "emoji"])
def test_a_path_with_a_joiner_is_shown_as_it_is_in_its_command(path):
    from wizard.text.output import shown

    quoted = shell_quote(path, "Linux", program=True)
    assert quoted == shlex.quote(path) and ZWJ in quoted
    assert shown(quoted) == quoted                        # what is drawn is what is pasted


def test_what_a_command_shows_is_what_is_pasted():
    from wizard.text.output import shown

    for path in POSIX_PATHS:
        quoted = shell_quote(path, "Linux", program=True)
        assert shown(quoted) == quoted and "\n" not in quoted and "\t" not in quoted, path
    for path in [*WINDOWS_PATHS, "C:\\a\tb\\python.exe", "C:\\a\nb\\python.exe"]:
        quoted = shell_quote(path, "Windows", program=True)
        assert shown(quoted) == quoted and "\n" not in quoted and "\t" not in quoted, path


# ------------------------------------------------------------------------------- commands ---

@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("path", [POSIX_PATHS[3], POSIX_PATHS[5], f"/home/ana/{PERSIAN}/p{EVIL}/bin/python3"],
                         ids=["zwj", "latin-1", "escapes"])
def test_torch_command_prints_the_exact_command_and_nothing_for_the_terminal(path):
    from wizard.commands.torch_command import _ran_json, render_text
    from wizard.pytorch.choose import choose_for_machine, machine_facts
    from wizard.text.output import json_text, valid_unicode

    found = settle(hostile_probes(path))
    choice = choose_for_machine(found, "en")
    text = render_text(choice, machine_facts(found), "live", "en", found.torch)
    assert not set(text) & FORBIDDEN
    assert f"    {choice.command}" in text.splitlines()
    assert bash_reads(choice.command.split(" -m pip", 1)[0]) == raw(path)

    printed = json_text({**choice.to_json(), **_ran_json(found.torch)})
    assert not set(printed) & FORBIDDEN
    data = json.loads(printed)
    assert data["command"] == choice.command
    # The path itself, escapes included; only a byte that is not UTF-8 cannot be JSON text.
    assert data["interpreter"] == valid_unicode(path)


@pytest.mark.parametrize("path", [POSIX_PATHS[3], POSIX_PATHS[5], f"/home/ana/{PERSIAN}/p{EVIL}/bin/python3"],
                         ids=["zwj", "latin-1", "escapes"])
def test_install_torch_prints_the_plan_inert_and_its_command_exact(path, capsys):
    from wizard.commands.install_torch import _Say
    from wizard.pytorch.choose import choose_for_machine
    from wizard.pytorch.installer import make_plan

    found = settle(hostile_probes(path))
    plan = make_plan(found.torch.interpreter, found.torch.interpreter_source, choose_for_machine(found, "en"))
    _Say("en").plan(plan, own=False, mirror=None, ran=found.torch)
    out = capsys.readouterr().out
    assert not set(out) & FORBIDDEN
    assert f"    {plan.shown}" in out.splitlines() and plan.argv[0] == path


# ----------------------------------------------------------------------------- screens ---
async def to_result(pilot, look) -> None:
    """From the first step to the recommendation, accepting what is shown (a budget typed),
    calling `look(step)` on each step as it opens."""
    for step in ("need_gpu", "has_nvidia", "form_factor"):
        await look(step)
        await pilot.press("ctrl+n")
    await look("budget")
    await type_budget(pilot, "5000")
    await pilot.press("enter")
    await look("goal")
    await pilot.press("ctrl+n")
    await look("result")



HOSTILE = f"/home/ana/{PERSIAN}/proj{EVIL}caf\udce9/.venv/bin/python3"


def everything_hostile(path: str) -> Probes:
    """hostile_probes, with escapes in every text a probe brings too: the CPU, the host name,
    NVML's message, the GPU names, PyTorch's message, error line and warnings, the notes."""
    probes = hostile_probes(path)
    system = probes.system()._replace(cpu_model=f"AMD{EVIL} Ryzen", hostname=f"host{EVIL}")
    nvidia = probes.nvidia()
    nvidia = nvidia._replace(info=replace(nvidia.info, message=f"nvml{EVIL}"), detail=f"nvml{EVIL}")
    hardware = probes.hardware()
    hardware = hardware._replace(notes=tuple(replace(n, detail=f"note{EVIL}") for n in hardware.notes),
                                 evidence=tuple(f"{e}{EVIL}" for e in hardware.evidence))

    def torch(picked: str):
        info, bench, note = hostile_torch(picked)
        info = replace(info, error_line=f"error{EVIL}", torch_warnings=(f"warning{EVIL}",))
        return info, bench, replace(note, detail=f"torch{EVIL}")

    return Probes(system=lambda: system, nvidia=lambda: nvidia, hardware=lambda: hardware,
                  torch=lambda: torch(path), torch_for=torch)


def written(app) -> str:
    """What the app writes to the terminal for the screen as it is now (each row as Textual's
    driver is given it: text with its style sequences), without the SGR colour and style
    sequences Textual itself makes."""
    out = "".join(strip.render(app.console) for strip in screen_strips(app))
    return re.sub(r"\x1b\[[0-9;:]*m", "", out)


async def test_every_screen_and_dialog_draws_hostile_paths_inert(tmp_path, monkeypatch):
    """Welcome (the Python dialog: its list, a typed path, its rejection, a picked one; the
    question before running a folder's own Python), every step, the install dialog with pip's
    output and the check after it, the save step with its "already exists" question, and what
    is printed when the wizard closes: nothing hostile reaches the terminal, the joiner does,
    and the path picked and the report path are used exactly."""
    import os
    import sys

    from textual.widgets import Input, Log

    from screens.app import exit_summary, make_app
    from screens.dialogs import ExistsDialog, PythonDialog
    from screens.run_python import RunPythonDialog
    from wizard.probe.facts import GpuTest
    from wizard.pytorch import installer
    from wizard.text.output import safe

    ran = []

    def fake_stream(plan, on_line, on_start=None):
        ran.append(plan.argv)
        on_line(f"Collecting torch{EVIL}")
        on_line(f"Successfully installed torch-2.14.1 in {plan.python}")
        return 0

    def fake_verify(plan, machine, lang, gpu_test=True):
        info = replace(machine.torch, interpreter=plan.python, version="2.14.1+rocm6.4", build="rocm",
                       gpu_tests=(GpuTest("cuda:0", "ok", name=f"Radeon{EVIL}", seconds=0.4),))
        return "gpu-ok", info, []

    monkeypatch.setattr(installer, "stream_install", fake_stream)
    monkeypatch.setattr(installer, "verify", fake_verify)
    seen: list[str] = []

    def inert(where: str) -> None:
        out = written(app)
        assert not set(out) & FORBIDDEN, (where, forbidden_in(out))
        seen.append("".join(screen_rows(app)))

    report = tmp_path / f"report{TITLE}{ZWJ}\udce9.toml"
    report.write_text("taken")                           # so that the "already exists" question shows
    picked = tmp_path / f"env{EVIL}{PERSIAN}\udce9" / "python3"
    picked.parent.mkdir()
    os.symlink(sys.executable, picked)
    app = make_app("en", probes=everything_hostile(HOSTILE), report_path=report)
    told = Told(app)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:     # toasts drawn too
        await at_step(pilot, "welcome")
        await until(pilot, lambda: app.state.live.torch is not None, what="the torch result")
        await pilot.pause()
        assert app.state.live.torch_info().interpreter == HOSTILE      # kept for its use
        inert("welcome")

        async def pick(path: str) -> None:
            await pilot.press("p")
            await until(pilot, lambda: isinstance(app.screen, PythonDialog) and app.screen.is_mounted,
                        what="the Python dialog")
            await pilot.pause()
            inert("the Python dialog")
            field = app.screen.query_one("#python-path", Input)
            field.focus()
            field.value = path
            await pilot.pause()
            inert("a typed path")
            await pilot.press("enter")

        await pick(str(tmp_path / f"gone{EVIL}\udce9" / "python3"))
        # The toast wraps the (long, per-worker) tmp path wherever it falls: read its message too.
        await until(pilot, lambda: "no such file" in "".join(screen_rows(app))
                    or any("no such file" in str(m) for m in told.messages), what="the rejection")
        inert("the rejection")
        await pick(str(picked))                            # a real Python, in a hostile folder
        await until(pilot, lambda: getattr(app.state.live.torch_info(), "interpreter", None) == str(picked),
                    timeout=30, what="the picked Python's result")
        await pilot.pause()
        inert("the picked Python")

        app.push_screen(RunPythonDialog("en", str(picked.parent)))
        await until(pilot, lambda: isinstance(app.screen, RunPythonDialog) and app.screen.is_mounted,
                    what="the question")
        await pilot.pause()
        inert("the question before running")
        await pilot.press("escape")

        async def look(step: str) -> None:
            await at_step(pilot, step)
            await pilot.pause()
            inert(step)

        await pilot.press("enter")
        await to_result(pilot, look)
        command = app.state.outcome().recommendation.torch_command
        assert command and "$'" in command                 # quoted, hidden bytes as \xHH

        await pilot.press("i")
        await until(pilot, lambda: bool(app.screen.query("#install-command")), what="the install dialog")
        await pilot.pause()
        inert("the install dialog")
        assert app.state.install_plan().argv[0] == str(picked)
        await pilot.press("enter")                          # Install
        await until(pilot, lambda: "Radeon" in str(app.screen.query_one("#install-status").render()),
                    what="the check after the install")
        await pilot.pause()
        inert("the install's log and check")
        log = "".join(app.screen.query_one(Log).lines)
        assert "Collecting torch" in log and not set(log) & FORBIDDEN
        assert ran and ran[0][0] == str(picked)
        await pilot.press("enter")                          # Close
        await look("result")

        await pilot.press("ctrl+n")
        await look("save")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ExistsDialog) and app.screen.is_mounted,
                    what="the question about the existing report")
        await pilot.pause()
        inert("the report exists")
        await pilot.press("enter")                          # the next free name
        await until(pilot, lambda: app.state.saved_path is not None, what="the report to be saved")
        await look("save")
        assert app.state.saved_path.parent == tmp_path
        assert app.state.saved_path.name.startswith(f"report{TITLE}{ZWJ}\udce9")    # the name as given
        assert app.state.saved_path.exists()
        printed = safe(exit_summary(app), Utf8())
        assert not set(printed) & FORBIDDEN
        # Installed and working: keeping it is the action now, so no install line is left behind.
        rec = app.state.outcome().recommendation
        assert rec.action != "install" and command not in printed, (rec.action, rec.action_finding)
    shown = "\n".join(seen)
    # Not a vacuous pass: the hostile texts were drawn, made visible, the joiner kept.
    assert "]2;PWNED" in shown and PERSIAN in shown and "caf\ufffd" in shown and "Radeon" in shown


def hostile_recording():
    """A recorded machine whose every outside text carries escapes, as a Machine handed to the
    wizard directly: nothing cleaned it on the way in, so only drawing can make it inert."""
    recorded = machine(LINUX_MACHINE)
    torch = recorded.torch
    torch = replace(torch, interpreter=HOSTILE, message=f"torch{EVIL}", error_line=f"error{EVIL}",
                    torch_warnings=(f"warning{EVIL}",), asked=(HOSTILE,),
                    other_pythons=(OtherPython(HOSTILE + "2", "conda-env", "2.8.0"),),
                    not_run=(NotRunPython(HOSTILE + "3", "project-venv", "ask-first", "2.5.1"),))
    return replace(recorded, torch=torch, cpu_model=f"AMD{EVIL} Ryzen", hostname=f"host{EVIL}",
                   nvidia=replace(recorded.nvidia, message=f"nvml{EVIL}"),
                   gpus=tuple(replace(g, name=f"{g.name}{EVIL}") for g in recorded.gpus),
                   chassis_evidence=tuple(f"{e}{EVIL}" for e in recorded.chassis_evidence),
                   probes=tuple(replace(n, detail=f"note{EVIL}") for n in recorded.probes))


async def test_a_recorded_machine_with_hostile_texts_is_drawn_inert_on_every_step(tmp_path):
    from screens.app import make_app

    app = make_app("en", machine=hostile_recording(), report_path=tmp_path / f"r{TITLE}.toml")
    seen = []
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        async def look(step: str) -> None:
            await at_step(pilot, step)
            await pilot.pause()
            out = written(app)
            assert not set(out) & FORBIDDEN, (step, forbidden_in(out))
            seen.append("".join(screen_rows(app)))

        await look("welcome")
        await pilot.press("enter")
        await to_result(pilot, look)
        await pilot.press("ctrl+n")
        await look("save")
        await pilot.press("enter")
        await until(pilot, lambda: app.state.saved_path is not None, what="the report to be saved")
        await look("save")
    shown = "\n".join(seen)
    assert "]2;PWNED" in shown and PERSIAN in shown
