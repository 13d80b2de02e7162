"""The README's screenshots: the wizard's own SVG export, on a recorded machine.

    .venv/bin/python -m docs.screenshots [--out DIR] [NAME ...]
    .venv/bin/python docs/screenshots.py [--out DIR] [NAME ...]

Each screenshot builds the wizard with `screens.app.make_app` on a recorded machine from
tests/machines (no live probes), a fixed clock and fixed folders, opens the step at 80×24 with
the answers a user gives on the way (tests.pilot.open_at: the same screen the keys lead to),
and writes what Textual's `export_screenshot` returns. Nothing depends on
the machine running the script, so running it again gives the same files, byte for byte.
By default the files go to docs/screenshots/; NAME limits the run to some of them.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):   # run as a file: make the repository importable
    sys.path.insert(0, str(ROOT))

DEFAULT_OUT = ROOT / "docs" / "screenshots"
SIZE = (80, 24)

# What the screenshots pretend: a fixed time and folders that are never written to.
NOW = dt.datetime(2026, 11, 30, 12, 0, 0)
FOLDER = Path("/home/student")
REPORT = "gpu-report-20261130-120000.toml"


@dataclass(frozen=True)
class Shot:
    lang: str
    machine: str        # a file in tests/machines, without .toml
    step: str           # the step shown (one of screens.step.STEPS)
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

async def _walk(pilot, shot: Shot) -> None:
    """From the welcome screen to `shot.step`, answered as a user who accepts what the wizard
    detected: needs a GPU, the detected NVIDIA and form factor, a budget, the suggested goal."""
    from tests.pilot import open_at, type_budget

    await open_at(pilot, shot.step, budget=shot.budget, goal=None, timeout=20.0)
    if shot.step == "budget":
        await type_budget(pilot, shot.budget, timeout=20.0)


async def _steady(pilot) -> None:
    """No blinking cursor in the picture: every Input shows its cursor, steadily."""
    from textual.widgets import Input

    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False
    await pilot.pause()


async def _shoot(name: str, shot: Shot) -> str:
    from screens.app import make_app
    from tests.recorded import machine

    app = make_app(shot.lang, machine=machine(shot.machine),
                   report_path=REPORT, now=lambda: NOW, cwd=FOLDER, home=FOLDER,
                   ascii_marks=False)
    async with app.run_test(size=SIZE) as pilot:
        await _walk(pilot, shot)
        await _steady(pilot)
        return app.export_screenshot()


# ------------------------------------------------------------------------- writing ---

def generate(out: Path = DEFAULT_OUT, names: list[str] | None = None) -> list[Path]:
    """Write the screenshots called `names` (default: all) into `out`; returns the files."""
    names = names if names else list(SHOTS)
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
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help=f"folder (default: {DEFAULT_OUT.relative_to(ROOT)})"
    )
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
