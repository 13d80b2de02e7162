"""The Textual wizard: the order of the steps, the probe threads, and the messages that change state.

The App owns one `wizard.state.WizardState` (the answers, what the probes found so far, the
saved report) and gives it to every step screen it builds. Steps post `StepScreen.Navigate`
and the other `StepScreen` messages; probe threads post `ProbeFinished`; the handlers here are
the only code that changes the state. `make_app` builds the App for the CLI, the tests and the
benchmarks alike, with the probes injected. Screens never import this module.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import gc
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from textual.app import App
from textual.binding import Binding
from textual.message import Message

import screens
from screens.form_factor import FormFactorScreen
from screens.goal import GoalScreen
from screens.need_gpu import NeedGpuScreen
from screens.nvidia import NvidiaScreen
from screens.run_python import RunAnswer, RunPythonDialog
from screens.save import SaveScreen
from screens.step import STEPS, StepScreen, localized
from screens.textual_workarounds import clear_render_cache
from screens.welcome import WelcomeScreen
from screens.widgets import shown_text
from screens.window import fit_window, toast_text, too_small
from wizard.evaluate import TorchChooser
from wizard.knowledge.content import ContentError, check_installation
from wizard.machine.live import PROBES, Live, Probes, failure, from_machine, this_machine_probes
from wizard.probe.facts import ProbeNote
from wizard.probe.trust import environment_of
from wizard.signals import HANDLED
from wizard.state import WizardState
from wizard.text.i18n import t
from wizard.text.output import ascii_terminal, clean_arrived, clean_strings, near_path, safe
from wizard.user_settings import remember_saying

if TYPE_CHECKING:
    from wizard.machine.recorded import Recording

CSS_FILE = Path(screens.__file__).resolve().parent / "wizard.tcss"


class ContentChecked(Message):
    """The installation's content files were read: `fatal` when the wizard cannot go on."""

    def __init__(self, fatal: Exception | None, damaged: tuple[str, ...]) -> None:
        super().__init__()
        self.fatal = fatal
        self.damaged = damaged


# Steps that read the data files (the catalog card need_gpu compares with, currencies, goals):
# they wait for the check.
_NEEDS_DATA = frozenset({"need_gpu", "budget", "goal", "result", "save"})


class ProbeFinished(Message):
    """A probe thread has a result (`result`) or failed (`error`: why, in one line)."""

    def __init__(self, name: str, result: Any = None, error: str | None = None,
                 generation: int = 0) -> None:
        super().__init__()
        self.name = name
        self.result = result
        self.error = error
        self.generation = generation  # the torch probe restarts when the user picks a Python


class AskToRun(Message):
    """The torch probe's thread asks whether a folder's own Python environment may run; the
    answer goes to `reply` (wizard.probe.discover.Gate)."""

    def __init__(self, env: str, reply: Callable[[bool], None]) -> None:
        super().__init__()
        self.env = env
        self.reply = reply


class PythonRejected(Message):
    """The path the user typed is not a Python: keep the torch result there was, say why."""

    def __init__(self, generation: int, previous: Any, why: str) -> None:
        super().__init__()
        self.generation = generation
        self.previous = previous
        self.why = why


_SCREENS: dict[str, type[StepScreen]] = {
    "welcome": WelcomeScreen,
    "need_gpu": NeedGpuScreen,
    "has_nvidia": NvidiaScreen,
    "form_factor": FormFactorScreen,
    "goal": GoalScreen,
    "save": SaveScreen,
}


def screen_class(step: str) -> type[StepScreen]:
    """The screen class of `step`.

    The budget and the result steps are imported when first shown: they load the advice (the
    budget its money format; the result page also its table, the mirrors and the PyTorch
    installer), which at the top of this module added ~75 ms of CPU to the first screen, whose
    target is 1.5× a minimal Textual app's time (CPU at the first paint, medians of 15 runs,
    2026-12-04).
    """
    if step == "budget":
        # Here, not at the top: see the docstring (the first screen's ~75 ms, with the result's).
        from screens.budget import BudgetScreen

        return BudgetScreen
    if step == "result":
        # Here, not at the top: see the docstring (the first screen's ~75 ms, with the budget's).
        from screens.result import ResultScreen

        return ResultScreen
    return _SCREENS[step]


