"""Paths survive, and no path drives the terminal (issue 23: items 3 and 6).

An interpreter's path is used (run, handed to pip) and shown. The use gets it exactly as the
probe found it, a zero-width joiner or a byte that is not UTF-8 included; the screen gets a copy
with every escape made visible; and a command quotes it so that the shell reads back exactly that
path while the terminal shows all of it. Proved with bash itself, and by walking every screen of
the wizard with a machine whose paths carry escape sequences.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import replace

import pytest

from tests.faults.hostile import BIDI, CLEAR, FORBIDDEN, TITLE
from tests.pilot import at_step, screen_rows, type_budget, until
from tests.recorded import machine
from wizard.install import pip_for, shell_quote
from wizard.live import Probes, from_machine, settle
from wizard.probe.model import NotRunPython, OtherPython
from wizard.textout import has_hidden

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
    assert re.fullmatch(r"[A-Za-z0-9_:\\/.=+-]*", word), f"a bare word with specials: {word!r}"
    return word, text[len(word):]


WINDOWS_PATHS = [
    r"C:\Python312\python.exe",
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
        assert re.fullmatch(r"[A-Za-z0-9_:\\/.=+-]+ -m pip", command)   # no quoting needed: cmd reads it too
    value, rest = powershell_value(quoted)
    assert value == path and rest == " -m pip"
    assert not has_hidden(command)


def test_a_quoted_program_gets_the_call_operator_and_an_argument_does_not():
    assert shell_quote(r"C:\My env\python.exe", "Windows", program=True).startswith("& '")
    assert shell_quote("numpy<2", "Windows") == "'numpy<2'"
    assert shell_quote("--index-url", "Windows") == "--index-url"


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
    from wizard.torch_installer import make_plan

    found = settle(hostile_probes(path), "en")
    torch = found.torch
    assert torch.interpreter == path and torch.asked == (path,)
    assert torch.other_pythons[0].interpreter == path + "2" and torch.not_run[0].interpreter == path + "3"
    # What is only shown is still cleaned where it arrives.
    assert not any(set(g.name) & FORBIDDEN for g in found.gpus)
    pip = pip_for(found)
    assert bash_reads(pip.rsplit(" -m pip", 1)[0]) == raw(path)
    from wizard.install import choose_for_machine

    plan = make_plan(torch.interpreter, torch.interpreter_source, choose_for_machine(found, "en"))
    assert plan.argv[0] == path
    assert bash_reads(plan.shown.split(" ", 1)[0]) == raw(path)
    assert not has_hidden(plan.shown)


# ----------------------------------------------------------------------------- screens ---

HOSTILE = f"/home/ana/proj{TITLE}{CLEAR}{BIDI}{ZWJ}/.venv/bin/python3"


def forbidden_on(app) -> set[str]:
    return set("".join(screen_rows(app))) & FORBIDDEN


async def test_every_screen_and_dialog_draws_hostile_paths_inert(tmp_path, monkeypatch):
    from screens.app import make_app
    from screens.dialogs import PythonDialog
    from screens.run_python import RunPythonDialog

    report = tmp_path / f"report{TITLE}.toml"
    app = make_app("en", probes=hostile_probes(HOSTILE), report_path=report)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_step(pilot, "welcome")
        await until(pilot, lambda: app.state.live.torch is not None, what="the torch result")
        await pilot.pause()
        assert app.state.live.torch_info().interpreter == HOSTILE      # kept for its use
        assert not forbidden_on(app)
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, PythonDialog) and app.screen.is_mounted, what="dialog")
        await pilot.pause()
        assert not forbidden_on(app)
        await pilot.press("escape")
        app.push_screen(RunPythonDialog("en", HOSTILE.rsplit("/bin/", 1)[0]))
        await until(pilot, lambda: isinstance(app.screen, RunPythonDialog) and app.screen.is_mounted,
                    what="the question")
        await pilot.pause()
        assert not forbidden_on(app)
        await pilot.press("escape")
        seen = []

        async def look(step: str) -> None:
            await at_step(pilot, step)
            await pilot.pause()
            seen.append(step)
            assert not forbidden_on(app), step

        await pilot.press("enter")
        for step in ("need_gpu", "has_nvidia", "form_factor"):
            await look(step)
            await pilot.press("ctrl+n")
        await look("budget")
        await type_budget(pilot, "5000")
        await pilot.press("enter")
        await look("goal")
        await pilot.press("ctrl+n")
        await look("result")
        command = app.state.outcome().recommendation.torch_command
        assert command and "$'" in command                 # quoted, hidden bytes as \xHH
        await pilot.press("i")
        await until(pilot, lambda: bool(app.screen.query("#install-command")), what="the install dialog")
        await pilot.pause()
        assert not forbidden_on(app)
        assert app.state.install_plan().argv[0] == HOSTILE
        await pilot.press("escape")
        await at_step(pilot, "result")
        await pilot.press("ctrl+n")
        await look("save")
        assert seen == ["need_gpu", "has_nvidia", "form_factor", "budget", "goal", "result", "save"]
