"""'Install it for me' on the recommendation: the same plan and confirmation as
`gpu-wizard install-torch`, pip's output live in a log, then the check with the GPU test.

Dismissed with the outcome (a dict for the report, the new TorchInfo) when something ran, None
when the user cancelled before anything changed.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Optional

from rich.cells import cell_len, chop_cells
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Log, Static

from screens.dialogs import ascii_borders
from screens.strings import ui
from screens.widgets import shown_text
from wizard.probe.facts import TorchInfo
from wizard.pytorch import installer
from wizard.pytorch.wording import interpreter_line, torch_message
from wizard.text.i18n import t
from wizard.text.output import asciify, wrap


class InstallScreen(ModalScreen[Optional[dict]]):
    BINDINGS = [Binding("escape", "cancel", show=False)]
    AUTO_FOCUS = "#install-go"

    def __init__(self, lang: str, plan: Any, machine: Any, *, ascii_marks: bool = False,
                 stopped: Callable[[str], None] | None = None) -> None:
        super().__init__()
        self.lang = lang
        self.plan = plan
        self.machine = machine
        self.ascii_marks = ascii_marks
        self.stopped = stopped   # told the command when quitting the wizard stops it
        self.proc: Any = None
        self.running = False
        self.outcome: dict | None = None
        self.mirror: Any = None          # offered when pip could not reach the index
        self.output: list[str] = []      # pip's lines, to tell a network failure from others

    def text(self, text: str) -> Content:
        return Content(shown_text(asciify(text) if self.ascii_marks else text))

    def compose(self) -> ComposeResult:
        plan, lang = self.plan, self.lang
        into = TorchInfo(status="ok", interpreter=plan.python, interpreter_source=plan.source)
        lines = [interpreter_line(into, lang, key="torch.install.into"),
                 t("torch.install.now", lang, version=plan.torch_before) if plan.torch_before
                 else t("torch.install.now-none", lang)]
        if installer.interpreter_is_own(plan.python):   # as install-torch says it
            lines.append(ui("install.own_python", lang))
        lines.append(t("torch.install.choice", lang, reason=plan.choice.reason))
        if plan.companions:
            lines.append(t("torch.install.companions", lang, names=" ".join(plan.companions)))
        if plan.download_mb:
            lines.append(t("torch.install.download", lang, mb=f"{plan.download_mb:,.0f}"))
        with Vertical(id="dialog"):
            # What is to run scrolls; the outcome, the buttons and how to leave stay on screen
            # at 80×24 (and at 40×12).
            with VerticalScroll(id="install-body"):
                yield Static(self.text("\n".join(lines)), id="install-plan")
                yield Static(self.text(t("torch.install.command", lang)), classes="section")
                # The command names the user's folders: drawn with its escapes made visible (a folder
                # called "proj<ESC>]2;…" must not retitle the terminal); the plan runs it exact.
                yield Static(Content(shown_text(plan.shown)), id="install-command")
            yield Log(id="install-log", max_lines=2000, auto_scroll=True)
            yield Static("", id="install-status")
            with Horizontal(classes="dialog-buttons"):
                yield Button(self.text(ui("install.go", lang)), id="install-go", variant="primary", compact=True)
                yield Button(self.text(ui("install.mirror", lang, name="")), id="install-mirror", compact=True)
                yield Button(t("guide.buttons.cancel", lang), id="install-cancel", compact=True)
            yield Static(self.text(ui("install.keys", lang)), id="install-keys", classes="muted")

    def on_mount(self) -> None:
        self.query_one("#dialog").border_title = ui("install.title", self.lang)
        self.query_one("#install-log").display = False
        self.query_one("#install-mirror").display = False
        self.query_one("#install-status").display = False
        ascii_borders(self)

    # ------------------------------------------------------------------------- running ---

    @on(Button.Pressed, "#install-go")
    def _go_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if not self.running and self.outcome is None:
            self.start()

    @on(Button.Pressed, "#install-mirror")
    def _mirror_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if self.running or self.mirror is None:
            return
        self.plan = installer.with_mirror(self.plan, self.mirror)
        self.query_one("#install-command", Static).update(Content(shown_text(self.plan.shown)))
        self.query_one("#install-log", Log).clear()
        event.button.display = False
        self.outcome = None
        self.start()

    @on(Button.Pressed, "#install-cancel")
    def _cancel_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_cancel()

    def start(self) -> None:
        self.running = True
        self.query_one("#install-go", Button).display = False
        self.query_one("#install-cancel", Button).label = t("guide.buttons.close", self.lang)
        self.query_one("#install-cancel", Button).disabled = True
        self.add_class("-started")
        log = self.query_one("#install-log", Log)
        log.display = True
        log.focus()
        self.status(ui("install.running", self.lang, tool=self.plan.via))
        # A daemon thread, not a thread worker: Textual's worker threads are joined when the
        # process ends, so quitting during the check after the install would wait for it.
        threading.Thread(target=self._run, daemon=True, name="install-torch").start()

    def _run(self) -> None:
        self.output = []

        def line(text: str) -> None:
            # pip's output is outside text: shown literally, never as markup, never raw escapes.
            self.output.append(text)
            self._call(self._write, shown_text(text))

        try:
            status = installer.stream_install(self.plan, line, on_start=lambda proc: setattr(self, "proc", proc))
        except OSError as exc:
            status = None
            line(str(exc.strerror or exc))
        if status != 0:
            self._finish(installer.record(self.plan, status, None), None, self._failure(status), "error")
            return
        self._call(self.status, t("torch.install.verifying", self.lang))
        result, info, errors = installer.verify(self.plan, self.machine, self.lang)
        if result == "gpu-ok":
            devices = ", ".join(f"{x.device} ({x.name})" if x.name else x.device for x in info.gpu_tests)
            text, kind = t("torch.install.verified-gpu", self.lang, version=info.version, build=info.build,
                           devices=devices), "ok"
        elif result == "cpu-ok":
            text, kind = t("torch.install.verified-cpu", self.lang, version=info.version), "ok"
        else:
            reasons = "; ".join(f.title for f in errors) or torch_message(info, self.lang)
            text = t("torch.install.still-failing", self.lang,
                     version=info.version or t("torch.findings.version-unknown", self.lang),
                     build=info.build or "", wanted=self.plan.choice.variant) + " " + reasons
            kind = "error"
        self._finish(installer.record(self.plan, status, result, info), info, text, kind)

    def _failure(self, status: int | None) -> str:
        """One line for what went wrong; a network failure says so and offers a mirror."""
        if not installer.index_unreachable(self.output):
            return t("torch.install.pip-failed", self.lang, tool=self.plan.via,
                     code=status if status is not None else "-")
        mirrors = [] if "mirror" in self.plan.shown else installer.mirrors_for(self.plan)
        if not mirrors:
            return ui("install.unreachable", self.lang)
        self.mirror = mirrors[0]
        self._call(self._offer_mirror)
        return ui("install.unreachable_mirror", self.lang, name=self.mirror.name)

    def _offer_mirror(self) -> None:
        button = self.query_one("#install-mirror", Button)
        button.label = self.text(ui("install.mirror", self.lang, name=self.mirror.name))
        button.display = True

    def _write(self, text: str) -> None:
        # The log does not wrap: a long pip line would be cut at the dialog's edge.
        log = self.query_one("#install-log", Log)
        # Before the first layout the log has no width yet: the dialog's, less its border.
        width = log.scrollable_content_region.width or self.query_one("#dialog").content_region.width - 4
        width = max(20, width - 1)
        for part in wrap(text, width, 0, 2) or [""]:
            # A URL longer than the log is one word: cut it into pieces, none lost.
            for piece in chop_cells(part, width) if cell_len(part) > width else [part]:
                log.write_line(piece)

    def _finish(self, outcome: dict, info: Any, text: str, kind: str) -> None:
        def done() -> None:
            self.running = False
            self.outcome = {"record": outcome, "torch": info}
            self.status(text, kind)
            close = self.query_one("#install-cancel", Button)
            close.disabled = False
            mirror = self.query_one("#install-mirror", Button)
            (mirror if mirror.display else close).focus()

        self._call(done)

    def _call(self, callback: Any, *args: Any) -> None:
        try:
            self.app.call_from_thread(callback, *args)
        except RuntimeError:  # the App is gone (Ctrl+Q during the install)
            pass

    def status(self, text: str, kind: str = "info") -> None:
        widget = self.query_one("#install-status", Static)
        widget.display = bool(text)
        widget.update(self.text(text))
        widget.set_class(kind == "error", "-error")
        widget.set_class(kind == "ok", "-ok")

    def action_cancel(self) -> None:
        if self.running:
            self.notify(ui("install.wait", self.lang), severity="warning", markup=False)
            return
        self.dismiss(self.outcome)

    def on_unmount(self) -> None:
        # Quitting the wizard mid-install: stop pip rather than leave it running behind the shell.
        if self.running and self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            if self.stopped is not None:
                self.stopped(self.plan.shown)
