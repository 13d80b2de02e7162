"""The Textual wizard: session state, the order of the steps, and the probes behind them.

The App owns everything that changes: the answers, what the probes found so far, the saved
report. Steps post `StepScreen.Navigate`; probe threads post `ProbeFinished`; the handlers here
are the only code that mutates the session. `make_app` builds the App for the CLI, the tests
and the benchmarks alike, with the probes injected.

This is the only module under wizard/ that imports Textual (tests/test_core_has_no_textual.py).
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import os
import sys
import threading
import time
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Mapping

from textual.app import App
from textual.binding import Binding
from textual.message import Message

from wizard.answers import Answers
from wizard.i18n import language_from_env, t
from wizard.textout import ascii_terminal, clean_strings

import screens
from screens.facts import PROBES, Live, Probes, from_machine
from screens.step import STEPS, StepScreen, localized

CSS_FILE = Path(screens.__file__).resolve().parent / "wizard.tcss"


@dataclass(frozen=True)
class Session:
    """What the user has told the wizard; replaced, never mutated."""

    answers: Answers = field(default_factory=Answers)
    touched: frozenset[str] = frozenset()   # answers the user gave (detection fills the rest)
    budget_text: str = ""                   # the budget as typed, so Back shows it again
    currency_choice: str | None = None
    save_text: str = ""                     # the report path as edited


@dataclass(frozen=True)
class Outcome:
    machine: Any
    findings: tuple[Any, ...]
    recommendation: Any


class ContentChecked(Message):
    """The installation's content files were read: `fatal` when the wizard cannot go on."""

    def __init__(self, fatal: Exception | None, damaged: tuple[str, ...]) -> None:
        super().__init__()
        self.fatal = fatal
        self.damaged = damaged


# Steps that read the data files (currencies, goals, the catalog): they wait for the check.
_NEEDS_DATA = frozenset({"budget", "goal", "result", "save"})


class ProbeFinished(Message):
    """A probe thread has a result (`result`) or failed (`error`: why, in one line)."""

    def __init__(self, name: str, result: Any = None, error: str | None = None,
                 generation: int = 0) -> None:
        super().__init__()
        self.name = name
        self.result = result
        self.error = error
        self.generation = generation  # the torch probe restarts when the user picks a Python


class PythonRejected(Message):
    """The path the user typed is not a Python: keep the torch result there was, say why."""

    def __init__(self, generation: int, previous: Any, why: str) -> None:
        super().__init__()
        self.generation = generation
        self.previous = previous
        self.why = why


_ANSWER_FIELDS = {f.name for f in fields(Answers)}
_SESSION_FIELDS = {"budget_text", "currency_choice", "save_text"}


# step → "module:class"; each screen module is imported when its step is first shown, so
# the first screen does not pay for the result page's table or the report writer.
_SCREENS = {
    "welcome": "screens.welcome:WelcomeScreen",
    "need_gpu": "screens.need_gpu:NeedGpuScreen",
    "has_nvidia": "screens.nvidia:NvidiaScreen",
    "form_factor": "screens.form_factor:FormFactorScreen",
    "budget": "screens.budget:BudgetScreen",
    "goal": "screens.goal:GoalScreen",
    "result": "screens.result:ResultScreen",
    "save": "screens.save:SaveScreen",
}


def screen_class(step: str) -> type[StepScreen]:
    module_name, _, class_name = _SCREENS[step].partition(":")
    return getattr(importlib.import_module(module_name), class_name)


def install_chooser() -> Callable[[Any, str], Any]:
    """wizard.install's pick of a torch build for a machine, as the advice wants it.

    The command installs into the interpreter that was checked (`PYTHON -m pip` when it is not
    the activated environment's), like `gpu-wizard torch-command`.
    """
    def choose(machine: Any, lang: str) -> Any:
        from wizard.install import choose_for_machine

        try:
            return choose_for_machine(machine, lang)
        except ValueError:  # a machine the matrix cannot describe: advice without a command
            return None

    return choose


