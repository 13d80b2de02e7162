"""The wizard driven like a user drives it: keys through every step, then the saved report.

Recorded machines (tests/machines) stand in for the computer, so nothing here depends on the
machine running the tests; gated fake probes show what happens while checks are still running.
The journeys walk by keys (`walk`, `answer`, `type_budget`); a test of one step opens it with
its earlier answers given (`open_at`), so it spends no time pressing keys through the others.
"""

from __future__ import annotations

import io
import os
import threading
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from screens.app import ascii_terminal, exit_summary, make_app
from screens.step import STEPS
from screens.widgets import CheckPanel, Choices
from tests.pilot import Told, answer, at_step, choose, open_at, save, shown, squeeze, type_budget, until, walk
from tests.recorded import MACHINE_NAMES, machine
from wizard.advise import advise
from wizard.answers import Answers
from wizard.diagnosis.diagnose import diagnose
from wizard.knowledge.load import load_knowledge
from wizard.machine.live import Probes, from_machine
from wizard.probe.facts import Benchmark
from wizard.pytorch.choose import choose_for_machine
from wizard.report.validate import validate_report
from wizard.text.i18n import t

pytestmark = pytest.mark.usefixtures("quiet_terminal")


def read(path: Path) -> dict:
    with open(path, "rb") as fh:
        return tomllib.load(fh)


def note_text(app) -> str:
    return shown(app.screen.query_one("#note"))


# ------------------------------------------------------------------- whole flows ---

FLOW_MACHINES = {
    # name: (detected has_nvidia, detected form factor)
    "laptop-4060": ("yes", "laptop"),
    "vm-no-gpu": ("no", "unsure"),
    "desktop-1080ti": ("yes", "desktop"),
    "apple-m2": ("no", "laptop"),
    "nouveau": ("yes", "desktop"),
}
# The journeys walked by keys: detected yes and no, laptop, desktop and not sure, both languages.
# The others open the result with the same answers (tests.pilot.open_at).
BY_KEYS = {("laptop-4060", "en"), ("vm-no-gpu", "zh"), ("desktop-1080ti", "en")}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", sorted(FLOW_MACHINES))
async def test_whole_flow_saves_the_report_the_user_saw(tmp_path, name, lang):
    recorded = machine(name)
    app = make_app(lang, machine=recorded, report_path=tmp_path / "report.toml")
    async with app.run_test(size=(80, 24)) as pilot:
        if (name, lang) in BY_KEYS:
            await walk(pilot)
        else:
            await open_at(pilot, "result")
        headline = shown(app.screen.query_one("#headline"))
        path = await save(pilot)
        assert app.screen.query_one("#checks", CheckPanel).checks[0].kind == "ok"

    assert path == tmp_path / "report.toml"
    report = read(path)
    assert validate_report(report, load_knowledge()) == []
    nvidia, form = FLOW_MACHINES[name]
    currency = "CNY" if lang == "zh" else "USD"
    assert report["answers"] == {"need_gpu": "yes", "has_nvidia": nvidia, "form_factor": form,
                                 "budget_amount": 5000, "budget_currency": currency,
                                 "goal": "image-generation"}
    assert report["language"] == lang
    assert report["redacted"] is True
    assert report["machine"]["cpu_model"] == recorded.cpu_model
    # The saved advice is the advice for exactly these answers, and the one on screen.
    answers = Answers("yes", nvidia, form, 5000, currency, "image-generation")
    choice = choose_for_machine(recorded, lang)
    expected = advise(answers, recorded, load_knowledge(), lang, diagnose(recorded, lang), choice)
    assert report["recommendation"]["verdict"] == expected.verdict
    # The install line is saved only where installing is the action (or an optional upgrade).
    assert report["recommendation"]["action"] == expected.action
    assert report["recommendation"].get("torch_command") == expected.torch_command
    assert (expected.torch_command == choice.command) == (expected.action in ("install", "keep")
                                                        and expected.torch_command is not None)
    assert report["recommendation"]["headline"] == expected.headline
    assert headline == squeeze(expected.headline)
    assert [f["id"] for f in report["findings"]] == [f.id for f in diagnose(recorded, lang)]


async def test_going_back_keeps_answers_and_changes_stick(tmp_path):
    app = make_app("en", machine=machine("laptop-4060"), report_path=tmp_path / "r.toml")
    async with app.run_test() as pilot:
        await at_step(pilot, "welcome")
        await pilot.press("enter")
        await answer(pilot, "need_gpu", "no")
        await answer(pilot, "has_nvidia", None)
        await answer(pilot, "form_factor", None)
        await type_budget(pilot, "800")
        # Back twice: the earlier answers are still marked, the typed budget is kept.
        await pilot.press("escape")
        await at_step(pilot, "form_factor")
        assert app.screen.query_one("#answer", Choices).current == "laptop"
        await pilot.press("escape")
        await at_step(pilot, "has_nvidia")
        await pilot.press("escape")
        await at_step(pilot, "need_gpu")
        assert app.screen.query_one("#answer", Choices).current == "no"
        await choose(pilot, "yes")                      # change an earlier answer
        await answer(pilot, "has_nvidia", None)
        await answer(pilot, "form_factor", "desktop")   # and another
        await at_step(pilot, "budget")
        assert app.screen.query_one("#amount").value == "800"
        await type_budget(pilot, "1200")
        await pilot.press("enter")
        await answer(pilot, "goal", "kaggle")
        await at_step(pilot, "result")
        await pilot.press("escape")                      # back from the result, then on again
        await at_step(pilot, "goal")
        assert app.screen.query_one("#answer", Choices).current == "kaggle"
        await pilot.press("ctrl+n")
        await at_step(pilot, "result")
        path = await save(pilot)
    answers = read(path)["answers"]
    assert answers["need_gpu"] == "yes"
    assert answers["form_factor"] == "desktop"
    assert answers["budget_amount"] == 1200
    assert answers["goal"] == "kaggle"


