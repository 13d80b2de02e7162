"""Driving the wizard with Textual's Pilot the way a user does: keys, one step at a time.

One driver for the tests, the snapshot tests and docs/screenshots.py, so a change to how a step
is answered is made once. Every wait polls instead of sleeping: the app answers as soon as it
is ready, and a step that never comes fails with the screen it is stuck on.
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


async def to_step(pilot, step: str, budget: str = "5000", form_factor: str | None = None,
                  timeout: float = 10.0) -> None:
    """From the welcome screen to `step`, as a user who needs a GPU, types `budget` and
    accepts what the wizard detected or suggests for the rest (the form factor too, unless
    given)."""
    from screens.step import STEPS

    await at_step(pilot, "welcome", timeout)
    for current in STEPS[: STEPS.index(step)]:
        if current == "welcome":
            await pilot.press("enter")
        elif current == "need_gpu":
            await answer(pilot, current, "yes", timeout)
        elif current == "form_factor":
            await answer(pilot, current, form_factor, timeout)
        elif current == "budget":
            await type_budget(pilot, budget, timeout)
            await pilot.press("enter")
        else:   # Ctrl+N: accept what is marked (on the result: go on to saving)
            await answer(pilot, current, None, timeout)
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


def screen_rows(app) -> list[str]:
    """The screen as the terminal shows it, one string per row (toasts and dialogs included)."""
    return [strip.text for strip in app.screen._compositor.render_strips()]