class WizardApp(App[int]):
    CSS_PATH = str(CSS_FILE)
    ENABLE_COMMAND_PALETTE = False
    # Shown per screen, translated; the App keeps ctrl+q working under dialogs too.
    BINDINGS = [Binding("ctrl+q", "quit", show=False)]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (20, "-tall")]
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (60, "-wide")]

    def __init__(
        self,
        lang: str,
        live: Live,
        probes: Probes | None = None,
        *,
        report_path: Path | None = None,
        redact: bool = True,
        now: Callable[[], dt.datetime] | None = None,
        cwd: Path | None = None,
        home: Path | None = None,
        torch_chooser: Callable[[Any, str], Any] | None = None,
        ascii_marks: bool = False,
        handle_signals: bool = False,
        replay: Any = None,
    ) -> None:
        super().__init__()
        self.lang = lang
        self.live = live
        self.probes = probes
        self.report_path = report_path
        self.redact = redact
        self.now = now or dt.datetime.now
        self.cwd = cwd
        self.home = home
        self.torch_chooser = torch_chooser or install_chooser()
        self.ascii_marks = ascii_marks
        self.handle_signals = handle_signals
        self.interrupted_by: int | None = None   # the signal that ended the wizard, if one did
        # A recorded machine (wizard.machine_file.Recording): every step says so, and a saved
        # report's answers start out as the student gave them.
        self.replay = replay
        self.session = replay_session(replay)
        self.step_index = 0
        self.saved_path: Path | None = None
        self._outcome: tuple[tuple, Outcome] | None = None
        self._live_version = 0   # bumped on every probe result; part of the outcome's cache key
        self._torch_generation = 0  # the newest torch probe; older ones' results are dropped
        self.install_record: dict[str, Any] | None = None   # "Install it for me": for the report
        self.install_interrupted: str | None = None          # the command, when quitting stopped it
        self._probes_started = False
        self._content_ready = threading.Event()
        self.content_fatal: Exception | None = None  # why this installation cannot run the wizard
        self.first_shown_at: float | None = None
        self._ctrl_c_at: float | None = None  # when Ctrl+C last showed how to quit
        self.title = t("guide.app_title", lang)

    # ------------------------------------------------------------------ knowledge ---

    @cached_property
    def knowledge(self) -> Any:
        from wizard.knowledge import load_knowledge

        return load_knowledge()

    def currencies(self) -> tuple[str, ...]:
        return tuple(self.knowledge.currency_codes)

    # ------------------------------------------------------------------ steps ---

    def make_step(self, index: int) -> StepScreen:
        cls = screen_class(STEPS[index])
        narrow = self.size.width < 60
        return localized(cls, self.lang, self.ascii_marks, narrow)(self.lang)

    @property
    def step(self) -> str:
        return STEPS[self.step_index]

    def goto(self, index: int) -> None:
        index = max(0, min(len(STEPS) - 1, index))
        if STEPS[index] in _NEEDS_DATA and not self._content_ready.is_set():
            # Only a user faster than the check gets here (it takes ~0.1 s): wait for it.
            self._content_ready.wait(10)
        if self.content_fatal:
            self.exit(return_code=2)
            return
        self.step_index = index
        self.switch_screen(self.make_step(index))

    def apply(self, changes: Mapping[str, Any], confirmed: tuple[str, ...] = ()) -> None:
        """Fold a step's answers into the session (the only place it changes)."""
        answer_changes = {k: v for k, v in changes.items() if k in _ANSWER_FIELDS}
        session_changes = {k: v for k, v in changes.items() if k in _SESSION_FIELDS}
        self.session = replace(
            self.session,
            answers=replace(self.session.answers, **answer_changes),
            touched=self.session.touched | frozenset(confirmed),
            **session_changes,
        )

    def on_step_screen_navigate(self, message: StepScreen.Navigate) -> None:
        self.apply(message.changes, message.confirmed)
        self.goto(self.step_index + message.direction)

    def switch_language(self, keep: Mapping[str, Any]) -> None:
        self.apply(keep)
        self.lang = "zh" if self.lang == "en" else "en"
        self.title = t("guide.app_title", self.lang)
        self.goto(self.step_index)

    # Ctrl+C twice within this many seconds quits, as in other terminal programs.
    CTRL_C_AGAIN_S = 2.0

    def action_help_quit(self) -> None:
        """Ctrl+C (with no text selected: then it copies): the first press says how to quit
        and whether the report is saved; a second one within CTRL_C_AGAIN_S quits."""
        from screens.widgets import shown_text
        from screens.window import toast_text

        now = time.monotonic()
        if self._ctrl_c_at is not None and now - self._ctrl_c_at <= self.CTRL_C_AGAIN_S:
            self.exit()
            return
        self._ctrl_c_at = now
        if self.saved_path is not None:
            hint = t("ui.quit_hint_saved", self.lang, path=shown_text(str(self.saved_path)))
        else:
            hint = t("ui.quit_hint", self.lang)
        self.notify(toast_text(hint, self.size.width), markup=False)

    def on_resize(self, event: Any) -> None:
        from screens.window import fit_window

        fit_window(self, event.size)

    def _screen_changed(self, screen: Any) -> None:
        # A screen shown while the window is too small is covered too (once it is mounted).
        from screens.window import fit_window, too_small

        if too_small(self.size):
            self.call_after_refresh(fit_window, self)

    # ------------------------------------------------------------------ probes ---

    def on_mount(self) -> None:
        # Steps replace each other with switch_screen, which needs a pushed screen below it:
        # the App's default screen stays underneath, empty.
        self.screen_change_signal.subscribe(self, self._screen_changed)
        self.push_screen(self.make_step(self.step_index))
        if self.handle_signals:
            self._handle_signals()
        for problem in getattr(self.replay, "answers_problems", ()):
            self.notify(t("ui.replay.answers_ignored", self.lang, problem=problem),
                        severity="warning", timeout=10, markup=False)  # the file's own words

    def _handle_signals(self) -> None:
        """`kill`, Ctrl+C from outside and a dropped SSH session close the wizard the way
        Ctrl+Q does (terminal restored, nothing half-saved). Textual leaves SIGTERM and SIGHUP
        to Python, which would die with the terminal still in raw mode on the alternate screen.
        On the event loop a signal waits for the handler that is running: a save finishes."""
        import asyncio

        from wizard.signals import HANDLED

        loop = asyncio.get_running_loop()
        for signum in HANDLED:
            try:
                loop.add_signal_handler(signum, self._signalled, signum)
            except (NotImplementedError, RuntimeError, ValueError):  # Windows; not main thread
                pass

    def _signalled(self, signum: int) -> None:
        self.interrupted_by = signum
        self.exit(return_code=128 + signum)

    def screen_shown(self) -> None:
        """A step has been painted. The first time, start the probes: started earlier, their
        child processes would compete with the first screen for the CPU (they take seconds
        anyway; this costs them a few milliseconds)."""
        if not self._probes_started:
            self._probes_started = True
            self.first_shown_at = time.time()   # for benchmarks/tui_bench.py
            self.call_later(self.start_probes)
            threading.Thread(target=self._check_content, daemon=True, name="content-check").start()

    def _check_content(self) -> None:
        """Read every data and strings file now, not when a step first needs one: a damaged
        installation then ends with a sentence naming the file, not a crash at step 4."""
        fatal = None
        try:
            from wizard.content import ContentError, check_installation
            from wizard.torch_matrix import load_matrix

            damaged = tuple(str(problem) for problem in check_installation())
            try:
                self.knowledge
                load_matrix()
            except ContentError as exc:
                fatal = exc
        except Exception as exc:  # the check itself must not take the wizard down
            from wizard.content import ContentError

            fatal, damaged = ContentError("content/", f"{type(exc).__name__}: {exc}"), ()
        self._content_ready.set()
        try:
            self.post_message(ContentChecked(fatal, damaged))
        except RuntimeError:  # the App has closed meanwhile
            pass

    def on_content_checked(self, message: ContentChecked) -> None:
        if message.fatal:
            self.content_fatal = message.fatal
            self.exit(return_code=2)
        elif message.damaged:
            self.notify(clean_strings("\n".join(message.damaged)), title=t("ui.damaged_title", self.lang),
                        severity="warning", timeout=15, markup=False)

    def start_probes(self) -> None:
        if self.probes is None:
            return
        for name in PROBES:
            if getattr(self.probes, name) is None:
                self.live = replace(self.live, skipped=self.live.skipped | {name})
        # Daemon threads rather than thread workers: Textual joins its worker threads on
        # exit, so quitting while torch loads would hang for up to the probe's timeout.
        threading.Thread(target=self._launch_probes, daemon=True, name="probe-launcher").start()

    def _launch_probes(self) -> None:
        # The probe modules (psutil, the torch probe, …) load here, after the first screen
        # and in one thread: imported before it they cost start-up ~30 ms, and imported by
        # four probe threads at once they compete with the event loop four times over.
        try:
            from wizard.probe import gather, system, torch  # noqa: F401
        except Exception:  # each probe reports its own failure below
            pass
        for name in PROBES:
            probe = getattr(self.probes, name)
            if probe is not None:
                threading.Thread(target=self._run_probe, args=(name, probe), daemon=True,
                                 name=f"probe-{name}").start()

    def _run_probe(self, name: str, probe: Callable[[], Any], generation: int = 0) -> None:
        try:
            message = ProbeFinished(name, result=probe(), generation=generation)
        except Exception as exc:  # a probe bug shows as "unknown — why", never a traceback
            message = ProbeFinished(name, error=f"{type(exc).__name__}: {exc}"[:300], generation=generation)
        self._post(message)

    def _post(self, message: Message) -> None:
        try:
            self.post_message(message)
        except RuntimeError:  # the App has closed meanwhile
            pass

    def on_probe_finished(self, message: ProbeFinished) -> None:
        if message.name == "torch" and message.generation != self._torch_generation:
            return  # a probe of a Python the user has since replaced
        # What a probe read came from outside (a tool, a driver, the user's torch): shown
        # literally, never as escape sequences.
        if message.error is not None:
            self.live = self.live.with_failure(message.name, clean_strings(message.error))
        else:
            self.live = self.live.with_result(message.name, clean_strings(message.result))
        self._live_changed()

    def _live_changed(self) -> None:
        self._live_version += 1
        for screen in self.screen_stack:
            if isinstance(screen, StepScreen):
                screen.live_changed()

    @property
    def can_pick_python(self) -> bool:
        """Live probing with a torch probe that can be pointed at another interpreter."""
        return self.replay is None and self.probes is not None and self.probes.torch_for is not None

    def pick_python(self, path: str) -> None:
        """Check the PyTorch of `path` instead (the welcome step's "Change"); answers stay."""
        if not self.can_pick_python:
            return
        previous = self.live.torch
        self._torch_generation += 1
        failed = {k: v for k, v in self.live.failed.items() if k != "torch"}
        self.live = replace(self.live, torch=None, failed=failed)
        self._live_changed()
        threading.Thread(target=self._probe_picked, args=(path, self._torch_generation, previous),
                         daemon=True, name="probe-torch-picked").start()

    def install_plan(self) -> Any:
        """The plan for "Install it for me", or None (a replay, checks still running, nothing fits)."""
        outcome = self.outcome()
        if not self.can_pick_python or outcome is None or not outcome.recommendation.torch_command:
            return None
        from wizard.torch_installer import PlanError, find_uv, plan_for_machine

        try:
            return plan_for_machine(outcome.machine, self.lang, uv=find_uv())
        except PlanError:
            return None

    def installed(self, result: dict[str, Any] | None) -> None:
        """The install dialog closed: record it, and show the advice for the new PyTorch."""
        if not result:
            return
        self.install_record = result["record"]
        if result.get("torch") is not None:
            self._torch_generation += 1
            _, bench, note = self.live.torch or (None, None, None)
            from wizard.probe.model import ProbeNote

            self.live = self.live.with_result("torch", (result["torch"], bench, note or ProbeNote("torch", "ok")))
            self._live_changed()
        self.goto(self.step_index)  # the recommendation again, for the machine as it is now

    def _probe_picked(self, path: str, generation: int, previous: Any) -> None:
        from wizard.probe.discover import PythonArgError, check_python_arg

        try:
            python = check_python_arg(path)
        except PythonArgError as exc:
            why = t(f"ui.python.rejected-{exc.key}", self.lang, path=path, detail=exc.detail or "")
            self._post(PythonRejected(generation, previous, why))
            return
        self._run_probe("torch", lambda: self.probes.torch_for(python), generation)  # type: ignore[union-attr]

    def on_python_rejected(self, message: PythonRejected) -> None:
        if message.generation != self._torch_generation:
            return
        self.live = replace(self.live, torch=message.previous)
        self._live_changed()
        self.notify(clean_strings(message.why), severity="error", timeout=10, markup=False)

    # ------------------------------------------------------------------ advice ---

    def outcome(self) -> Outcome | None:
        """Machine, findings and recommendation for the current answers; None while probing."""
        machine = self.live.machine(self.lang)
        if machine is None:
            return None
        key = (self.session.answers, self.lang, self._live_version)
        if self._outcome is not None and self._outcome[0] == key:
            return self._outcome[1]
        from wizard.advise import advise
        from wizard.diagnose import diagnose

        findings = tuple(diagnose(machine, self.lang))
        choice = self.torch_chooser(machine, self.lang)
        rec = advise(self.session.answers, machine, self.knowledge, self.lang, findings, choice)
        outcome = Outcome(machine, findings, rec)
        self._outcome = (key, outcome)
        return outcome

    # ------------------------------------------------------------------ saving ---

    def default_report_path(self) -> Path:
        if self.report_path is not None:
            return self.report_path
        from wizard.report import default_report_path

        return default_report_path(self.now(), self.cwd, self.home)

    def resolve_path(self, text: str) -> Path:
        from wizard.report import ReportSaveError, current_folder, next_free_path

        path = Path(os.path.expanduser(text.strip()))
        if not path.is_absolute():
            here = self.cwd or current_folder()
            if here is None:  # deleted under us: a relative name has nowhere to go
                raise ReportSaveError(path, "report.error.cwd-gone")
            path = here / path
        try:
            if path.is_dir():
                # A folder: save the default name inside it.
                path = next_free_path(path / self.default_report_path().name)
        except OSError:  # a name the OS refuses: saving says why
            pass
        return path

    def home_fallback(self, failed: Path) -> Path | None:
        """Where to offer saving instead when `failed`'s folder cannot be written."""
        from wizard.report import next_free_path

        home = self.home or Path.home()
        if failed.parent == home or not os.access(home, os.W_OK):
            return None
        return next_free_path(home / failed.name)

    def build_report(self) -> dict[str, Any]:
        from wizard.report import build_report

        outcome = self.outcome()
        if outcome is None:
            raise RuntimeError("the report needs every check to have finished")
        report = build_report(self.session.answers, outcome.machine, outcome.findings,
                              outcome.recommendation, self.lang, redact=self.redact)
        if self.replay is not None:
            # Whoever reads it later must not take it for a fresh check of some computer.
            report["replay"] = {"of_report": self.replay.is_report,
                                "recorded": self.replay.created or "unknown"}
        if self.install_record is not None:
            install = dict(self.install_record)
            if self.redact:
                from wizard.report import redact_report

                install = redact_report({"install": install})["install"]
            report["install"] = install
        return report

    def save_report(self, text: str) -> Path:
        """Save to `text` (a path as typed); ReportError when that is not possible."""
        from wizard.report import save_report

        path = self.resolve_path(text)
        saved = save_report(self.build_report(), path)
        self.saved_path = saved
        self.session = replace(self.session, save_text=str(saved))
        return saved