@pytest.mark.parametrize("typed, error", [
    ("-300", "advice.budget.negative"),
    ("abc", "advice.budget.not-a-number"),
    ("99999999999", "advice.budget.too-large"),
    ("12 euro", "advice.budget.unknown-currency"),
])
async def test_an_invalid_budget_is_explained_and_blocks_next(typed, error):
    app = make_app("en", machine=machine("vm-no-gpu"))
    async with app.run_test() as pilot:
        await at_step(pilot, "welcome")
        app.goto(4)
        await type_budget(pilot, typed)
        assert note_text(app) == squeeze(t(error, "en"))  # explained while typing, before Next
        await pilot.press("enter")
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert app.screen.STEP == "budget"
        assert app.state.session.answers.budget_amount is None


@pytest.mark.parametrize("typed, amount, currency", [
    ("５０００", 5000, "USD"),      # full-width digits, as a Chinese IME types them
    ("¥3000", 3000, "CNY"),        # the symbol switches the currency
    ("1.2万", 12000, "CNY"),       # 万 and w are Chinese units: yuan, whatever the buttons say
    ("1.2w", 12000, "CNY"),
    ("3000-5000", 5000, "USD"),    # a range: its top (the note says so)
    ("0", 0, "USD"),
])
async def test_budget_accepts_what_people_type(tmp_path, typed, amount, currency):
    app = make_app("en", machine=machine("vm-no-gpu"), report_path=tmp_path / "r.toml")
    async with app.run_test() as pilot:
        await at_step(pilot, "welcome")
        app.goto(4)
        await type_budget(pilot, typed)
        assert "-error" not in app.screen.query_one("#note").classes
        assert app.screen.query_one("#currency", Choices).current == currency
        await pilot.press("enter")
        await at_step(pilot, "goal")
        await pilot.press("ctrl+n")
        await at_step(pilot, "result")
        path = await save(pilot)
    answers = read(path)["answers"]
    assert (answers["budget_amount"], answers["budget_currency"]) == (amount, currency)


async def test_a_range_says_which_end_counts():
    app = make_app("zh", machine=machine("vm-no-gpu"))
    async with app.run_test() as pilot:
        await at_step(pilot, "welcome")
        app.goto(4)
        await type_budget(pilot, "3000~5000")
        assert note_text(app) == squeeze(t("ui.budget.range", "zh", money="¥5,000", low="¥3,000"))


async def test_not_sure_leaves_the_budget_open(tmp_path):
    app = make_app("zh", machine=machine("vm-no-gpu"), report_path=tmp_path / "r.toml")
    async with app.run_test() as pilot:
        await at_step(pilot, "welcome")
        app.goto(4)
        await at_step(pilot, "budget")
        await pilot.click("#unsure")
        await at_step(pilot, "goal")
        await pilot.press("ctrl+n")
        await at_step(pilot, "result")
        path = await save(pilot)
    answers = read(path)["answers"]
    assert "budget_amount" not in answers
    assert answers["budget_currency"] == "CNY"


async def test_overriding_detection_is_saved_and_the_advice_says_so(tmp_path):
    app = make_app("en", machine=machine("laptop-4060"), report_path=tmp_path / "r.toml")
    async with app.run_test() as pilot:
        await at_step(pilot, "welcome")
        await pilot.press("enter")
        await answer(pilot, "need_gpu", "yes")
        await at_step(pilot, "has_nvidia")
        assert app.screen.query_one("#answer", Choices).current == "yes"   # pre-filled
        assert "RTX4060" in note_text(app)
        await choose(pilot, "no")
        await at_step(pilot, "form_factor")
        assert app.screen.query_one("#answer", Choices).current == "laptop"
        await choose(pilot, "desktop")
        await type_budget(pilot, "1000")
        await pilot.press("enter")
        await answer(pilot, "goal", None)
        await at_step(pilot, "result")
        path = await save(pilot)
    report = read(path)
    assert report["answers"]["has_nvidia"] == "no"
    assert report["answers"]["form_factor"] == "desktop"
    said = t("advice.reason.said-no-nvidia-found", "en", gpu="NVIDIA GeForce RTX 4060 Laptop GPU")
    assert said in report["recommendation"]["reasons"]


# ------------------------------------------------------------------ live probing ---

@dataclass
class Gate:
    event: threading.Event
    calls: int = 0


