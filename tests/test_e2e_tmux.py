"""The installed `gpu-wizard` in a real terminal (tmux, 80×24), driven with keys to a saved report.

Once with LANG=C (ASCII marks, no crash on a non-UTF-8 locale) and once with NO_COLOR=1.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tomllib
from pathlib import Path

import pytest

from tests.recorded import machine_path
from tests.terminal import TMUX, Terminal, installed_command
from wizard.text.i18n import t

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parent.parent
MACHINE = machine_path("laptop-4060")


@pytest.fixture
def terminal():
    opened: list[Terminal] = []

    def open_terminal(name: str, command: str) -> Terminal:
        term = Terminal(name, command)
        opened.append(term)
        return term

    yield open_terminal
    for term in opened:
        term.close()


@pytest.mark.skipif(TMUX is None, reason="tmux is not installed (.ci/run installs it)")
@pytest.mark.parametrize("case, env", [
    ("lang-c", {"LANG": "C"}),
    ("no-color", {"LANG": "en_US.UTF-8", "NO_COLOR": "1"}),
])
def test_installed_wizard_walks_to_a_valid_saved_report(terminal, tmp_path, case, env):
    command = installed_command()
    assert command, "gpu-wizard is not installed in this environment"
    report = tmp_path / "report.toml"
    clean_env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path),
                 "TERM": "xterm-256color", **env}
    argv = [command, "--machine", str(MACHINE), "--report", str(report)]
    shell = (f"cd {shlex.quote(str(tmp_path))} && env -i "
             + " ".join(f"{k}={shlex.quote(v)}" for k, v in clean_env.items())
             + " " + " ".join(shlex.quote(a) for a in argv)
             + "; echo WIZARD-EXIT-$?; sleep 120")
    term = terminal(case, shell)
    en = lambda key, **kw: t(key, "en", **kw)  # noqa: E731 - LANG=C and en_US both mean English

    term.wait_for(en("ui.welcome.start_hint"), timeout=60)
    if case == "lang-c":
        shown = term.wait_for("[ok]")                 # marks a C-locale terminal can show
        assert "✓" not in shown
    term.keys("Enter")
    term.wait_for(en("guide.questions.need_gpu"))
    term.keys("Up", "Up", "Enter")                     # "I'm not sure" → "Yes"
    term.wait_for(en("guide.questions.has_nvidia"))
    term.wait_for("RTX 4060")                           # detected and pre-selected
    term.keys("C-n")
    term.wait_for(en("guide.questions.form_factor"))
    term.keys("Enter")                                  # accept the detected "Laptop"
    term.wait_for(en("guide.questions.budget_amount"))
    term.type("5000")
    term.wait_for(en("ui.budget.ok", money="$5,000"))
    term.keys("Enter")
    term.wait_for(en("guide.questions.goal"))
    term.keys("Enter")
    term.wait_for(en("guide.steps.result"))
    term.wait_for(en("advice.verdict.fix-setup"))       # CPU-only torch beside an RTX 4060
    term.keys("C-n")
    term.wait_for(en("ui.save.label"))
    term.keys("Enter")
    term.wait_for(en("guide.buttons.finish"))         # saved: the button now finishes
    term.keys("Enter")
    after = term.wait_for("WIZARD-EXIT-0")
    assert en("ui.exit.saved", path=report) in after

    check = subprocess.run([command, "report", "validate", str(report)], capture_output=True,
                           text=True, timeout=60)
    assert check.returncode == 0, check.stdout + check.stderr
    with report.open("rb") as fh:
        saved = tomllib.load(fh)
    assert saved["answers"]["need_gpu"] == "yes"
    assert saved["answers"]["has_nvidia"] == "yes"
    assert saved["answers"]["form_factor"] == "laptop"
    assert (saved["answers"]["budget_amount"], saved["answers"]["budget_currency"]) == (5000, "USD")
    assert saved["recommendation"]["verdict"] == "fix-setup"


@pytest.mark.skipif(TMUX is None, reason="tmux is not installed (.ci/run installs it)")
def test_quitting_in_the_middle_leaves_no_file(terminal, tmp_path):
    command = installed_command()
    assert command, "gpu-wizard is not installed in this environment"
    shell = (f"cd {shlex.quote(str(tmp_path))} && env -i PATH={shlex.quote(os.environ['PATH'])} "
             f"HOME={shlex.quote(str(tmp_path))} TERM=xterm-256color LANG=en_US.UTF-8 "
             f"{shlex.quote(command)} --machine {shlex.quote(str(MACHINE))}; "
             "echo WIZARD-EXIT-$?; sleep 120")
    term = terminal("quit", shell)
    term.wait_for(t("ui.welcome.start_hint", "en"), timeout=60)
    term.keys("Enter")
    term.wait_for(t("guide.questions.need_gpu", "en"))
    term.keys("C-q")
    after = term.wait_for("WIZARD-EXIT-0")
    assert t("ui.exit.not_saved", "en") in after
    assert list(tmp_path.iterdir()) == []


# --- no terminal: say so and stop, never hang or draw into a file ---------------------------

NO_TERMINAL = t("ui.exit.no_terminal", "en", why="").split("(")[0]   # "gpu-wizard: the wizard needs a terminal "


@pytest.mark.parametrize("stdin", ["devnull", "closed"])
def test_without_a_keyboard_the_wizard_says_what_to_use_instead(stdin, tmp_path):
    import sys

    redirect = "</dev/null" if stdin == "devnull" else "<&-"
    done = subprocess.run(["sh", "-c", f'exec "$0" -m wizard --lang en {redirect}', sys.executable],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env=dict(os.environ, TERM="xterm-256color"))
    assert done.returncode == 2
    assert NO_TERMINAL in done.stderr and "gpu-wizard check" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert list(tmp_path.iterdir()) == []


def test_check_and_a_headless_run_work_with_stdin_closed(tmp_path):
    import sys

    report = tmp_path / "r.toml"
    done = subprocess.run(["sh", "-c", 'exec "$0" -m wizard --lang en --machine "$1" --answers "$1" '
                           '--report "$2" <&-', sys.executable, str(ROOT / "tests" / "faults" / "student-zh.toml"),
                           str(report)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert report.exists()
    done = subprocess.run(["sh", "-c", 'exec "$0" -m wizard check --machine "$1" <&-', sys.executable,
                           str(MACHINE)], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr


@pytest.mark.skipif(TMUX is None, reason="tmux is not installed (.ci/run installs it)")
@pytest.mark.parametrize("how", ["TERM=dumb", "piped"])
def test_in_a_terminal_that_cannot_draw_it_the_wizard_stops_with_a_sentence(terminal, tmp_path, how):
    command = installed_command()
    assert command, "gpu-wizard is not installed in this environment"
    term_value = "dumb" if how == "TERM=dumb" else "xterm-256color"
    pipe = " | cat" if how == "piped" else ""
    shell = (f"cd {shlex.quote(str(tmp_path))} && env -i PATH={shlex.quote(os.environ['PATH'])} "
             f"HOME={shlex.quote(str(tmp_path))} TERM={term_value} LANG=en_US.UTF-8 "
             f"{shlex.quote(command)}{pipe}; echo WIZARD-EXIT-${{PIPESTATUS:-$?}}; sleep 120")
    term = terminal(f"noterm-{how[:5]}", "bash -c " + shlex.quote(shell))
    after = term.wait_for("WIZARD-EXIT-", timeout=60)
    assert NO_TERMINAL.strip() in " ".join(after.split())
    assert "WIZARD-EXIT-2" in after
    assert term.modes().get("alternate_on") == "0"
