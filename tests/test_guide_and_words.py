"""Reading the guide whole (G), the guide pane's first rows, and the words explained (F1, W).

Driven with keys through Textual's Pilot on a recorded machine, as tests/test_app_flow.py does;
each test opens its step with the earlier steps answered (tests.pilot.open_at).
"""

from __future__ import annotations

import re

import pytest
from rich.console import Console
from textual.geometry import Region
from textual.widgets import Input

from screens import markdown_lite
from screens.app import make_app, screen_class
from screens.reader import ReaderScreen
from screens.step import STEPS
from screens.strings import guide_page
from screens.widgets import Choices, Guide
from tests.pilot import at_step, open_at, squeeze, type_budget, until
from tests.recorded import machine
from wizard.knowledge.content import content_dir
from wizard.text.i18n import t

GUIDE_STEPS = [step for step in STEPS if screen_class(step).PAGES]


pytestmark = pytest.mark.usefixtures("quiet_terminal")


def test_every_step_with_a_question_before_the_result_has_a_guide():
    assert GUIDE_STEPS == ["welcome", "need_gpu", "has_nvidia", "form_factor", "budget", "goal"]


def lines(widget, top: int = 0, height: int | None = None) -> list[str]:
    """The rows a widget draws, from `top`, `height` of them (all by default)."""
    height = widget.size.height - top if height is None else height
    return [strip.text for strip in widget.render_lines(Region(0, top, widget.size.width, height))]


def step_state(screen) -> dict:
    """What the user has set on a step so far: the highlighted and marked answer, the text typed."""
    state = {}
    for choices in screen.query(Choices):
        state[choices.id] = (choices.highlighted, choices.current)
    for field in screen.query(Input):
        state[field.id] = field.value
    return state


async def open_guide(pilot, app) -> ReaderScreen:
    await pilot.press("g")
    await until(pilot, lambda: isinstance(app.screen, ReaderScreen) and app.screen.is_mounted,
                what="the whole guide")
    await pilot.pause()
    return app.screen


# ------------------------------------------------------------------- the whole guide ---

@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("step", GUIDE_STEPS)
async def test_g_opens_the_whole_guide_and_escape_returns_to_the_step_as_it_was(step, lang):
    app = make_app(lang, machine=machine("laptop-4060"))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_at(pilot, step)
        screen = app.screen
        if step == "budget":
            await type_budget(pilot, "800")
            await pilot.press("shift+tab")      # off the amount: there G types a letter
            assert not isinstance(app.focused, Input)
        elif screen.query(Choices):
            await pilot.press("down")           # the highlight moves; nothing is chosen yet
        before = step_state(screen)
        assert t("ui.keys.guide", lang) in [b.binding.description for b in screen.active_bindings.values()
                                              if b.binding.show and b.enabled]

        reader = await open_guide(pilot, app)
        # The whole page (the title bar names the step), without the pane's hint about G.
        assert reader.query_one(Guide).markdown == guide_page(lang, *screen.PAGES)
        assert t("guide.steps." + step, lang) in str(reader.query_one("#step-title").render())
        # Scrolled by keyboard to the end and back.
        body = reader.query_one("#reader-body")
        assert app.focused is body and body.max_scroll_y > 0
        await pilot.press("down")
        await until(pilot, lambda: body.scroll_y == 1, what="one row down")
        await pilot.press("pagedown")
        await until(pilot, lambda: body.scroll_y > 1 or body.scroll_y == body.max_scroll_y, what="a page down")
        await pilot.press("end")
        await until(pilot, lambda: body.scroll_y == body.max_scroll_y, what="the end")
        # The page's last row is in view.
        assert body.scroll_y + body.scrollable_content_region.height >= reader.query_one(Guide).outer_size.height
        await pilot.press("pageup")
        await until(pilot, lambda: body.scroll_y < body.max_scroll_y, what="a page up")
        await pilot.press("home")
        await until(pilot, lambda: body.scroll_y == 0, what="the top")

        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, what="the step again")
        assert app.screen.STEP == step and step_state(screen) == before


async def test_q_and_the_close_button_close_the_guide_too():
    app = make_app("en", machine=machine("laptop-4060"))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_at(pilot, "goal")
        screen = app.screen
        await open_guide(pilot, app)
        await pilot.press("q")
        await until(pilot, lambda: app.screen is screen, what="the step after Q")
        await open_guide(pilot, app)
        await pilot.click("#reader-close")
        await until(pilot, lambda: app.screen is screen, what="the step after Close")
        await pilot.press("ctrl+n")                     # and the step still works
        await at_step(pilot, "result")


async def test_g_types_into_the_budget_field_instead_of_opening_the_guide():
    app = make_app("en", machine=machine("laptop-4060"))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_at(pilot, "budget")
        await type_budget(pilot, "5")
        field = app.screen.query_one("#amount", Input)
        assert app.focused is field
        await pilot.press("g")
        await pilot.pause()
        assert app.screen.STEP == "budget" and field.value == "5g"
        # Nor does the footer offer it while typing.
        assert "g" not in [b.binding.key for b in app.screen.active_bindings.values()]