# ---------------------------------------------------------------------- construction ---

# The answers each step sets, as Session.touched names them.
_QUESTION_ANSWERS = frozenset({"need_gpu", "has_nvidia", "form_factor", "budget", "goal"})


def replay_session(replay: Any) -> Session:
    """The session a replay starts with: the report's answers, given (not detected)."""
    answers = getattr(replay, "answers", None)
    if answers is None:
        return Session()
    amount = answers.budget_amount
    budget_text = "" if amount is None else f"{amount:g}" if isinstance(amount, float) else str(amount)
    left_out = {"budget" if key.startswith("budget_") else key
                for key in getattr(replay, "answers_left_out", ())}
    return Session(answers=answers, touched=_QUESTION_ANSWERS - left_out, budget_text=budget_text,
                   currency_choice=answers.budget_currency)


def live_probes(lang: str, python: str | None = None, report_path: Path | None = None,
                benchmark: bool = True, gpu_test: bool = True) -> Probes:
    """The real probes of this machine, each bounded in time by the probe itself."""
    def system_probe():
        from wizard.probe.gather import report_dir
        from wizard.probe.system import probe_system

        return probe_system(report_dir(report_path))

    def nvidia_probe():
        from wizard.probe.gather import probe_nvidia

        return probe_nvidia()

    def hardware_probe():
        from wizard.identify import name_hardware
        from wizard.probe.gather import probe_hardware

        return name_hardware(probe_hardware())

    def torch_probe():
        from wizard.probe.torch import probe_torch

        return probe_torch(python, benchmark=benchmark, discover=True, gpu_test=gpu_test)

    def torch_for(picked: str):
        from wizard.probe.torch import probe_torch

        return probe_torch(picked, benchmark=benchmark, discover=True, gpu_test=gpu_test,
                           source="picked")

    return Probes(system=system_probe, nvidia=nvidia_probe, hardware=hardware_probe,
                  torch=torch_probe, torch_for=torch_for)