class GatedProbes:
    """Fake probes that answer only when the test releases them (or raise, if told to)."""

    def __init__(self, recorded, benchmark: Benchmark | None = None, fail: dict | None = None):
        live = from_machine(recorded)
        torch = live.torch
        if benchmark is not None and torch is not None:
            torch = (torch[0], benchmark, torch[2])
        self.results = {"system": live.system, "nvidia": live.nvidia, "hardware": live.hardware,
                        "torch": torch}
        self.fail = fail or {}
        self.gates = {name: Gate(threading.Event()) for name in self.results}

    def _probe(self, name):
        def run():
            gate = self.gates[name]
            gate.calls += 1
            gate.event.wait(20)
            if name in self.fail:
                raise self.fail[name]
            return self.results[name]
        return run

    def probes(self) -> Probes:
        return Probes(**{name: self._probe(name) for name in self.results})

    def release(self, *names: str) -> None:
        for name in names or tuple(self.gates):
            self.gates[name].event.set()

    def __enter__(self) -> GatedProbes:
        return self

    def __exit__(self, *exc) -> None:
        self.release()   # no probe thread is left waiting after the test


def panel(app) -> CheckPanel:
    return app.screen.query_one("#checks", CheckPanel)


def _data_check_app(gated: GatedProbes, report: Path, check_after: float):
    app = make_app("en", probes=gated.probes(), report_path=report)
    app.CONTENT_CHECK_AFTER_S = check_after
    return app


async def test_the_data_check_waits_for_every_probe_or_a_step_that_needs_it(tmp_path):
    """Started beside the probes, the data check's parsing, theirs and the torch child took
    turns with the event loop (stalls of 90 ms on 2 cores): it starts once every probe has
    answered, after CONTENT_CHECK_AFTER_S when one hangs, or at once when a step that needs
    the data is asked for first; never with the first screen."""
    with GatedProbes(machine("laptop-4060")) as gated:
        app = _data_check_app(gated, tmp_path / "r.toml", 30.0)
        async with app.run_test() as pilot:
            await at_step(pilot, "welcome")
            await pilot.pause(0.3)
            assert not app._content_check_started
            gated.release("system", "hardware", "nvidia")
            await until(pilot, lambda: app.state.live.quick_settled, what="the quick probes")
            await pilot.pause(0.3)
            assert not app._content_check_started                      # torch is still loading
            gated.release("torch")
            await until(pilot, lambda: app._content_ready, what="the data check")

    with GatedProbes(machine("laptop-4060")) as hung:
        app = _data_check_app(hung, tmp_path / "r2.toml", 0.2)
        async with app.run_test() as pilot:
            await at_step(pilot, "welcome")
            await until(pilot, lambda: app._content_ready, what="the data check despite a hung probe")
            assert not app.state.live.settled("nvidia")

    # A user faster than the probes: the first step that reads the data (the CPU-vs-GPU
    # comparison of need_gpu, the budget's currencies) starts the check and opens when it is
    # done, instead of reading the data on the event loop (a crash, if a file is damaged).
    for step in ("need_gpu", "budget"):
        with GatedProbes(machine("laptop-4060")) as waiting:
            app = _data_check_app(waiting, tmp_path / f"r-{step}.toml", 30.0)
            async with app.run_test() as pilot:
                await at_step(pilot, "welcome")
                waiting.release("system", "hardware", "nvidia")
                await pilot.pause(0.2)
                assert not app._content_check_started
                app.goto(STEPS.index(step))
                assert app._content_check_started, step
                await at_step(pilot, step)         # opens once the data is read
                assert not app.state.live.settled("torch")


async def test_first_screen_is_usable_before_any_probe_answers(tmp_path):
    gated = GatedProbes(machine("laptop-4060"))
    app = make_app("en", probes=gated.probes(), report_path=tmp_path / "r.toml")
    try:
        async with app.run_test() as pilot:
            await at_step(pilot, "welcome")
            assert all(g.calls == 1 for g in gated.gates.values())    # all started at launch
            assert [c.kind for c in panel(app).checks] == ["pending"] * 4
            await pilot.press("enter")                                  # still answering keys
            await at_step(pilot, "need_gpu")
            await choose(pilot, "yes")
            await at_step(pilot, "has_nvidia")
            assert app.screen.query_one("#answer", Choices).current == "unsure"
            assert panel(app).checks[0].kind == "pending"

            gated.release("system", "hardware", "nvidia")               # detection arrives…
            await until(pilot, lambda: app.screen.query_one("#answer", Choices).current == "yes",
                        what="the NVIDIA answer to be pre-filled")
            kinds = [c.kind for c in panel(app).checks]
            assert kinds[0] == "ok" and "pending" in kinds              # …torch still loading
            await pilot.press("ctrl+n")
            await answer(pilot, "form_factor", None)
            await type_budget(pilot, "700")
            await pilot.press("enter")
            await answer(pilot, "goal", None)
            await at_step(pilot, "result")
            assert not app.screen.query("#verdict")                     # no advice on a guess
            assert panel(app).checks[0].kind == "pending"
            gated.release("torch")
            await until(pilot, lambda: bool(app.screen.query("#verdict")), what="the advice")
            path = await save(pilot)
    finally:
        gated.release()
    report = read(path)
    assert report["answers"]["has_nvidia"] == "yes"
    assert report["answers"]["form_factor"] == "laptop"
    assert report["machine"]["torch"]["version"] == "2.13.0+cpu"