async def test_steps_without_a_guide_neither_offer_nor_open_it():
    app = make_app("en", machine=machine("laptop-4060"))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_at(pilot, "result")
        assert app.screen.check_action("guide", ()) is False
        await pilot.press("g")
        await pilot.pause()
        assert app.screen.STEP == "result"


# ---------------------------------------------------------------- the guide pane at 80×24 ---

def first_text(page: str) -> str:
    """The start of a page's first paragraph after its title, date and headings, as shown."""
    for block in page.split("\n\n")[1:]:
        block = block.strip()
        if block.startswith("#") or re.fullmatch(r"\*[^*]+\*", block, re.S):
            continue
        return squeeze(re.sub(r"[*`]", "", block))[:12]
    raise AssertionError("no text")


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("step", GUIDE_STEPS)
async def test_the_guide_pane_at_80x24_shows_text_not_only_a_heading(step, lang):
    app = make_app(lang, machine=machine("laptop-4060"))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_at(pilot, step)
        await pilot.pause()
        pane = app.screen.query_one("#guide")
        guide = pane.query_one(Guide)
        rows = pane.scrollable_content_region.height
        shown = lines(guide, round(pane.scroll_y), rows)
        page = (content_dir() / lang / f"{screen_class(step).PAGES[0]}.md").read_text(encoding="utf-8")
        start = first_text(page)
        # Two rows of the page's first paragraph are in view, its start among them.
        at = next((i for i in range(len(shown)) if start in squeeze("".join(shown[i:i + 2]))), None)
        assert at is not None and at + 1 < len(shown) and shown[at + 1].strip(), (shown, start)
        # The hint about G ends the pane.
        assert guide.markdown.endswith(f"*{t('ui.reader.more', lang)}*")


async def test_a_tall_guide_pane_starts_at_the_top_and_stays_where_the_reader_scrolls():
    app = make_app("en", machine=machine("laptop-4060"))
    async with app.run_test(size=(80, 50)) as pilot:
        await open_at(pilot, "has_nvidia")
        await pilot.pause()
        pane = app.screen.query_one("#guide")
        assert pane.scroll_y == 0
        pane.focus()
        await pilot.press("down", "down", "down")
        await until(pilot, lambda: pane.scroll_y == 3, what="scrolled")
        await pilot.resize_terminal(80, 30)
        await pilot.pause()
        await pilot.pause()
        assert pane.scroll_y == 3


def test_text_start_skips_a_date_and_a_heading_only_when_the_pane_is_short():
    page = ("*As of 2026-11.*\n\n## A heading\n\n" + "Some words that make a paragraph. " * 6
            + "\n\n## Another\n\nMore.")
    blocks = markdown_lite.layout(page, 40, Console(width=40))
    assert [b.kind for b in blocks] == ["note", "heading", "text", "heading", "text"]
    note, heading, text = blocks[:3]
    assert (note.top, heading.top, text.top) == (0, 2, 4) and text.height > 2
    assert markdown_lite.text_start(blocks, 6) == 0          # date, heading, two rows of text
    assert markdown_lite.text_start(blocks, 5) == heading.top  # the heading over its text
    assert markdown_lite.text_start(blocks, 4) == heading.top
    assert markdown_lite.text_start(blocks, 3) == text.top     # only the text fits
    assert markdown_lite.text_start(blocks, 1) == text.top
    assert markdown_lite.text_start(markdown_lite.layout("## Only a heading", 40, Console(width=40)), 1) == 0


# ------------------------------------------------------------------------ words ---

TERMS = {
    "en": ["VRAM", "compute capability", "driver version", "CUDA version", "TFLOPS", "build", "CUDA build",
           "CPU build", "wheel"],
    "zh": ["显存", "计算能力", "驱动版本", "CUDA 版本", "TFLOPS", "CUDA 版", "CPU 版", "wheel"],
}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("how", ["key", "button"])
async def test_words_open_from_the_help_and_explain_each_term(lang, how):
    app = make_app(lang, machine=machine("laptop-4060"))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_at(pilot, "need_gpu")
        step = app.screen
        await pilot.press("f1")
        await until(pilot, lambda: type(app.screen).__name__ == "HelpScreen", what="help")
        help_screen = app.screen
        if how == "key":
            await pilot.press("w")
        else:
            await pilot.click("#words")
        await until(pilot, lambda: isinstance(app.screen, ReaderScreen) and app.screen.is_mounted,
                    what="the words")
        await pilot.pause()
        words = app.screen
        assert t("ui.reader.words_title", lang) in str(words.query_one("#step-title").render())
        text = squeeze("".join(lines(words.query_one(Guide)))).lower()
        for term in TERMS[lang]:
            assert squeeze(term).lower() in text, term
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is help_screen, what="the help again")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is step, what="the step again")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_help_names_the_keys_for_the_guide_and_the_words(lang):
    keys = t("ui.help.keys", lang)
    assert "**G**" in keys and "**W**" in keys


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_words_page_uses_one_term_per_concept(lang):
    page = (content_dir() / lang / "words.md").read_text(encoding="utf-8")
    headings = [line for line in page.splitlines() if line.startswith("## ")]
    assert len(headings) == 5
    for term in TERMS[lang]:
        assert term.lower() in page.lower(), term
    if lang == "zh":
        # Builds are "X 版"; the card's memory is 显存 and its generation 计算能力.
        assert not re.search(r"构建|算力|显卡内存|CPU 版本|CPU版|CUDA版(?!本)", page)