def make_app(
    lang: str = "en",
    machine: Any = None,
    probes: Probes | None = None,
    report_path: Path | str | None = None,
    *,
    python: str | None = None,
    redact: bool = True,
    benchmark: bool = True,
    gpu_test: bool = True,
    now: Callable[[], dt.datetime] | None = None,
    cwd: Path | None = None,
    home: Path | None = None,
    torch_chooser: Callable[[Any, str], Any] | None = None,
    ascii_marks: bool | None = None,
    handle_signals: bool = False,
    replay: Any = None,
) -> WizardApp:
    """The wizard for a recorded `machine`, injected `probes`, or (neither) this machine.

    `replay` (a wizard.machine_file.Recording) replays a saved report: its machine, answers
    pre-filled, and a banner on every step.
    """
    report = Path(report_path) if report_path is not None else None
    if replay is not None:
        machine = replay.machine
    if machine is not None:
        live, probes = from_machine(machine), None
    else:
        live = Live()
        probes = probes or live_probes(lang, python, report, benchmark, gpu_test)
    return WizardApp(lang, live, probes, report_path=report, redact=redact, now=now, cwd=cwd,
                     home=home, torch_chooser=torch_chooser or install_chooser(),
                     ascii_marks=ascii_terminal() if ascii_marks is None else ascii_marks,
                     handle_signals=handle_signals, replay=replay)


