"""Step 4: the budget, checked as it is typed. Live: free disk vs. the size of a CUDA torch."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Button, Input, Static

from screens.panels import Check, budget_checks
from screens.step import StepScreen
from screens.strings import ui
from screens.widgets import Choices
from wizard.advise import format_money
from wizard.answers import BudgetReading, read_budget
from wizard.state import replay_session
from wizard.text.i18n import t

if TYPE_CHECKING:
    from wizard.state import WizardState


class BudgetScreen(StepScreen):
    STEP = "budget"
    PAGES = ("budget", "torch-size")
    AUTO_FOCUS = "#amount"

    def __init__(self, lang: str, state: WizardState) -> None:
        super().__init__(lang, state)
        session = self.state.session
        # The currency buttons start at the last choice, else the one the language suggests.
        self.currency = session.currency_choice or ("CNY" if lang == "zh" else "USD")
        self.unsure = False

    def checks(self) -> list[Check]:
        return budget_checks(self.state.live, self.lang)

    def compose_question(self) -> ComposeResult:
        yield Static(self.text(t("guide.questions.budget_amount", self.lang)), id="question")
        with Horizontal(id="budget-row"):
            yield Input(self.state.session.budget_text, id="amount",
                        placeholder=t("guide.budget.placeholder", self.lang), compact=True)
            yield Choices(self._currency_options(), self.currency, id="currency",
                          ascii_marks=self.state.ascii_marks)
        yield Static(self.text(""), id="note")
        yield Button(ui("budget.unsure", self.lang), id="unsure", compact=True)

    def _currency_options(self) -> list[tuple[str, str]]:
        knowledge = self.state.knowledge
        return [(code, f"{code} {knowledge.currency(code).symbol}") for code in self.state.currencies()]

    def on_mount(self) -> None:
        super().on_mount()
        self._validate(self.query_one("#amount", Input).value, quiet_when_empty=True)

    # -------------------------------------------------------------- validation ---

    def _parse(self, text: str) -> BudgetReading | str:
        return read_budget(text, self.currency, self.state.knowledge)

    def _validate(self, text: str, quiet_when_empty: bool = False) -> tuple[int | float, str] | None:
        result = self._parse(text)
        if isinstance(result, str):
            if quiet_when_empty and not text.strip():
                self.note("note", ui("budget.hint", self.lang) + self._replayed(text))
            else:
                self.note("note", t(result, self.lang), "error")
            return None
        amount, currency = result.amount, result.currency
        if currency != self.currency:
            # "¥5000", "1.2万" or "800 usd" in the box wins over the currency buttons; show it.
            self.currency = currency
            self.query_one("#currency", Choices).set_current(currency)
        self.note("note", self._understood(result) + self._replayed(text), "ok")
        return amount, currency

    def _replayed(self, text: str) -> str:
        """In a replay, while the box holds the student's budget, say whose answer it is."""
        replay = self.state.replay
        if replay is None or replay.answers is None or text != replay_session(replay).budget_text:
            return ""
        return "\n" + ui("replay.answered", self.lang)

    def _understood(self, reading: BudgetReading) -> str:
        money = format_money(reading.amount, reading.currency, self.state.knowledge)
        if reading.amount == 0:
            return ui("budget.zero", self.lang)
        if reading.low is not None:
            low = format_money(reading.low, reading.currency, self.state.knowledge)
            return ui("budget.range", self.lang, money=money, low=low)
        return ui("budget.ok", self.lang, money=money)

    @on(Input.Changed, "#amount")
    def _typed(self, event: Input.Changed) -> None:
        self.unsure = False
        self._validate(event.value)

    @on(Input.Submitted, "#amount")
    def _submitted(self, event: Input.Submitted) -> None:
        self.action_next()

    def on_choices_picked(self, event: Choices.Picked) -> None:
        # Picking a currency only changes how the amount is read; it does not move on.
        event.stop()
        self.currency = event.value
        self._validate(self.query_one("#amount", Input).value, quiet_when_empty=True)

    @on(Button.Pressed, "#unsure")
    def _unsure_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.unsure = True
        self.action_next()

    # ---------------------------------------------------------------- answers ---

    def collect(self) -> dict[str, Any] | None:
        text = self.query_one("#amount", Input).value
        base: dict[str, Any] = {"budget_text": text, "currency_choice": self.currency}
        if self.unsure:
            return base | {"budget_amount": None, "budget_currency": self.currency}
        parsed = self._validate(text)
        if parsed is None:
            self.query_one("#amount", Input).focus()
            return None
        amount, currency = parsed
        return base | {"budget_amount": amount, "budget_currency": currency}

    def keep(self) -> dict[str, Any]:
        text = self.query_one("#amount", Input).value
        changes: dict[str, Any] = {"budget_text": text, "currency_choice": self.currency}
        parsed = self._parse(text)
        if not isinstance(parsed, str):
            changes |= {"budget_amount": parsed.amount, "budget_currency": parsed.currency}
        return changes

    def confirmed(self, direction: int) -> tuple[str, ...]:
        return ("budget",) if direction > 0 else ()
