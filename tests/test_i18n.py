"""Both languages have every string, and the locale picks the language."""

import re

import pytest

from wizard.text.i18n import language_from_env, strings, t


def test_every_string_exists_in_both_languages():
    en, zh = set(strings("en")), set(strings("zh"))
    assert en, "strings are found"
    assert sorted(en - zh) == [], "missing in zh"
    assert sorted(zh - en) == [], "missing in en"


def test_placeholders_match_between_languages():
    en, zh = strings("en"), strings("zh")
    for key in en:
        assert set(re.findall(r"{(\w+)}", en[key])) == set(re.findall(r"{(\w+)}", zh.get(key, ""))), key


def test_chinese_strings_are_chinese():
    zh = strings("zh")
    cjk = [k for k, v in zh.items() if re.search(r"[\u4e00-\u9fff]", v)]
    # Short technical labels ("CPU", "{vram} GB") may stay Latin; sentences may not.
    latin_sentences = [k for k, v in zh.items() if k not in cjk and len(v.split()) > 4]
    assert not latin_sentences
    assert len(cjk) > len(zh) * 0.7


@pytest.mark.parametrize("env, lang", [({"LANG": "zh_CN.UTF-8"}, "zh"), ({"LANG": "C"}, "en"),
                                       ({"LC_ALL": "zh_TW.UTF-8", "LANG": "en_US"}, "zh"),
                                       ({"LC_ALL": "", "LANG": "en_GB.UTF-8"}, "en"), ({}, "en")])
def test_language_from_locale(env, lang):
    assert language_from_env(env) == lang


def test_missing_key_falls_back_and_bad_format_values_do_not_raise():
    assert t("no.such.key", "zh") == "no.such.key"
    assert "{driver}" in t("nvml.ok", "en", count=1)  # a missing value leaves the template


@pytest.mark.parametrize("text", [
    "Fix: Install a build compiled for your GPU: pip install torch==2.14.1 --index-url "
    "https://download.pytorch.org/whl/cu126 and then restart.",
    "解决办法：安装为你的显卡编译过的版本：pip install torch==2.14.1 --index-url "
    "https://download.pytorch.org/whl/cu126。然后重启。",
])
def test_wrapping_never_splits_a_command_or_starts_a_line_with_closing_punctuation(text):
    from wizard.text.output import wrap

    lines = wrap(text, 50, indent=4)
    command = "pip install torch==2.14.1 --index-url https://download.pytorch.org/whl/cu126"
    assert any(command in line for line in lines), lines
    assert not any(line.strip()[:1] in "。，）.,)" for line in lines), lines
    assert " ".join(line.strip() for line in lines).replace("。 ", "。").replace("： ", "：") \
        .replace(" ", "") == text.replace(" ", "")


def test_chinese_text_has_no_space_between_chinese_characters_after_filling_in():
    from wizard.text.i18n import t

    chinese = t("advice.headline.use-free-cloud", "zh", goal="入门学习深度学习", platform="魔搭社区 Notebook")
    assert "用魔搭社区 Notebook 这类" in chinese
    latin = t("advice.headline.use-free-cloud", "zh", goal="入门学习深度学习", platform="Kaggle Notebooks")
    assert "用 Kaggle Notebooks 这类" in latin


@pytest.mark.parametrize("width", range(20, 60))
def test_wrapping_never_ends_a_line_with_an_opening_bracket(width):
    from wizard.text.output import wrap

    text = t("nvml.gpus-unreadable", "zh")
    lines = wrap(text, width, indent=4)
    assert not any(line.rstrip()[-1:] in "（「《【“" for line in lines), lines
    assert "".join(line.strip() for line in lines).replace(" ", "") == text.replace(" ", "")


def test_english_plurals_follow_the_number():
    assert t("check.summary-problems", "en", errors=1, warnings=0) == "1 problem, 0 warnings."
    assert "sees 2 GPUs." in t("nvml.ok", "en", driver="580.95.05", count=2, cuda="13.0")
    assert "(s)" not in t("roster.invalid", "en", count=3)