def run_app(args: argparse.Namespace) -> int:
    """`gpu-wizard` with no subcommand: run the wizard; print where the report went."""
    lang = getattr(args, "lang", None)
    replay = None
    if getattr(args, "machine", None):
        from wizard.knowledge import load_knowledge
        from wizard.machine_file import MachineFileError, load_recording

        try:
            # Damaged data files (KnowledgeError) are wizard.cli's to report.
            replay = load_recording(args.machine, load_knowledge(), lang or language_from_env())
        except MachineFileError as exc:
            print(f"gpu-wizard: {exc}", file=sys.stderr)
            return 2
        # A TA replaying a report sees it in the language the student saw (F2 switches).
        lang = lang or replay.language
        for problem in replay.answers_problems:
            print(t("ui.replay.answers_ignored", lang or language_from_env(), problem=problem),
                  file=sys.stderr)
    lang = lang or language_from_env()
    from wizard.commands.wizard_main import refuse_without_terminal

    if refuse_without_terminal(lang):  # after the replay file: a broken one is named first
        return 2
    app = make_app(lang, replay=replay, report_path=getattr(args, "report", None),
                   python=getattr(args, "python", None),
                   gpu_test=not getattr(args, "no_gpu_test", False),
                   redact=not getattr(args, "no_redact", False), handle_signals=True)
    app.run()
    from wizard.textout import safe

    if app.content_fatal is not None:
        raise app.content_fatal  # main() says it in one line, the way every command does

    try:
        sys.stdout.write(safe(exit_summary(app)))
        sys.stdout.flush()
    except OSError:  # the terminal is gone (SIGHUP from a dropped SSH session)
        pass
    return app.return_code or 0


def exit_summary(app: WizardApp) -> str:
    """What stays in the terminal after the wizard closes: the file, and the torch command."""
    lang = app.lang
    if app.interrupted_by is not None:
        lines = [t("ui.exit.interrupted_saved", lang, path=app.saved_path) if app.saved_path
                 else t("ui.exit.interrupted", lang)]
    else:
        lines = [t("ui.exit.saved", lang, path=app.saved_path) if app.saved_path is not None
                 else t("ui.exit.not_saved", lang)]
    if app.install_interrupted:
        lines.append(t("torch.install.interrupted", lang, command=app.install_interrupted))
    # The command is worth keeping in the scrollback once the user has seen it.
    if app.step_index >= STEPS.index("result"):
        outcome = app.outcome()
        if outcome is not None and outcome.recommendation.torch_command:
            lines.append(t("ui.exit.torch", lang, command=outcome.recommendation.torch_command))
    return "\n".join(lines) + "\n"