def free_left_screens() -> None:
    """Free the screens left behind now, with every line they drew.

    A step's widgets point at each other, so only Python's cycle collector frees them, and
    left to itself it runs rarely: each step walked through kept its 1-2 MB until then. And
    Textual 8.2 memoizes a method of each widget's render cache with `lru_cache`, which keeps
    the last 1,024 of those caches alive after their widgets are gone (reported upstream as
    Textualize/textual#6665). Peak memory after every step shown once: 51.0 MB with both,
    52.6 MB without the cache cleared, 53.4 MB without either: 1.52×, 1.57× and 1.59× a minimal
    Textual app (target ≤ 1.5×; benchmarks tui, largest of 8 runs, 2026-12-04).
    """
    clear_render_cache()
    gc.collect()


class WizardApp(App[int]):
    CSS_PATH = str(CSS_FILE)
    ENABLE_COMMAND_PALETTE = False
    # Shown per screen, translated; the App keeps ctrl+q working under dialogs too.
    BINDINGS = [Binding("ctrl+q", "quit", show=False)]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (20, "-tall")]
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (60, "-wide")]

    def __init__(self, state: WizardState, *, handle_signals: bool = False) -> None:
        super().__init__()
        self.state = state
        self.handle_signals = handle_signals
        self.interrupted_by: int | None = None   # the signal that ended the wizard, if one did
        self.step_index = 0
        self._torch_generation = 0  # the newest torch probe; older ones' results are dropped
        self._probes_started = False
        self._content_ready = False
        self._content_check_started = False
        self._waiting_for_content: int | None = None  # a step asked for before the data was read
        self.content_fatal: Exception | None = None  # why this installation cannot run the wizard
        self.first_shown_at: float | None = None
        self._ctrl_c_at: float | None = None  # when Ctrl+C last showed how to quit
        self.title = t("guide.app_title", state.lang)

    # What the window code and dialogs read from the App (they know no WizardState).
    @property
    def lang(self) -> str:
        return self.state.lang

    @property
    def ascii_marks(self) -> bool:
        return self.state.ascii_marks

    # ------------------------------------------------------------------ steps ---

    def make_step(self, index: int) -> StepScreen:
        cls = screen_class(STEPS[index])
        return localized(cls, self.lang, self.ascii_marks)(self.lang, self.state)

    @property
    def step(self) -> str:
        return STEPS[self.step_index]

    def goto(self, index: int) -> None:
        index = max(0, min(len(STEPS) - 1, index))
        if STEPS[index] in _NEEDS_DATA and not self._content_ready:
            # Only a user faster than the probes gets here: the data check starts now if it
            # has not, and the step opens when it is done (on_content_checked, ~0.1 s later);
            # the event loop never waits.
            self._waiting_for_content = index
            self._start_content_check()
            return
        self.step_index = index
        self.switch_screen(self.make_step(index))

    def on_step_screen_navigate(self, message: StepScreen.Navigate) -> None:
        self.state.apply(message.changes, message.confirmed)
        self.goto(self.step_index + message.direction)

    def on_step_screen_switch_language(self, message: StepScreen.SwitchLanguage) -> None:
        self.state.apply(message.keep)
        self.state.lang = "zh" if self.lang == "en" else "en"
        self.title = t("guide.app_title", self.lang)
        self.goto(self.step_index)

    # Ctrl+C twice within this many seconds quits, as in other terminal programs.
    CTRL_C_AGAIN_S = 2.0

    def action_help_quit(self) -> None:
        """Ctrl+C (with no text selected: then it copies): the first press says how to quit
        and whether the report is saved; a second one within CTRL_C_AGAIN_S quits."""
        now = time.monotonic()
        if self._ctrl_c_at is not None and now - self._ctrl_c_at <= self.CTRL_C_AGAIN_S:
            self.exit()
            return
        self._ctrl_c_at = now
        if self.state.saved_path is not None:
            hint = t("ui.quit_hint_saved", self.lang, path=shown_text(str(self.state.saved_path)))
        else:
            hint = t("ui.quit_hint", self.lang)
        self.notify(toast_text(hint, self.size.width), markup=False)

    def on_resize(self, event: Any) -> None:
        fit_window(self, event.size)

    def _screen_changed(self, screen: Any) -> None:
        # A screen shown while the window is too small is covered too (once it is mounted).
        if too_small(self.size):
            self.call_after_refresh(fit_window, self)
        # Not at once: the screen left is removed after this, and its timers' tasks end on
        # later turns of the event loop; until then they keep it alive.
        self.set_timer(self.FREE_AFTER_S, free_left_screens)

    FREE_AFTER_S = 0.5

    # ------------------------------------------------------------------ probes ---

    def on_mount(self) -> None:
        # What exists now (the modules, the App) lives as long as the wizard: frozen, out of
        # the cycle collector's sight, a full collection (free_left_screens' first one runs
        # while the probes do) holds every thread for ~8 ms instead of ~50 ms, the target for
        # the longest event-loop stall (medians of 10 runs, benchmarks tui's heartbeat with
        # every collection timed; 2-core VM, 2026-12-04).
        gc.freeze()
        # Steps replace each other with switch_screen, which needs a pushed screen below it:
        # the App's default screen stays underneath, empty.
        self.screen_change_signal.subscribe(self, self._screen_changed)
        self.push_screen(self.make_step(self.step_index))
        if self.handle_signals:
            self._handle_signals()
        for problem in getattr(self.state.replay, "answers_problems", ()):
            self.notify(t("ui.replay.answers_ignored", self.lang, problem=problem),
                        severity="warning", timeout=10, markup=False)  # the file's own words

    def on_unmount(self) -> None:
        gc.unfreeze()

    def on_ready(self) -> None:
        """The first screen is painted: start the probes and the data check now. Started
        earlier, their child processes would compete with the first screen for the CPU (they
        take seconds anyway; this costs them a few milliseconds)."""
        if self._probes_started:
            return
        self._probes_started = True
        self.first_shown_at = time.time()   # for benchmarks/tui_bench.py
        self.start_probes()
        # The data check waits for every probe (or CONTENT_CHECK_AFTER_S at most, or a step
        # that needs the data): started with them, its parsing, the torch probe's reading and
        # the torch child took turns with the event loop, which then missed its frames for up
        # to 90 ms on a 2-core machine.
        if self.state.probes is None or self.state.live.all_settled:
            self._start_content_check()
        else:
            self.set_timer(self.CONTENT_CHECK_AFTER_S, self._start_content_check)

    CONTENT_CHECK_AFTER_S = 3.0

    def _start_content_check(self) -> None:
        if self._content_check_started:
            return
        self._content_check_started = True
        # A daemon thread, as the probes' (start_probes): quitting never waits for it.
        threading.Thread(target=self._check_content, daemon=True, name="content-check").start()

    def _handle_signals(self) -> None:
        """`kill`, Ctrl+C from outside and a dropped SSH session close the wizard the way
        Ctrl+Q does (terminal restored, nothing half-saved). Textual leaves SIGTERM and SIGHUP
        to Python, which would die with the terminal still in raw mode on the alternate screen.
        On the event loop a signal waits for the handler that is running: a save finishes."""
        loop = asyncio.get_running_loop()
        for signum in HANDLED:
            try:
                loop.add_signal_handler(signum, self._signalled, signum)
            except (NotImplementedError, RuntimeError, ValueError):  # Windows; not main thread
                pass

    def _signalled(self, signum: int) -> None:
        self.interrupted_by = signum
        self.exit(return_code=128 + signum)

    def _check_content(self) -> None:
        """Read every data and strings file now, not when a step first needs one: a damaged
        installation then ends with a sentence naming the file, not a crash at step 4."""
        fatal = None
        try:
            # Here, in the check's thread, not at the top: there the PyTorch matrix's modules
            # added 0.3 MB to the peak memory, 50.9 MB against 50.6 MB (target ≤ 1.5× a minimal
            # Textual app's 33.6 MB; benchmarks tui, medians of 4 runs, 2026-12-04).
            from wizard.pytorch.matrix import load_matrix

            damaged = tuple(str(problem) for problem in check_installation())
            try:
                _ = self.state.knowledge  # reading the property loads (and checks) the files
                load_matrix()
            except ContentError as exc:
                fatal = exc
        except Exception as exc:  # the check itself must not take the wizard down
            fatal, damaged = ContentError("content/", f"{type(exc).__name__}: {exc}"), ()
        self._post(ContentChecked(fatal, damaged))

    def on_content_checked(self, message: ContentChecked) -> None:
        self._content_ready = True
        if message.fatal:
            self.content_fatal = message.fatal
            self.exit(return_code=2)
            return
        if message.damaged:
            self.notify(clean_strings("\n".join(message.damaged)), title=t("ui.damaged_title", self.lang),
                        severity="warning", timeout=15, markup=False)
        if self._waiting_for_content is not None:
            index, self._waiting_for_content = self._waiting_for_content, None
            self.goto(index)

    def start_probes(self) -> None:
        probes = self.state.probes
        if probes is None:
            return
        for name in PROBES:
            if getattr(probes, name) is None:
                live = self.state.live
                self.state.live = replace(live, skipped=live.skipped | {name})
        # Daemon threads rather than thread workers: Textual joins its worker threads on
        # exit, so quitting while torch loads would hang for up to the probe's timeout.
        for name in PROBES:
            probe = getattr(probes, name)
            if probe is not None:
                threading.Thread(target=self._run_probe, args=(name, probe), daemon=True,
                                 name=f"probe-{name}").start()

    def _run_probe(self, name: str, probe: Callable[[], Any], generation: int = 0) -> None:
        try:
            message = ProbeFinished(name, result=probe(), generation=generation)
        except Exception as exc:  # a probe bug shows as "unknown — why", never a traceback
            message = ProbeFinished(name, error=failure(exc), generation=generation)
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
        live = self.state.live
        if message.error is not None:   # wizard.machine.live.failure has made it safe to show
            self._set_live(live.with_failure(message.name, message.error))
        else:
            self._set_live(live.with_result(message.name, clean_arrived(message.result)))
        if self.state.live.all_settled:   # once the last result is drawn
            self.call_after_refresh(self._start_content_check)

    def _set_live(self, live: Live) -> None:
        self.state.set_live(live)
        for screen in self.screen_stack:
            if isinstance(screen, StepScreen):
                screen.live_version = self.state.live_version

    def ask_to_run(self, candidate: Any) -> bool:
        """In the torch probe's thread: may this folder's own environment run? Shows the
        question over whatever step is open and waits for the answer (the probe's time bounds
        do not count this wait); False if the wizard closes first."""
        env = environment_of(candidate.path) or candidate.path
        answered = threading.Event()
        answers: list[bool] = []

        def reply(run: bool) -> None:
            answers.append(run)
            answered.set()

        try:
            self.post_message(AskToRun(env, reply))
        except RuntimeError:  # the App has closed meanwhile
            return False
        while not answered.wait(0.5):
            if not self.is_running:
                return False
        return answers[0]

    def on_ask_to_run(self, message: AskToRun) -> None:
        def answered(answer: RunAnswer | None) -> None:
            answer = answer or RunAnswer(False, False)
            if answer.remember:
                self._remember_run(message.env, answer.run)
            message.reply(answer.run)

        cwd = self.state.cwd
        self.push_screen(RunPythonDialog(self.lang, near_path(message.env, str(cwd) if cwd else None)), answered)

    def _remember_run(self, env: str, run: bool) -> None:
        remembered, said = remember_saying(env, run, self.lang)
        self.notify(shown_text(said), severity="information" if remembered else "warning",
                    timeout=5 if remembered else 10, markup=False)

    def on_step_screen_pick_python(self, message: StepScreen.PickPython) -> None:
        """Check the PyTorch of another interpreter (the welcome step's "Change"); answers stay."""
        if not self.state.can_pick_python:
            return
        previous = self.state.live.torch
        self._torch_generation += 1
        failed = {k: v for k, v in self.state.live.failed.items() if k != "torch"}
        self._set_live(replace(self.state.live, torch=None, failed=failed))
        threading.Thread(target=self._probe_picked, args=(message.path, self._torch_generation, previous),
                         daemon=True, name="probe-torch-picked").start()

    def on_step_screen_installed(self, message: StepScreen.Installed) -> None:
        """The install dialog closed: record it, and show the advice for the new PyTorch."""
        result = message.result
        if not result:
            return
        self.state.install_record = result["record"]
        if result.get("torch") is not None:
            self._torch_generation += 1
            _, bench, note = self.state.live.torch or (None, None, None)
            self._set_live(self.state.live.with_result(
                "torch", (result["torch"], bench, note or ProbeNote("torch", "ok"))))
        self.goto(self.step_index)  # the recommendation again, for the machine as it is now

    def _probe_picked(self, path: str, generation: int, previous: Any) -> None:
        # Here, in this thread, not at the top: there, +7 ms of CPU before the first screen
        # (medians of 15 runs, 2026-12-04; target: 1.5× a minimal Textual app's time).
        from wizard.probe.discover import PythonArgError, check_python_arg

        try:
            python = check_python_arg(path)
        except PythonArgError as exc:
            why = t(f"ui.python.rejected-{exc.key}", self.lang, path=path, detail=exc.detail or "")
            self._post(PythonRejected(generation, previous, why))
            return
        probes = self.state.probes
        torch_for = probes.torch_for if probes is not None else None
        assert torch_for is not None  # started only when state.can_pick_python
        self._run_probe("torch", lambda: torch_for(python), generation)

    def on_python_rejected(self, message: PythonRejected) -> None:
        if message.generation != self._torch_generation:
            return
        self._set_live(replace(self.state.live, torch=message.previous))
        # `why` names the path as typed, kept exact for the check: drawn through the one sanitizer.
        self.notify(shown_text(message.why), severity="error", timeout=10, markup=False)


