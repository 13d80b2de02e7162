"""A step left behind is freed at once, with every line it drew (issue 13: peak memory).

Old steps are freed only by Python's cycle collector (a widget tree points at itself), and
Textual 8.2's render cache keeps the last 1,024 widgets' drawn lines alive through an
`lru_cache` on a method (Textualize/textual#6665). The App frees both after each change of
screen (screens.app.free_left_screens); with the collector switched off here, only that can.
"""

from __future__ import annotations

import gc
import weakref

from screens.app import make_app
from screens.step import STEPS
from tests.pilot import at_step, until
from tests.recorded import machine


def _render_caches() -> int:
    return sum(1 for o in gc.get_objects() if type(o).__name__ == "StylesCache")


def _live_widgets(app) -> int:
    return sum(1 + len(list(screen.walk_children())) for screen in app.screen_stack)


async def test_a_step_left_behind_is_freed_with_what_it_drew(tmp_path):
    app = make_app("en", machine=machine("laptop-4060"), report_path=tmp_path / "r.toml")
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await at_step(pilot, "welcome")
            for _ in range(2):
                for index, step in enumerate(STEPS):
                    app.goto(index)
                    await at_step(pilot, step)
            left = weakref.ref(app.screen)
            app.goto(0)
            await at_step(pilot, "welcome")
            await until(pilot, lambda: left() is None, timeout=3, what="the save step to be freed")
            assert _render_caches() <= 2 * _live_widgets(app)
    finally:
        if was_enabled:
            gc.enable()