async def test_a_user_answer_is_not_replaced_by_late_detection():
    gated = GatedProbes(machine("laptop-4060"))
    app = make_app("en", probes=gated.probes())
    try:
        async with app.run_test() as pilot:
            await at_step(pilot, "welcome")
            app.goto(2)
            await at_step(pilot, "has_nvidia")
            await choose(pilot, "no")
            await at_step(pilot, "form_factor")
            await pilot.press("escape")
            await at_step(pilot, "has_nvidia")
            gated.release()
            await until(pilot, lambda: app.state.live.all_settled, what="the probes")
            await pilot.pause()
            assert app.screen.query_one("#answer", Choices).current == "no"
    finally:
        gated.release()


async def test_a_failed_probe_says_unknown_and_the_advice_still_comes(tmp_path):
    gated = GatedProbes(machine("vm-no-gpu"), fail={"nvidia": RuntimeError("NVML exploded")})
    gated.release()
    app = make_app("en", probes=gated.probes(), report_path=tmp_path / "r.toml")
    async with app.run_test() as pilot:
        await until(pilot, lambda: app.state.live.all_settled, what="the probes")
        await at_step(pilot, "welcome")
        await pilot.pause()
        texts = [c.text for c in panel(app).checks]
        assert t("ui.probe.failed", "en", name=t("ui.probe.nvidia", "en"),
                 reason="NVML exploded") in texts
        assert not any("RuntimeError" in text for text in texts)
        await open_at(pilot, "result")
        path = await save(pilot)
    report = read(path)
    assert report["machine"]["nvidia"]["status"] == "error"
    assert validate_report(report) == []


async def test_measured_speed_is_shown_on_the_need_gpu_step_and_the_result():
    bench = Benchmark(cpu_gflops=200.0, matrix_size=2048, dtype="float32", gpu_tflops=20.0,
                      gpu_name="NVIDIA GeForce RTX 4060 Laptop GPU")
    gated = GatedProbes(machine("laptop-4060"), benchmark=bench)
    gated.release()
    app = make_app("en", probes=gated.probes())
    async with app.run_test() as pilot:
        await until(pilot, lambda: app.state.live.all_settled, what="the probes")
        await at_step(pilot, "welcome")
        await pilot.press("enter")
        await at_step(pilot, "need_gpu")
        speed = t("ui.check.bench_gpu", "en", gpu=bench.gpu_name, tflops="20", ratio="100")
        assert speed in [c.text for c in panel(app).checks]
        await pilot.press("escape")
        await open_at(pilot, "result")
        assert speed in [c.text for c in app.screen.query_one("#bench", CheckPanel).checks]


# ------------------------------------------------------------------ the result page ---

async def test_result_has_picks_table_chart_platforms_and_a_copyable_command(tmp_path):
    @dataclass
    class Choice:
        command: str = "pip install torch --index-url https://download.pytorch.org/whl/cpu"
        reason: str = ""

    app = make_app("en", machine=machine("vm-no-gpu"), torch_chooser=lambda m, lang: Choice())
    async with app.run_test(size=(100, 40)) as pilot:
        await open_at(pilot, "result", form_factor="desktop", budget="1500", goal="learning")
        rec = app.state.outcome().recommendation
        assert rec.gpus, "a desktop with $1,500 gets picks"
        screen = app.screen
        verdict = shown(screen.query_one("#verdict"))
        assert verdict == squeeze(t(f"advice.verdict.{rec.verdict}", "en"))
        table = screen.query_one("#picks")
        assert table.row_count == len(rec.gpus)
        chart = "\n".join(s.text for s in screen.query_one("#chart").render_lines(
            screen.query_one("#chart").region.reset_offset))
        for pick in rec.gpus:
            assert pick.name[:20] in chart
        assert "█" in chart
        platforms = screen.query_one("#platforms").plain
        assert rec.platforms[0].name in platforms
        # Buying is the action: no install line for a computer that is to be replaced.
        assert rec.action == "buy" and not screen.query("#torch-command")
        assert shown(screen.query_one("#action")) == squeeze(t("present.action.buy", "en"))
    assert Choice.command not in exit_summary(app)


async def test_the_install_line_is_copyable_where_installing_is_the_action():
    app = make_app("en", machine=machine("laptop-4060"))
    async with app.run_test(size=(100, 40)) as pilot:
        await open_at(pilot, "result", budget="1500", goal="learning")
        rec = app.state.outcome().recommendation
        assert rec.action == "install" and rec.torch_command
        command = app.screen.query_one("#torch-command")
        assert squeeze(rec.torch_command) in shown(command) and command.allow_select
        assert "torch.cuda.is_available()" in shown(app.screen.query_one("#verify-command"))
        await pilot.press("c")
        assert app.clipboard == rec.torch_command
    assert rec.torch_command in exit_summary(app)


