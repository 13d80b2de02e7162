"""The guide pages and UI strings exist in both languages, read as their language, and stay short.

Pages are shown with Textual's `Markdown` widget only (never in a `Label` or `Static`, where
`[...]` would be read as markup); they still contain no `[` at all, so quoting a line of a page
in a label can never eat text either.
"""

from __future__ import annotations

import re
import string
import tomllib

import pytest

from wizard.knowledge.content import content_dir
from wizard.knowledge.load import load_knowledge

PAGES = ("welcome", "need-gpu", "nvidia", "form-factor", "budget", "goal", "torch-size", "cloud", "result", "words")
LANGS = ("en", "zh")
VERDICTS = ("use-current-gpu", "fix-setup", "use-free-cloud", "rent-cloud", "upgrade-desktop",
            "buy-desktop", "buy-laptop", "no-gpu-needed")
FOUR_CALLS = ("import torch", "torch.__version__", "torch.cuda.is_available()", "torch.cuda.get_device_name(0)")

CJK = re.compile(r"[\u4e00-\u9fff]")
LATIN_WORD = re.compile(r"[A-Za-z]+")


def page(lang: str, name: str) -> str:
    return (content_dir() / lang / f"{name}.md").read_text(encoding="utf-8")


def prose(text: str) -> str:
    """The text without code, which is English in both languages."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def cjk_share(text: str) -> float:
    text = prose(text)
    cjk = len(CJK.findall(text))
    latin = len(LATIN_WORD.findall(text))
    return cjk / max(1, cjk + latin)


@pytest.mark.parametrize("lang", LANGS)
def test_no_page_exists_in_one_language_only(lang):
    other = "zh" if lang == "en" else "en"
    mine = {p.stem for p in (content_dir() / lang).glob("*.md")}
    theirs = {p.stem for p in (content_dir() / other).glob("*.md")}
    assert set(PAGES) <= mine
    assert mine == theirs, f"only in {lang}: {mine - theirs}"


@pytest.mark.parametrize("name", PAGES)
def test_zh_page_reads_as_chinese_and_en_page_as_english(name):
    assert cjk_share(page("zh", name)) > 0.7
    assert cjk_share(page("en", name)) < 0.05


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", PAGES)
def test_page_is_dated(lang, name):
    text = page(lang, name)
    marker = "As of 2026-11" if lang == "en" else "信息截至 2026-11"
    assert marker in text.split("\n\n")[1], "the date belongs right under the title"


@pytest.mark.parametrize("name", PAGES)
def test_page_reads_in_about_a_minute(name):
    words = len(prose(page("en", name)).split())
    assert 120 <= words <= 700, f"en/{name}.md has {words} words"
    hanzi = len(CJK.findall(page("zh", name)))
    assert 200 <= hanzi <= 1000, f"zh/{name}.md has {hanzi} characters"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", PAGES)
def test_page_has_no_square_brackets(lang, name):
    assert "[" not in page(lang, name)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", PAGES)
def test_page_fits_80_columns_where_it_cannot_wrap(lang, name):
    for line in page(lang, name).splitlines():
        if line.startswith("|") or line.startswith("    "):
            assert _width(line) <= 78, f"{lang}/{name}.md: {line!r}"


def _width(line: str) -> int:
    return sum(2 if CJK.match(ch) or "\uff00" <= ch <= "\uffef" else 1 for ch in line)


@pytest.mark.parametrize("name", PAGES)
def test_both_languages_have_the_same_outline(name):
    def outline(text: str) -> list[str]:
        return [line.split(" ", 1)[0] for line in text.splitlines() if line.startswith("#")]
    assert outline(page("en", name)) == outline(page("zh", name))
    assert page("en", name).count("```") == page("zh", name).count("```")


@pytest.mark.parametrize("lang", LANGS)
def test_cloud_page_shows_the_four_torch_calls(lang):
    block = re.search(r"```python\n(.*?)```", page(lang, "cloud"), re.S).group(1)
    assert [line.strip() for line in block.strip().splitlines()] == list(FOUR_CALLS)


@pytest.mark.parametrize("lang", LANGS)
def test_cloud_page_names_every_free_platform_in_mainland_china_and_the_vpn_need(lang):
    text = page(lang, "cloud")
    knowledge = load_knowledge()
    for platform in knowledge.platforms:
        if platform.region == "cn":
            assert platform.name.split()[0] in text or platform.display_name("zh")[:2] in text, platform.id
    assert "VPN" in text


def test_goal_page_numbers_match_the_data_in_both_languages():
    for item in load_knowledge().goals:
        row = f"| {item.min_vram_gb:g} GB | {item.comfortable_vram_gb:g} GB |"
        assert row in page("en", "goal") and row in page("zh", "goal"), item.id


# --- UI strings ------------------------------------------------------------------------------


def strings(lang: str) -> dict[str, str]:
    with (content_dir() / lang / "strings" / "guide.toml").open("rb") as fh:
        data = tomllib.load(fh)
    flat: dict[str, str] = {}

    def walk(prefix: str, table: dict) -> None:
        for key, value in table.items():
            if isinstance(value, dict):
                walk(f"{prefix}{key}.", value)
            else:
                assert isinstance(value, str), f"{lang} {prefix}{key} is not text"
                flat[f"{prefix}{key}"] = value
    walk("", data)
    return flat


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_guide_strings_have_the_same_keys_and_placeholders():
    en, zh = strings("en"), strings("zh")
    assert set(en) == set(zh), f"only en: {set(en) - set(zh)}; only zh: {set(zh) - set(en)}"
    for key in en:
        assert placeholders(en[key]) == placeholders(zh[key]), key
        assert en[key].strip() and zh[key].strip(), key


def test_guide_strings_cover_every_choice_the_wizard_offers():
    en = strings("en")
    from wizard.text.i18n import has

    for verdict in VERDICTS:
        # The verdict's name lives with the advice (one name everywhere); its hint here.
        assert has(f"advice.verdict.{verdict}", "en") and has(f"advice.verdict.{verdict}", "zh")
        assert f"verdict_hints.{verdict}" in en
    for question, options in {"need_gpu": ("yes", "no", "unsure"), "has_nvidia": ("yes", "no", "unsure"),
                              "form_factor": ("desktop", "laptop", "server", "unsure")}.items():
        for option in options:
            assert f"options.{question}.{option}" in en
        assert f"questions.{question}" in en and f"steps.{question}" in en
    for button in ("back", "next", "save", "quit", "help"):
        assert f"buttons.{button}" in en
    for problem in ("not_a_number", "negative", "too_large", "unknown_currency"):
        assert f"budget.{problem}" in en


def test_chinese_strings_read_as_chinese_and_english_ones_do_not():
    for key, text in strings("zh").items():
        assert CJK.search(text), f"zh {key} has no Chinese: {text!r}"
    for key, text in strings("en").items():
        assert not CJK.search(text), f"en {key} has Chinese: {text!r}"


def test_strings_format_without_errors():
    values = {name: "1" for lang in LANGS for text in strings(lang).values() for name in placeholders(text)}
    for lang in LANGS:
        for text in strings(lang).values():
            text.format(**values)  # a stray brace would raise here


# --- rendering -------------------------------------------------------------------------------


async def test_every_page_renders_in_the_guide_widget_at_80_columns():
    """In the widget the steps show their pages in (screens.widgets.Guide), every heading
    of every page is on screen."""
    from textual.app import App, ComposeResult
    from textual.containers import VerticalScroll

    from screens.widgets import Guide
    from tests.pilot import shown, squeeze

    class PageApp(App):
        def compose(self) -> ComposeResult:
            yield VerticalScroll(id="pages")

    app = PageApp()
    async with app.run_test(size=(80, 24)) as pilot:
        holder = app.query_one("#pages")
        for lang in LANGS:
            for name in PAGES:
                text = page(lang, name)
                headings = [squeeze(line.lstrip("#").replace("`", "").replace("*", ""))
                            for line in text.splitlines() if line.startswith("#")]
                guide = Guide(text)
                await holder.mount(guide)
                await pilot.pause()
                drawn = shown(guide)
                missing = [heading for heading in headings if heading not in drawn]
                assert headings and not missing, f"{lang}/{name}.md: {missing or 'no heading'}"
                await guide.remove()


# --- what a reader never sees: our internals ----------------------------------------------

INTERNAL = re.compile(r"shared/|content/\w|\.toml\b|\bnot verified\b|\bunverified\b|未经核实|未核实|"
                      r"we have no checked|street_price|launch_price")


def _user_texts():
    for lang in LANGS:
        for name in PAGES:
            yield f"{lang}/{name}.md", page(lang, name)
        for path in sorted((content_dir() / lang / "strings").glob("*.toml")):
            yield f"{lang}/strings/{path.name}", path.read_text(encoding="utf-8")
    for platform in load_knowledge().platforms:
        yield f"platform {platform.id}", platform.summary_en + "\n" + platform.summary_zh


@pytest.mark.parametrize("where, text", list(_user_texts()),
                         ids=lambda v: v if isinstance(v, str) and len(v) < 60 else "")
def test_no_user_text_shows_our_files_or_internal_notes(where, text):
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    found = [line for line in lines if INTERNAL.search(line)]
    assert not found, f"{where}: {found[:3]}"


def test_china_access_is_only_claimed_from_a_source():
    """platforms.toml's own rule: "unknown" wherever the region notes are not verified."""
    for platform in load_knowledge().platforms:
        if "region_notes" in platform.unverified:
            assert platform.cn_access == "unknown", platform.id


# The original guide's own questions, answered on the page where the step asks about them.
GUIDE_QUESTIONS = [
    ("form-factor", {"en": ["Can software add a GPU?", "blower", "external GPU"],
                     "zh": ["软件能“加”一块显卡吗？", "涡轮", "外接显卡"]}),
    ("cloud", {"en": ["Change runtime type", "Accelerator", "!nvidia-smi", "!df -h", "!cat /proc/cpuinfo",
                      "torch.cuda.is_available()"],
               "zh": ["更改运行时类型", "Accelerator", "!nvidia-smi", "!df -h", "!cat /proc/cpuinfo",
                      "torch.cuda.is_available()"]}),
    ("budget", {"en": ["Where to buy", "warranty", "New or used?"], "zh": ["去哪里买", "保修", "买新卡还是二手"]}),
]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name, needles", GUIDE_QUESTIONS, ids=[q[0] for q in GUIDE_QUESTIONS])
def test_the_guides_own_questions_are_answered_where_people_look(lang, name, needles):
    text = page(lang, name)
    missing = [needle for needle in needles[lang] if needle not in text]
    assert not missing, f"{lang}/{name}.md does not answer: {missing}"