def make_app(
    lang: str = "en",
    machine: Any = None,
    probes: Probes | None = None,
    report_path: Path | str | None = None,
    *,
    python: str | None = None,
    no_discover: bool = False,
    redact: bool = True,
    benchmark: bool = True,
    gpu_test: bool = True,
    now: Callable[[], dt.datetime] | None = None,
    cwd: Path | None = None,
    home: Path | None = None,
    torch_chooser: TorchChooser | None = None,
    ascii_marks: bool | None = None,
    handle_signals: bool = False,
    replay: Recording | None = None,
) -> WizardApp:
    """The wizard for a recorded `machine`, injected `probes`, or (neither) this machine.

    `replay` (a wizard.machine.recorded.Recording) replays a saved report: its machine, answers
    pre-filled, and a banner on every step.
    """
    report = Path(report_path) if report_path is not None else None
    # The probes are made before the App that answers their questions about running a folder's
    # own Python: the App is filled in below.
    app_box: list[WizardApp] = []
    if replay is not None:
        machine = replay.machine
    if machine is not None:
        live, probes = from_machine(machine), None
    else:
        live = Live()

        def consent(candidate: Any) -> bool:
            return app_box[0].ask_to_run(candidate) if app_box else False

        probes = probes or this_machine_probes(python, report, benchmark, gpu_test, lang=lang,
                                               consent=consent, no_discover=no_discover)
    state = WizardState(lang, live, probes, report_path=report, redact=redact, now=now, cwd=cwd,
                        home=home, torch_chooser=torch_chooser,
                        ascii_marks=ascii_terminal() if ascii_marks is None else ascii_marks,
                        replay=replay)
    app = WizardApp(state, handle_signals=handle_signals)
    app_box.append(app)
    return app