async def test_a_cu126_command_stays_on_one_line_at_80_columns():
    """A wrapped command pasted by halves installs the wrong build; 76 columns must fit."""
    app = make_app("en", machine=machine("desktop-1080ti"))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_at(pilot, "result", budget="3000", goal="learning")
        command = app.state.outcome().recommendation.torch_command
        assert command.endswith("/whl/cu126") and len(command) >= 76
        widget = app.screen.query_one("#torch-command")
        assert widget.region.height == 1, widget.region
        assert shown(widget) == squeeze(command)


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_the_results_first_screen_holds_verdict_reason_and_command(lang):
    """At 80×24, without scrolling: the verdict, its sentence and the whole install command."""
    app = make_app(lang, machine=machine("laptop-4060"))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_at(pilot, "result", budget="1500", goal="llm-finetune")
        screen = app.screen
        body = screen.query_one("#body")
        assert body.scroll_y == 0
        bottom = screen.query_one("Footer").region.y - 1   # the button row sits above the footer
        for name in ("#verdict", "#headline", "#torch-command"):
            region = screen.query_one(name).region
            assert region.height and region.bottom <= bottom, (name, region, bottom)
        assert screen.query_one("#torch-command").region.height == 1
        # The details come after it, not before: the reasons start below the command.
        assert screen.query_one("#reasons").region.y > screen.query_one("#torch-command").region.y


async def test_the_result_says_why_the_gpu_build_is_bigger_with_this_machines_torch():
    app = make_app("en", machine=machine("laptop-4060"))
    async with app.run_test(size=(100, 40)) as pilot:
        await open_at(pilot, "result", budget="1500", goal="llm-finetune")
        text = shown(app.screen.query_one("#torch-size"))
        info = app.state.live.torch_info()
        assert "cuDNN" in text and squeeze(f"{info.install_size_mb:g} MB") in text and "3.0GB" in text


async def test_a_laptop_budget_that_buys_the_card_but_not_a_pc_says_so():
    from wizard.advise import format_money, gpu_candidates

    knowledge = load_knowledge()
    cheapest = min(gpu_candidates(knowledge, knowledge.goal("kaggle"), "USD", "en"), key=lambda p: p.price)
    app = make_app("en", machine=machine("vm-no-gpu"))
    async with app.run_test(size=(80, 60)) as pilot:
        budget = str(int(cheapest.price) + 50)
        await open_at(pilot, "result", form_factor="laptop", budget=budget, goal="kaggle")
        await until(pilot, lambda: app.state.outcome() is not None, what="the advice")
        rec = app.state.outcome().recommendation
        texts = [squeeze(shown(w)) for w in app.screen.query("Static.muted")]
    total = format_money(rec.cheapest_total, "USD", knowledge)
    assert any(cheapest.name.replace(" ", "") in text and total in text and "wholePC" in text for text in texts), texts


async def test_copy_without_a_command_warns_instead_of_copying():
    app = make_app("en", machine=machine("laptop-4060"), torch_chooser=lambda m, lang: None)
    told = Told(app)
    async with app.run_test() as pilot:
        await open_at(pilot, "result")
        before = len(told.items)
        await pilot.press("c")
        await until(pilot, lambda: len(told.items) > before, what="the warning")
        assert told.items[before:] == [(t("guide.result.no_torch_command", "en"), "warning")]
        assert app.clipboard == ""


# ------------------------------------------------------------------------ saving ---

async def save_into_the_exists_dialog(pilot, app) -> None:
    """Open the save step, press Save, and wait for "that name is taken"."""
    await open_at(pilot, "save")
    await pilot.press("enter")
    await until(pilot, lambda: type(app.screen).__name__ == "ExistsDialog", what="the dialog")


async def test_an_existing_file_is_never_overwritten(tmp_path):
    target = tmp_path / "report.toml"
    target.write_text("precious = true\n", encoding="utf-8")
    app = make_app("en", machine=machine("laptop-4060"), report_path=target)
    async with app.run_test() as pilot:
        await save_into_the_exists_dialog(pilot, app)
        assert "report-2.toml" in str(app.screen.query_one("#next-free").label)
        await pilot.press("enter")                       # "Save as report-2.toml"
        await until(pilot, lambda: app.state.saved_path is not None, what="saving")
    assert target.read_text(encoding="utf-8") == "precious = true\n"
    assert app.state.saved_path == tmp_path / "report-2.toml"
    assert validate_report(read(app.state.saved_path)) == []


async def test_choosing_another_name_after_exists(tmp_path):
    target = tmp_path / "report.toml"
    target.write_text("x = 1\n", encoding="utf-8")
    app = make_app("zh", machine=machine("laptop-4060"), report_path=target)
    async with app.run_test() as pilot:
        await save_into_the_exists_dialog(pilot, app)
        await pilot.click("#other")
        await at_step(pilot, "save")
        field = app.screen.query_one("#path")
        assert field.has_focus and app.state.saved_path is None
        field.value = str(tmp_path / "mine.toml")
        await pilot.press("enter")
        await until(pilot, lambda: app.state.saved_path is not None, what="saving")
    assert app.state.saved_path == tmp_path / "mine.toml"
    assert read(app.state.saved_path)["language"] == "zh"


