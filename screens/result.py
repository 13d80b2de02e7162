"""The recommendation: verdict and headline first, then picks, chart, clouds and the torch command."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import DataTable, Static

from screens import chart
from screens.install import InstallScreen
from screens.panels import Check, benchmark_checks, gb, torch_size_text
from screens.step import BASE_KEYS, StepScreen
from screens.strings import ui
from screens.widgets import Bullets, CheckPanel, Guide, shown_text
from wizard.advise import format_money
from wizard.pytorch.mirrors import china_lines_for_machine
from wizard.text.i18n import t
from wizard.text.output import asciify

if TYPE_CHECKING:
    from wizard.evaluate import Outcome
    from wizard.state import WizardState


def price_text(pick: Any, knowledge: Any, lang: str) -> str:
    """"about $1,200 (street price, 2026-01)": what kind of number it is, and its date."""
    if pick.price is None:
        return t("ui.result.no_price", lang)
    try:
        symbol = knowledge.currency(pick.currency).symbol
    except KeyError:
        symbol = f"{pick.currency} "
    low = getattr(pick, "price_low", None)   # a range shows both ends: "¥4,699–¥6,587"
    amount = f"{pick.price:,.0f}"
    if low is not None and low < pick.price:
        amount = f"{low:,.0f}–{symbol}{amount}"
    values = {"symbol": symbol, "amount": amount, "date": pick.price_date or ""}
    kind = pick.price_kind if pick.price_kind in ("street", "used") else ""
    if kind == "street" and pick.price_converted_market:
        try:
            values["market"] = knowledge.market.market(pick.price_converted_market).name(lang)
            kind = "street_converted"
        except KeyError:
            pass
    return t(f"guide.prices.{kind}", lang, **values) if kind else t("guide.prices.approximate", lang, **values)


class ResultScreen(StepScreen):
    STEP = "result"
    PAGES = ()
    NEXT_LABEL = "ui.result.to_save"
    KEYS = (BASE_KEYS[0], ("ctrl+n", "next", "keys.to_save", True),
            ("c", "copy_command", "keys.copy", True), ("i", "install_torch", "keys.install", True)) + BASE_KEYS[2:]
    # The page scrolls from the verdict down; focusing a button would scroll past it.
    AUTO_FOCUS = "#body"

    def __init__(self, lang: str, state: WizardState) -> None:
        super().__init__(lang, state)

    def compose_question(self) -> ComposeResult:
        yield Vertical(id="result")

    def checks(self) -> list[Check]:
        live = self.state.live
        if live.machine() is not None:
            return []
        names = ", ".join(ui(f"probe.{name}", self.lang) for name in live.pending)
        return [Check("pending", ui("result.waiting", self.lang, names=names))]

    # The advice, once every probe has settled; the page is filled when it first arrives.
    outcome: reactive[Outcome | None] = reactive(None, init=False)

    def on_mount(self) -> None:
        super().on_mount()
        self.outcome = self.state.outcome()

    def live_changed(self) -> None:
        super().live_changed()
        self.outcome = self.state.outcome()

    def watch_outcome(self, old: Outcome | None, new: Outcome | None) -> None:
        if old is None and new is not None:
            self.fill(new)

    def fill_done(self) -> None:
        # Once the recommendation is shown, the "waiting for checks" box has nothing to say.
        self.query_one("#checks").display = False

    # ------------------------------------------------------------------ content ---

    def fill(self, outcome: Outcome) -> None:
        rec, machine = outcome.recommendation, outcome.machine
        assert rec is not None  # the wizard's outcome comes with its answers, so with advice
        lang, knowledge = self.lang, self.state.knowledge
        box = self.query_one("#result", Vertical)
        # The first screen at 80×24: the verdict, its one-sentence reason and the install
        # command; everything that explains them follows below.
        widgets: list[Any] = [
            Static(self.text(t(f"advice.verdict.{rec.verdict}", lang)), id="verdict"),
            Static(self.text(rec.headline), id="headline"),
        ]
        widgets += self._torch(rec)
        recorded = self._recorded_advice(rec)
        if recorded:
            widgets.append(Static(self.text(recorded), id="recorded-advice", classes="muted"))
        if rec.reasons:
            widgets.append(Static(self.text(ui("result.why", lang)), classes="section"))
            widgets.append(Bullets([("•", r) for r in rec.reasons], id="reasons",
                                   ascii_text=self.state.ascii_marks))
        widgets += self._picks(rec, knowledge)
        widgets += self._chart(rec, machine, knowledge)
        widgets += self._platforms(rec)
        widgets += self._torch_details(rec)
        widgets += self._benchmark()
        widgets.append(Guide(self.guide("result", "cloud"), id="guide-md",
                             ascii_text=self.state.ascii_marks, terms_lang=self.lang))
        box.mount_all(widgets)
        self.fill_done()
        table = self.query("#picks")
        if table:
            self._fill_table(table.first(DataTable), rec, knowledge)

    def _recorded_advice(self, rec: Any) -> str | None:
        """In a replay, what the student was told, when today's data or changed answers
        now say something else (the TA should know which one the student read)."""
        replay = self.state.replay
        if replay is None or not replay.verdict:
            return None
        if replay.verdict == rec.verdict:
            return ui("replay.recorded_advice_same", self.lang)
        return ui("replay.recorded_advice", self.lang, headline=replay.headline or replay.verdict)

    def _picks(self, rec: Any, knowledge: Any) -> list[Any]:
        lang = self.lang
        out: list[Any] = [Static(self.text(t("guide.result.gpu_picks", lang)), classes="section")]
        if not rec.gpus:
            cheapest = rec.cheapest_adequate
            if cheapest is not None:
                price = price_text(cheapest, knowledge, lang)
                total = rec.cheapest_total
                if total is not None and cheapest.price is not None and total > cheapest.price:
                    # The card alone may be under the budget: say what really does not fit.
                    text = ui("result.cheapest_desktop", lang, gpu=cheapest.name, price=price,
                              total=format_money(total, cheapest.currency, knowledge))
                else:
                    text = ui("result.cheapest", lang, gpu=cheapest.name, price=price)
                out.append(Static(self.text(text), classes="muted"))
            else:
                out.append(Static(self.text(ui("result.no_picks", lang)), classes="muted"))
            return out
        out.append(DataTable(id="picks", cursor_type="row", zebra_stripes=False,
                             show_cursor=False))
        out.append(Bullets([("•", f"{p.name}: {p.why}") for p in rec.gpus], id="pick-why",
                           ascii_text=self.state.ascii_marks))
        return out

    def _fill_table(self, table: DataTable, rec: Any, knowledge: Any) -> None:
        lang = self.lang
        # Text labels: a str is parsed as markup, which loads Rich's 1 MB emoji table.
        table.add_columns(*(Text(ui(f"result.{key}", lang))
                            for key in ("col_gpu", "col_vram", "col_price")))
        def plain(text: str) -> str:   # names and prices are data: drawn like all outside text
            return shown_text(asciify(text) if self.state.ascii_marks else text)

        for pick in rec.gpus:
            # Rich Text cells: measured for the column widths, and never read as markup.
            table.add_row(Text(plain(pick.name)), Text(f"{gb(pick.vram_gb, self.lang)} GB"),
                          Text(plain(price_text(pick, knowledge, lang))))

    def _chart(self, rec: Any, machine: Any, knowledge: Any) -> list[Any]:
        currency = self.state.session.answers.budget_currency
        prices, value = chart.comparison(rec, machine, knowledge, currency, self.lang)
        if len(prices) < 2:
            return []  # one bar compares nothing
        fill = "#" if self.state.ascii_marks else "█"
        width = max(30, min(self.app.size.width, 100) - 6)
        lines = [ui("result.chart_price", self.lang), *chart.render(prices, width, fill), "",
                 ui("result.chart_value", self.lang), *chart.render(value, width, fill)]
        return [Static(self.text(ui("result.chart", self.lang)), classes="section"),
                Static(self.line("\n".join(lines)), id="chart")]

    def _platforms(self, rec: Any) -> list[Any]:
        if not rec.platforms:
            return []
        items = [("•", f"{p.name} — {p.url}\n{p.why}") for p in rec.platforms]
        return [Static(self.text(t("guide.result.platforms", self.lang)), classes="section"),
                Bullets(items, id="platforms", ascii_text=self.state.ascii_marks)]

    def _torch(self, rec: Any) -> list[Any]:
        """The one thing to do next, and the install line only when installing is it (or an
        upgrade, said to be optional), with the check that shows it worked."""
        lang = self.lang
        outcome = self.state.outcome()
        assert outcome is not None  # fill() is called with it
        shown = outcome.shown(lang)
        out: list[Any] = [Static(self.text(t("present.action.heading", lang)), classes="section"),
                          Static(self.text(shown.action_text), id="action")]
        command = shown.command
        if shown.upgrade_text:
            out.append(Static(self.text(shown.upgrade_text), id="upgrade", classes="muted"))
        if command:
            # A plain Static: Textual lets the mouse select its text (and Ctrl+C copy it),
            # and the whole command is one piece of text to copy, not a document to edit.
            # Rich wraps only between words, so a long command breaks between its arguments,
            # never inside the index URL.
            out.append(Static(Text(shown_text(command)), id="torch-command"))
            out.append(Static(self.text(ui("result.copy_hint", lang)), classes="muted"))
        elif shown.action.kind == "install":   # installing is the fix, but no build fits
            out.append(Static(self.text(t("guide.result.no_torch_command", lang)), classes="muted"))
        if shown.verify:
            out.append(Static(self.text(shown.verify[0]), classes="muted"))
            out.append(Static(Text(shown_text(shown.verify[1])), id="verify-command"))
            out += [Static(self.text(text), classes="muted") for text in shown.verify[2:]]
        return out

    def _shown_command(self) -> str | None:
        outcome = self.state.outcome()
        if outcome is None:
            return None
        return outcome.shown(self.lang).command

    def _torch_details(self, rec: Any) -> list[Any]:
        """Below the fold: installing from here, the mirrors in mainland China, and why the
        GPU build is so much bigger, with this machine's own PyTorch as the measure."""
        lang = self.lang
        command = self._shown_command()
        if not command:
            return []
        out: list[Any] = [Static(self.text(ui("result.torch_more", lang)), classes="section")]
        if self.state.can_pick_python:
            out.append(Static(self.text(ui("result.install_hint", lang)), classes="muted"))
        out += self._china(command)
        out.append(Static(self.text(self._size_text(command)), id="torch-size", classes="muted"))
        return out

    def _size_text(self, command: str) -> str:
        joiner = "" if self.lang == "zh" else " "
        return joiner.join((ui("result.why_big", self.lang), torch_size_text(self.state.live, self.lang)))

    def _china(self, command: str) -> list[Any]:
        """In Chinese only: the same install from mirrors in mainland China (wizard.pytorch.mirrors)."""
        outcome = self.state.outcome()
        lines = china_lines_for_machine(command, outcome.machine if outcome else None, self.lang)
        return [Static(Text(shown_text(item.text)), classes="china-command") if item.kind == "command"
                else Static(self.text(item.text), classes="muted china-text") for item in lines]

    def _benchmark(self) -> list[Any]:
        if self.state.live.benchmark() is None:
            return []
        marks = CheckPanel(benchmark_checks(self.state.live, self.lang, self.state.knowledge),
                           id="bench",
                           ascii_marks=self.state.ascii_marks)
        return [Static(self.text(ui("result.measured", self.lang)), classes="section"), marks]

    # ------------------------------------------------------------------ actions ---

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "install_torch":
            # Live only: a replay's machine is a student's, not this one.
            return self.state.can_pick_python and self.state.outcome() is not None
        return super().check_action(action, parameters)

    def action_install_torch(self) -> None:
        outcome = self.state.outcome()
        shown = outcome.shown(self.lang) if outcome is not None else None
        if shown is not None and shown.action.kind == "fix":
            # "Do not reinstall" means it: the fix comes first (the page says which).
            self.notify(t("present.action.fix-then", self.lang), severity="warning", markup=False)
            return
        plan = self.state.install_plan()
        if plan is None:
            self.notify(t("guide.result.no_torch_command", self.lang), severity="warning", markup=False)
            return
        outcome = self.state.outcome()
        assert outcome is not None  # install_plan() found one

        def stopped(command: str) -> None:
            self.state.install_interrupted = command   # the App is closing: no message gets there

        def closed(result: dict[str, Any] | None) -> None:
            self.post_message(self.Installed(result))

        self.app.push_screen(InstallScreen(self.lang, plan, outcome.machine,
                                           ascii_marks=self.state.ascii_marks, stopped=stopped),
                             closed)

    def action_copy_command(self) -> None:
        command = self._shown_command()
        if not command:
            self.notify(t("guide.result.no_torch_command", self.lang), severity="warning", markup=False)
            return
        self.app.copy_to_clipboard(command)
        self.notify(ui("result.copied", self.lang), markup=False)

    def collect(self) -> dict[str, Any] | None:
        # Saving needs the recommendation: wait for the checks rather than save a guess.
        if self.state.outcome() is None:
            self.notify(ui("result.not_ready", self.lang), severity="warning", markup=False)
            return None
        return {}