# ------------------------------------------------------------------ linked terms ---

def _linked_spans(guide: Guide) -> dict[str, str]:
    """term id → the words that link to it, as the guide draws them on the screen."""
    found: dict[str, str] = {}
    for strip in guide.render_lines(Region(0, 0, guide.size.width, guide.size.height)):
        for segment in strip:
            action = (segment.style.meta or {}).get("@click") if segment.style else None
            if action:
                term = re.fullmatch(r"screen\.word\('([a-z-]+)'\)", action).group(1)
                found[term] = (found.get(term, "") + " " + segment.text).strip()
    return found


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_the_first_use_of_a_term_on_a_step_links_to_its_explanation(lang):
    from wizard.text.glossary import terms

    app = make_app(lang, machine=machine("laptop-4060"))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_at(pilot, "has_nvidia")
        guide = app.screen.query_one("#guide Guide", Guide)
        linked = _linked_spans(guide)
        # The NVIDIA step's page speaks of the driver and CUDA versions and of the CUDA build.
        assert {"driver-cuda", "build-wheel"} <= set(linked), linked
        # One link per term: its first use only, though the page uses it again below.
        assert len(guide.linked) == len(set(guide.linked))
        for term_id, words in linked.items():
            term = next(term for term in terms(lang) if term.id == term_id)
            assert term.pattern.fullmatch(words.replace("\n", "").strip()), (term_id, words)
            first = term.pattern.search(markdown_lite.join_lines(guide.markdown.splitlines()))
            assert first is not None

        await pilot.press("g")   # the whole guide links its terms too
        await until(pilot, lambda: isinstance(app.screen, ReaderScreen), what="the whole guide")
        await pilot.pause()
        assert set(_linked_spans(app.screen.query_one(Guide))) >= {"driver-cuda", "build-wheel"}


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_a_linked_term_opens_the_words_page_at_its_explanation(lang):
    from wizard.text.glossary import terms

    app = make_app(lang, machine=machine("laptop-4060"))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_at(pilot, "has_nvidia")
        step = app.screen
        await step.run_action("word('driver-cuda')")
        await until(pilot, lambda: isinstance(app.screen, ReaderScreen) and app.screen.is_mounted,
                    what="the words page")
        await pilot.pause()
        await pilot.pause()
        body = app.screen.query_one("#reader-body")
        shown = "\n".join(lines(body.query_one(Guide), round(body.scroll_y), 4))
        heading = [line for line in words_page_lines(lang) if line.startswith("## ")][
            next(t.section for t in terms(lang) if t.id == "driver-cuda")]
        assert heading[3:].split()[0] in shown, shown
        assert body.scroll_y > 0
        await pilot.press("escape")   # back to the step, as it was
        await until(pilot, lambda: app.screen is step, what="the step again")


def words_page_lines(lang: str) -> list[str]:
    return (content_dir() / lang / "words.md").read_text(encoding="utf-8").splitlines()


def test_the_glossary_names_each_section_of_the_words_page_in_order():
    from wizard.text.glossary import terms

    for lang in ("en", "zh"):
        headings = [line[3:] for line in words_page_lines(lang) if line.startswith("## ")]
        assert len(headings) == len(terms(lang))
        for heading, term in zip(headings, terms(lang)):
            # Each section's heading is written the way the term is matched in the guide.
            assert term.pattern.search(heading) or term.id == "build-wheel" and "wheel" in heading, (lang, heading)


@pytest.mark.parametrize("text, names", [
    ('[[term]]\nid = "vram"\nen = ["VRAM"]\n', "zh"),                      # a language missing
    ('[[term]]\nid = "Vram!"\nen = ["VRAM"]\nzh = ["显存"]\n', "id"),         # not an id
    ('[[term]]\nid = "vram"\nen = ["(VRAM"]\nzh = ["显存"]\n', "en"),         # not a pattern
])
def test_a_damaged_glossary_is_named_and_its_key_said(tmp_path, monkeypatch, text, names):
    from wizard.knowledge.content import ContentError
    from wizard.text import glossary

    (tmp_path / glossary.FILE).write_text(text, encoding="utf-8")
    monkeypatch.setattr(glossary, "content_dir", lambda: tmp_path)
    glossary.terms.cache_clear()
    try:
        with pytest.raises(ContentError) as caught:
            glossary.terms("en")
        assert caught.value.file == "content/glossary.toml"
        assert names in caught.value.reason, caught.value.reason
    finally:
        glossary.terms.cache_clear()