async def test_a_read_only_folder_offers_the_home_folder(tmp_path, monkeypatch):
    import tempfile

    locked = tmp_path / "locked"
    locked.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    real_mkstemp = tempfile.mkstemp

    def mkstemp(*args, dir=None, **kwargs):
        # Tests may run as root, which ignores file modes: refuse the write the way a
        # read-only folder does.
        if Path(dir) == locked:
            raise PermissionError(13, "Permission denied")
        return real_mkstemp(*args, dir=dir, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    app = make_app("en", machine=machine("laptop-4060"), report_path=locked / "r.toml", home=home)
    async with app.run_test() as pilot:
        await open_at(pilot, "save")
        await pilot.press("enter")
        await until(pilot, lambda: "-error" in app.screen.query_one("#note").classes,
                    what="the error")
        assert app.state.saved_path is None
        button = app.screen.query_one("#home")
        assert button.display and "hidden" not in button.classes
        await pilot.click("#home")
        await until(pilot, lambda: app.state.saved_path is not None, what="saving at home")
    assert app.state.saved_path == home / "r.toml"
    assert list(locked.iterdir()) == []


async def test_a_folder_as_the_path_saves_the_default_name_inside_it(tmp_path):
    import datetime as dt

    app = make_app("en", machine=machine("laptop-4060"), cwd=tmp_path,
                   now=lambda: dt.datetime(2026, 11, 30, 12, 0, 0))
    async with app.run_test() as pilot:
        await open_at(pilot, "save")
        field = app.screen.query_one("#path")
        assert field.value == str(tmp_path / "gpu-report-20261130-120000.toml")
        field.value = str(tmp_path)
        await pilot.press("enter")
        await until(pilot, lambda: app.state.saved_path is not None, what="saving")
    assert app.state.saved_path == tmp_path / "gpu-report-20261130-120000.toml"


async def test_a_dangling_link_is_a_taken_name_and_the_dialog_offers_a_free_one(tmp_path):
    target = tmp_path / "report.toml"
    target.symlink_to(tmp_path / "nowhere")
    app = make_app("en", machine=machine("laptop-4060"), report_path=target)
    async with app.run_test() as pilot:
        await save_into_the_exists_dialog(pilot, app)
        assert "report-2.toml" in str(app.screen.query_one("#next-free").label)
        await pilot.press("enter")
        await until(pilot, lambda: app.state.saved_path is not None, what="saving")
    assert app.state.saved_path == tmp_path / "report-2.toml"
    assert target.is_symlink() and not (tmp_path / "nowhere").exists()


async def test_a_deleted_current_folder_is_explained_and_home_offered(tmp_path, monkeypatch):
    gone, home = tmp_path / "gone", tmp_path / "home"
    gone.mkdir()
    home.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    app = make_app("en", machine=machine("laptop-4060"), home=home)
    async with app.run_test() as pilot:
        await open_at(pilot, "save")
        field = app.screen.query_one("#path")
        assert Path(field.value).parent == home       # the default goes where it can be saved
        field.value = "mine.toml"
        await pilot.press("enter")
        await until(pilot, lambda: "-error" in app.screen.query_one("#note").classes, what="the error")
        assert "currentfoldernolongerexists" in note_text(app)   # shown() drops spaces
        await pilot.click("#home")
        await until(pilot, lambda: app.state.saved_path is not None, what="saving at home")
    assert app.state.saved_path == home / "mine.toml"


async def test_quitting_midway_saves_nothing(tmp_path):
    app = make_app("en", machine=machine("laptop-4060"), cwd=tmp_path,
                   report_path=tmp_path / "r.toml")
    async with app.run_test() as pilot:
        await open_at(pilot, "save")
        await pilot.press("ctrl+q")
        await until(pilot, lambda: app.return_code is not None, what="the wizard to quit")
    assert app.return_code == 0 and app.return_value is None   # quit, not finished
    assert list(tmp_path.iterdir()) == []
    assert exit_summary(app).startswith(t("ui.exit.not_saved", "en"))


async def test_finish_after_saving_exits_with_zero(tmp_path):
    app = make_app("en", machine=machine("h200-server"), report_path=tmp_path / "r.toml")
    async with app.run_test() as pilot:
        await open_at(pilot, "result")
        await save(pilot)
        await pilot.press("enter")
        await until(pilot, lambda: app.return_value is not None, what="the exit")
    assert app.return_value == 0
    assert str(tmp_path / "r.toml") in exit_summary(app)


# ---------------------------------------------------------------- language & keys ---

async def test_language_switch_keeps_the_typed_budget_and_translates():
    app = make_app("en", machine=machine("laptop-4060"))
    async with app.run_test() as pilot:
        await at_step(pilot, "welcome")
        app.goto(4)
        await type_budget(pilot, "３000")
        await pilot.press("f2")
        await until(pilot, lambda: app.lang == "zh" and app.screen.is_mounted, what="zh")
        await at_step(pilot, "budget")
        assert app.screen.query_one("#amount").value == "３000"
        question = shown(app.screen.query_one("#question"))
        assert question == squeeze(t("guide.questions.budget_amount", "zh"))
        keys = {b.binding.key: b.binding.description for b in app.screen.active_bindings.values()}
        assert keys["escape"] == t("ui.keys.back", "zh") and keys["f2"] == "English"
        await pilot.press("f2")
        await until(pilot, lambda: app.lang == "en", what="en")


async def test_f1_opens_help_for_the_step_and_escape_closes_it():
    app = make_app("zh", machine=machine("laptop-4060"))
    async with app.run_test() as pilot:
        await at_step(pilot, "welcome")
        app.goto(4)
        await at_step(pilot, "budget")
        await pilot.press("f1")
        await until(pilot, lambda: type(app.screen).__name__ == "HelpScreen", what="help")
        assert app.screen.step == "budget"
        await pilot.press("escape")
        await at_step(pilot, "budget")   # Escape closed the help, not the step


async def test_mouse_works_click_an_answer_and_the_buttons(tmp_path):
    app = make_app("en", machine=machine("vm-no-gpu"))
    async with app.run_test(size=(100, 40)) as pilot:
        await at_step(pilot, "welcome")
        await pilot.click("#next")
        await at_step(pilot, "need_gpu")
        choices = app.screen.query_one("#answer", Choices)
        await pilot.click(Choices, offset=(4, choices.values.index("no")))
        await at_step(pilot, "has_nvidia")
        assert app.state.session.answers.need_gpu == "no"
        await pilot.click("#back")
        await at_step(pilot, "need_gpu")


async def test_small_terminal_40x12_walks_to_the_end(tmp_path):
    app = make_app("zh", machine=machine("desktop-1080ti"), report_path=tmp_path / "r.toml")
    async with app.run_test(size=(40, 12)) as pilot:
        await at_step(pilot, "welcome")
        assert app.screen.has_class("-short")
        await pilot.press("enter")
        await at_step(pilot, "need_gpu")
        # Everything scrolls: the focused answer is brought into view, not clipped.
        answer_widget = app.screen.query_one("#answer")
        body = app.screen.query_one("#body")
        assert body.max_scroll_y > 0
        assert answer_widget.region.overlaps(app.screen.region)
        await pilot.press("ctrl+n")
        await answer(pilot, "has_nvidia", None)
        await answer(pilot, "form_factor", None)
        await type_budget(pilot, "9000")
        await pilot.press("enter")
        await answer(pilot, "goal", None)
        await at_step(pilot, "result")
        path = await save(pilot)
    assert read(path)["answers"]["budget_amount"] == 9000


async def test_no_color_is_honoured(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app("en", machine=machine("laptop-4060"))
    async with app.run_test() as pilot:
        await at_step(pilot, "welcome")
        assert app.no_color
        assert app.screen.query_one("#next").has_pseudo_class("nocolor")


# ------------------------------------------------------------------- small rules ---

@pytest.mark.parametrize("env, expected", [
    ({"LANG": "C"}, True),
    ({"LANG": "POSIX"}, True),
    ({"LC_ALL": "C", "LANG": "en_US.UTF-8"}, True),
    ({"LANG": "zh_CN.UTF-8"}, False),
    ({"LANG": "en_US.utf8"}, False),
    ({"LC_CTYPE": "C.UTF-8"}, False),
    ({}, True),
])
def test_ascii_marks_follow_the_users_locale(env, expected):
    if os.name == "nt":
        pytest.skip("Windows terminals are UTF-8")
    assert ascii_terminal(env) is expected


async def test_lang_c_draws_ascii_marks():
    app = make_app("en", machine=machine("laptop-4060"), ascii_marks=True)
    async with app.run_test() as pilot:
        await at_step(pilot, "welcome")
        plain = panel(app).plain
        assert "[ok]" in plain and "✓" not in plain
        assert app.screen.has_class("-ascii")


@pytest.mark.parametrize("name", MACHINE_NAMES)
def test_recorded_machine_and_live_probes_give_the_same_machine(name):
    """A recording split into the probes' slots and assembled again, as the live wizard
    assembles what its probes return, is the machine recorded: the wizard shows a recorded
    machine and a live one the same way."""
    from dataclasses import replace

    recorded = machine(name)
    # Without the recording beside them, gpus() and machine() use only what the probes filled.
    live = replace(from_machine(recorded), recorded=None)
    assert live.all_settled
    assert live.gpus() == recorded.gpus
    # Facts only, in every language: the screens word them as they draw.
    assert live.machine() == recorded


def test_torch_probe_missing_is_skipped_not_pending():
    recorded = machine("vm-no-gpu")
    from dataclasses import replace

    live = from_machine(replace(recorded, torch=None))
    assert live.state("torch") == "skipped"
    assert live.all_settled


def test_chart_bars_scale_to_the_largest_value_and_cut_long_labels():
    from screens.chart import Bar, render

    lines = render([Bar("GeForce RTX 5060 Ti 16GB", 400.0, "$400"), Bar("B", 200.0, "$200"),
                    Bar("显卡名字很长很长很长很长很长很长", None, "no price")], width=50, fill="#")
    assert len(lines) == 3
    assert lines[0].count("#") == 2 * lines[1].count("#")
    assert "#" not in lines[2] and lines[2].endswith("no price")
    # Labels share one column, cut to fit (Chinese characters count two cells).
    from wizard.text.output import cell_width

    starts = {cell_width(line.split(" #")[0].split(" no price")[0][:26]) for line in lines[:2]}
    assert len(starts) == 1
    assert all(cell_width(line) <= 50 for line in lines)


# ------------------------------------------------------------- guide Markdown ---

def _draw(markdown: str, width: int = 40, **styles) -> str:
    from rich.console import Console

    from screens.markdown_lite import Styles, render

    console = Console(width=width, color_system=None, record=True, file=io.StringIO())
    console.print(render(markdown, Styles(**styles)))
    return "\n".join(line.rstrip() for line in console.export_text().splitlines())


def test_guide_markdown_blocks_and_inline_styles():
    from screens.markdown_lite import Styles, inline

    page = ("# Title\n\nA *slanted* and **bold** word, `code`, [a link](https://x.org).\n\n"
            "- one\n  continued\n- two\n\n1. first\n2. second\n\n"
            "| Goal | Min |\n|---|---|\n| Learn | 2 GB |\n\n```\nimport torch\n```\n")
    drawn = _draw(page)
    assert drawn.splitlines()[0] == "Title"
    assert "A slanted and bold word, code, a link (https://x.org)." in " ".join(drawn.split("\n"))
    assert "• one continued" in drawn and "• two" in drawn
    assert "1. first" in drawn and "2. second" in drawn
    assert "Learn" in drawn and "2 GB" in drawn and "|---|" not in drawn
    assert "  import torch" in drawn
    text = inline("x **b** *i* `c`", Styles())
    assert text.plain == "x b i c"
    styles = {text.plain[span.start:span.end]: span.style for span in text.spans}
    assert styles["b"].bold and styles["i"].italic and styles["c"].bold


def test_guide_markdown_never_reads_brackets_as_markup_and_keeps_unknown_text():
    drawn = _draw("Run [bold]x[/bold] and [link]\n\n> quoted line\n\n<div>raw</div>", width=60)
    assert "[bold]x[/bold]" in drawn and "[link]" in drawn
    assert "quoted line" in drawn and "<div>raw</div>" in drawn


def test_guide_markdown_wraps_chinese_between_characters_with_hanging_indent():
    drawn = _draw("- 两张卡并不能让一个模型拥有两倍显存，所以显存最小的那张卡决定上限。\n", width=24)
    lines = drawn.splitlines()
    assert lines[0].startswith("• 两张卡")
    assert all(line.startswith("  ") for line in lines[1:])      # hanging indent
    from wizard.text.output import cell_width

    assert all(cell_width(line) <= 24 for line in lines)
    assert all(not line.strip().startswith(("，", "。")) for line in lines)  # no line starts with ，
    # Chinese lines of one paragraph join without a space.
    assert _draw("第一行\n第二行", width=40).strip() == "第一行第二行"
    assert _draw("first\nsecond", width=40).strip() == "first second"


def test_guide_markdown_ascii_bullets():
    assert _draw("- item", ascii_only=True).strip() == "* item"


def test_every_guide_page_renders_at_40_columns():
    from wizard.knowledge.content import content_dir
    from wizard.text.output import cell_width

    for page in sorted(content_dir().glob("*/*.md")):
        drawn = _draw(page.read_text(encoding="utf-8"), width=40)
        assert drawn.strip(), page
        assert all(cell_width(line) <= 40 for line in drawn.splitlines()), page


def test_explicit_line_breaks_start_a_new_wrapped_line():
    from rich.console import Console
    from rich.text import Text

    from screens.markdown_lite import Wrapped

    console = Console(width=20, color_system=None, record=True, file=io.StringIO())
    console.print(Wrapped(Text("short\nsecond line that wraps here")))
    lines = [line.rstrip() for line in console.export_text().splitlines()]
    assert lines == ["short", "second line that", "wraps here"]


def test_opening_brackets_stay_with_what_follows():
    from screens.markdown_lite import wrap_offsets

    text = "换成 CUDA 版（pip 会替换掉旧的）"
    breaks = wrap_offsets(text, 14)
    assert breaks and all(text[b - 1] != "（" for b in breaks)


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_the_nvidia_step_says_why_the_gpu_build_is_bigger(lang):
    app = make_app(lang, machine=machine("laptop-4060"))
    async with app.run_test(size=(100, 40)) as pilot:
        await open_at(pilot, "has_nvidia")
        await until(pilot, lambda: "3.0 GB" in " ".join(c.text for c in panel(app).checks),
                    what="the size check")
        texts = " ".join(c.text for c in panel(app).checks)
        assert "757 MB" in texts and "0.2 GB" in texts


async def test_one_bar_is_not_drawn_as_a_comparison():
    app = make_app("en", machine=machine("vm-no-gpu"))
    async with app.run_test(size=(100, 40)) as pilot:
        await open_at(pilot, "result", form_factor="desktop", budget="240", goal="learning")
        picks = app.state.outcome().recommendation.gpus
        assert len(picks) == 1, picks
        assert not app.screen.query("#chart")
    app = make_app("en", machine=machine("vm-no-gpu"))
    async with app.run_test(size=(100, 40)) as pilot:
        await open_at(pilot, "result", form_factor="desktop", budget="2000", goal="learning")
        assert len(app.state.outcome().recommendation.gpus) > 1 and app.screen.query("#chart")