def run_app(args: argparse.Namespace, lang: str, replay: Recording | None = None) -> int:
    """Run the wizard in `lang` (on the `replay` when there is one), then print where the report
    went. wizard.commands.wizard_main has read the command line and the replay file, and made
    sure there is a terminal."""
    app = make_app(lang, replay=replay, report_path=getattr(args, "report", None),
                   python=getattr(args, "python", None),
                   no_discover=getattr(args, "no_discover", False),
                   gpu_test=not getattr(args, "no_gpu_test", False),
                   redact=not getattr(args, "no_redact", False), handle_signals=True)
    app.run()
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
    lang, state = app.lang, app.state
    if app.interrupted_by is not None:
        lines = [t("ui.exit.interrupted_saved", lang, path=state.saved_path) if state.saved_path
                 else t("ui.exit.interrupted", lang)]
    else:
        lines = [t("ui.exit.saved", lang, path=state.saved_path) if state.saved_path is not None
                 else t("ui.exit.not_saved", lang)]
    if state.install_interrupted:
        lines.append(t("torch.install.interrupted", lang, command=state.install_interrupted))
    # The command is worth keeping in the scrollback once the user has seen it.
    if app.step_index >= STEPS.index("result"):
        outcome = state.outcome()
        command = outcome.shown(lang).command if outcome is not None and outcome.recommendation else None
        if command:   # installing is the action (an optional upgrade is not worth the scrollback)
            lines.append(t("ui.exit.torch", lang, command=command))
    return "\n".join(lines) + "\n"
