"""Driving the wizard with Textual's Pilot the way a user does: keys, one step at a time.

One driver for the tests, the snapshot tests and docs/screenshots.py, so a change to how a step
is answered is made once. Every wait polls instead of sleeping: the app answers as soon as it
is ready, and a step that never comes fails with the screen it is stuck on.

Two ways to a step: `walk` presses the keys through every step to the result (the journeys,
which test the walking); `open_at` answers the steps before a step through the App's own API and
opens it at once (for a test of that step: each key costs Textual's idle wait, 0.05-1 s).
"""

from __future__ import annotations

import time
from pathlib import Path


async def until(pilot, predicate, timeout: float = 10.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; screen is {pilot.app.screen!r}")
        await pilot.pause(0.01)


async def at_step(pilot, step: str, timeout: float = 10.0) -> None:
    await until(pilot, lambda: getattr(pilot.app.screen, "STEP", None) == step
                and pilot.app.screen.is_mounted, timeout=timeout, what=f"step {step}")
    await pilot.pause()


async def choose(pilot, value: str) -> None:
    """Move the highlight to `value` with the arrow keys and press Enter, as a user would."""
    from screens.widgets import Choices

    choices = pilot.app.screen.query_one("#answer", Choices)
    target = choices.values.index(value)
    for _ in range(len(choices.values) + 1):
        if choices.highlighted == target:
            break
        await pilot.press("down" if (choices.highlighted or 0) < target else "up")
    assert choices.highlighted == target
    await pilot.press("enter")


async def answer(pilot, step: str, value: str | None, timeout: float = 10.0) -> None:
    """Answer one choice step: pick `value`, or accept what is shown (None) with Ctrl+N."""
    await at_step(pilot, step, timeout)
    if value is None:
        await pilot.press("ctrl+n")
    else:
        await choose(pilot, value)


async def type_budget(pilot, text: str, timeout: float = 10.0) -> None:
    await at_step(pilot, "budget", timeout)
    field = pilot.app.screen.query_one("#amount")
    field.focus()
    field.value = ""
    for ch in text:
        if ch.isalnum() or ch.isascii():
            await pilot.press(ch)
        else:
            # Pilot has no key name for every symbol (¥); paste it, as an IME would.
            field.insert_text_at_cursor(ch)
            await pilot.pause()


async def walk(pilot, need_gpu="yes", has_nvidia=None, form_factor=None, budget="5000",
               goal="image-generation") -> None:
    """Welcome → … → recommendation, with these answers (None: accept what is shown)."""
    await at_step(pilot, "welcome")
    await pilot.press("enter")
    await answer(pilot, "need_gpu", need_gpu)
    await answer(pilot, "has_nvidia", has_nvidia)
    await answer(pilot, "form_factor", form_factor)
    await type_budget(pilot, budget)
    await pilot.press("enter")
    await answer(pilot, "goal", goal)
    await at_step(pilot, "result")


async def open_at(pilot, step: str, *, need_gpu: str | None = "yes", has_nvidia: str | None = None,
                  form_factor: str | None = None, budget: str | None = "5000",
                  goal: str | None = "image-generation", timeout: float = 10.0) -> None:
    """From the welcome screen straight to `step`, with the steps before it answered through
    the App's own API instead of keys: each earlier step's answer goes into the session as
    its Next would put it (`WizardState.apply`, the answer confirmed), then `App.goto` opens
    `step`. The answers are `walk`'s: a value is picked; None accepts what that step would
    show (its detection, else the answer so far), as Ctrl+N does; `budget` is read as typed
    (None: "not sure").

    What an unanswered step would show is asked of the step's own screen class, built but not
    shown, so detection and the currency buttons follow the screens' rules, not a copy here.
    For a test of one step; the walking itself is tested by the journeys that use `walk`.
    """
    from screens.choice_step import ChoiceStep
    from screens.step import STEPS

    app = pilot.app
    await at_step(pilot, "welcome", timeout)
    given = {"need_gpu": need_gpu, "has_nvidia": has_nvidia, "form_factor": form_factor, "goal": goal}
    for index in range(1, STEPS.index(step)):
        screen = app.make_step(index)   # never mounted: asked what it would show
        if STEPS[index] == "budget":
            if budget is None:
                changes = {"budget_text": "", "budget_amount": None}
                currency = screen.currency
            else:
                reading = screen._parse(budget)
                assert not isinstance(reading, str), f"the budget {budget!r} is refused: {reading}"
                changes = {"budget_text": budget, "budget_amount": reading.amount}
                currency = reading.currency
            app.state.apply(changes | {"currency_choice": currency, "budget_currency": currency}, ("budget",))
        elif isinstance(screen, ChoiceStep):
            value = given[screen.FIELD] or screen.current_answer()
            assert value in [v for v, _ in screen.options()], f"{value!r} is not an answer to {screen.FIELD}"
            app.state.apply({screen.FIELD: value}, (screen.FIELD,))
    if app.step_index != STEPS.index(step):
        app.goto(STEPS.index(step))
    await at_step(pilot, step, timeout)


async def save(pilot) -> Path:
    """From the result: on to the save step, save under the name shown, wait for the file."""
    await pilot.press("ctrl+n")
    await at_step(pilot, "save")
    await pilot.press("enter")
    await until(pilot, lambda: pilot.app.state.saved_path is not None, what="the report to be saved")
    return pilot.app.state.saved_path


def shown(widget) -> str:
    """What a widget shows on screen, all lines, without the spaces that wrapping adds."""
    from textual.geometry import Region

    strips = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
    return squeeze("".join(strip.text for strip in strips))


def squeeze(text: str) -> str:
    return "".join(text.split())


def screen_strips(app) -> list:
    """The screen as Textual composes it for the terminal, one Strip per row (toasts and dialogs
    included). Textual has no public way to read the composed screen (`export_screenshot` gives
    SVG): this is the one place the tests reach into its compositor."""
    return app.screen._compositor.render_strips()


def screen_rows(app) -> list[str]:
    """The screen as the terminal shows it, one string per row (toasts and dialogs included)."""
    return [strip.text for strip in screen_strips(app)]


class Told:
    """Every notification the app is asked to show, in order, as (message, severity): recorded
    where it comes in, `App.notify` (Textual's public way; a widget's `notify` calls it too),
    rather than read from the app's private list of the toasts still shown. Make it right after
    make_app, before anything could notify."""

    def __init__(self, app) -> None:
        self.items: list[tuple[str, str]] = []
        real = app.notify

        def notify(message, *, title="", severity="information", timeout=None, markup=True):
            self.items.append((message, severity))
            real(message, title=title, severity=severity, timeout=timeout, markup=markup)

        app.notify = notify

    @property
    def messages(self) -> list[str]:
        return [message for message, _severity in self.items]

    def clear(self) -> None:
        self.items.clear()
