"""The README's screenshots: the wizard's own SVG export, on a recorded machine.

    .venv/bin/python -m docs.screenshots [--out DIR] [NAME ...]
    .venv/bin/python docs/screenshots.py [--out DIR] [NAME ...]

Each screenshot builds the wizard with `screens.app.make_app` on a recorded machine from
tests/machines (no live probes), a fixed clock and fixed folders, drives it with keys at 80×24
the way a user would, and writes what Textual's `export_screenshot` returns. Nothing depends on
the machine running the script, so running it again gives the same files, byte for byte.
By default the files go to docs/screenshots/; NAME limits the run to some of them.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):   # run as a file: make the repository importable
    sys.path.insert(0, str(ROOT))

MACHINES = ROOT / "tests" / "machines"
DEFAULT_OUT = ROOT / "docs" / "screenshots"
SIZE = (80, 24)
ORDER = ("welcome", "need_gpu", "has_nvidia", "form_factor", "budget", "goal", "result", "save")

# What the screenshots pretend: a fixed time and folders that are never written to.
NOW = dt.datetime(2026, 11, 30, 12, 0, 0)
FOLDER = Path("/home/student")
REPORT = "gpu-report-20261130-120000.toml"


@dataclass(frozen=True)
class Shot:
    lang: str
    machine: str        # a file in tests/machines, without .toml
    step: str           # the step shown (see ORDER)
    budget: str = "800"


# name (the file is NAME.svg) → what it shows. One laptop throughout, so the pictures tell one
# story: an RTX 4060 whose PyTorch is the CPU-only build.
SHOTS = {
    "welcome-en": Shot("en", "laptop-4060", "welcome"),
    "nvidia-en": Shot("en", "laptop-4060", "has_nvidia"),
    "budget-en": Shot("en", "laptop-4060", "budget"),
    "result-en": Shot("en", "laptop-4060", "result"),
    "result-zh": Shot("zh", "laptop-4060", "result", budget="5000"),
}


# ------------------------------------------------------------------------- driving ---

async def _until(pilot, predicate, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}; screen is {pilot.app.screen!r}")
        await pilot.pause(0.01)


async def _at_step(pilot, step: str) -> None:
    screen = lambda: pilot.app.screen  # noqa: E731
    await _until(pilot, lambda: getattr(screen(), "STEP", None) == step and screen().is_mounted,
                 what=f"step {step}")
    await pilot.pause()


async def _type(pilot, text: str) -> None:
    from textual.widgets import Input

    field = pilot.app.screen.query_one("#amount", Input)
    field.focus()
    field.value = ""
    for ch in text:
        await pilot.press(ch)


async def _walk(pilot, shot: Shot) -> None:
    """From the welcome screen to `shot.step`, answering as a user who accepts what the wizard
    detected: needs a GPU, the detected NVIDIA and form factor, a budget, the suggested goal."""
    for step in ORDER[: ORDER.index(shot.step)]:
        await _at_step(pilot, step)
        if step == "welcome":
            await pilot.press("enter")
        elif step == "need_gpu":
            await _choose(pilot, "yes")
        elif step == "budget":
            await _type(pilot, shot.budget)
            await pilot.press("enter")
        else:   # accept what is marked (detected or suggested) and go on
            await pilot.press("ctrl+n")
    await _at_step(pilot, shot.step)
    if shot.step == "budget":
        await _type(pilot, shot.budget)


async def _choose(pilot, value: str) -> None:
    from screens.widgets import Choices

    choices = pilot.app.screen.query_one("#answer", Choices)
    target = choices.values.index(value)
    for _ in range(len(choices.values) + 1):
        if choices.highlighted == target:
            break
        await pilot.press("down" if (choices.highlighted or 0) < target else "up")
    await pilot.press("enter")


async def _steady(pilot) -> None:
    """No blinking cursor in the picture: every Input shows its cursor, steadily."""
    from textual.widgets import Input

    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False
    await pilot.pause()


async def _shoot(name: str, shot: Shot) -> str:
    from screens.app import make_app
    from wizard.machine_file import load_machine

    app = make_app(shot.lang, machine=load_machine(MACHINES / f"{shot.machine}.toml"),
                   report_path=REPORT, now=lambda: NOW, cwd=FOLDER, home=FOLDER,
                   ascii_marks=False)
    async with app.run_test(size=SIZE) as pilot:
        await _walk(pilot, shot)
        await _steady(pilot)
        return app.export_screenshot()


# ------------------------------------------------------------------------- writing ---

def generate(out: Path = DEFAULT_OUT, names: list[str] | None = None) -> list[Path]:
    """Write the screenshots called `names` (default: all) into `out`; returns the files."""
    names = list(SHOTS) if not names else names
    unknown = [n for n in names if n not in SHOTS]
    if unknown:
        raise ValueError(f"no screenshot called {', '.join(unknown)}; known: {', '.join(SHOTS)}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    # The developer's terminal must not leak into the pictures: colour and the locale's marks.
    saved = {k: os.environ.get(k) for k in ("NO_COLOR", "LANG", "LC_ALL")}
    os.environ.pop("NO_COLOR", None)
    os.environ.pop("LC_ALL", None)
    os.environ["LANG"] = "en_US.UTF-8"
    written = []
    try:
        for name in names:
            svg = asyncio.run(_shoot(name, SHOTS[name]))
            path = out / f"{name}.svg"
            with open(path, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(svg)
            written.append(path)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m docs.screenshots", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"folder (default: {DEFAULT_OUT.relative_to(ROOT)})")
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"some of: {', '.join(SHOTS)}")
    args = parser.parse_args(argv)
    try:
        for path in generate(args.out, args.names):
            print(path)
    except ValueError as exc:
        parser.error(str(exc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
