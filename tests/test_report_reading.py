"""Reading a report fast must not read it differently: the shortcuts in wizard/report/reading.py
(skipping lines that cannot hold a key over the limits, skipping the string clean-up for a file
that has nothing to clean) against the plain way of doing the same."""

from __future__ import annotations

import re

try:
    import tomllib  # novermin
except ModuleNotFoundError:  # Python 3.9 and 3.10
    import tomli as tomllib  # type: ignore[no-redef]

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wizard.report.errors import ReportReadError
from wizard.report.reading import _MAX_KEY_CHARS, _MAX_KEY_DOTS, _too_deep, read_toml
from wizard.text.output import clean_strings

# The key pattern as it was before the quoted part was unrolled, and the plain loop over every line.
_PART = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
_PLAIN_KEY = re.compile(rf"\s*(\[\[?)?\s*({_PART}(?:\s*\.\s*{_PART})*)\s*(=|\]\]?)")


def plain_too_deep(text: str) -> int | None:
    for number, line in enumerate(text.splitlines(), start=1):
        match = _PLAIN_KEY.match(line)
        if match is None or (match.group(1) is None) != (match.group(3) == "="):
            continue
        key = match.group(2)
        if key.count(".") > _MAX_KEY_DOTS or len(key) > _MAX_KEY_CHARS:
            return number
    return None


# Lines made of the pieces that matter: key characters, dots, quotes, escapes, brackets, "=",
# and the separators str.splitlines() breaks at besides "\n".
_PIECES = st.sampled_from(["a", "a.", ".", '"', "'", "\\", '\\"', "[", "]", "[[", "]]", " = ", "=",
                           " ", "\n", "\r\n", "\r", "\u2028", "\x0c", "#", ","])
_LINES = st.lists(_PIECES, max_size=60).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_LINES, st.integers(0, 40).map(lambda n: "a." * n + "b = 1"),
                          st.integers(150, 260).map(lambda n: "k" * n + " = 1"),
                          st.integers(150, 260).map(lambda n: '"' + "x" * n + '" = 1'),
                          st.integers(150, 260).map(lambda n: '  "' + "x." * n + '",')),
                max_size=12).map("\n".join))
def test_too_deep_finds_the_same_line_as_the_plain_loop(text):
    assert _too_deep(text) == plain_too_deep(text)


@pytest.mark.parametrize("text, line", [
    ("a = 1\n" * 5 + "a." * (_MAX_KEY_DOTS + 1) + "b = 1\n", 6),
    ("a = 1\n" * 5 + "[" + "a." * (_MAX_KEY_DOTS + 1) + "b]\n", 6),
    ("a = 1\n" + "k" * (_MAX_KEY_CHARS + 1) + " = 1\n", 2),
    ('a = 1\n"' + "k" * _MAX_KEY_CHARS + '" = 1\n', 2),     # with its quotes: over the limit
    ("a = 1\nb = [\n  \"" + "a." * 40 + "\",\n]\n", None),   # a value, not a key
    ("a." * _MAX_KEY_DOTS + "b = 1\n" + "k" * _MAX_KEY_CHARS + " = 1\n", None),  # at the limits
    ('detail = "' + "x. " * 150 + '"\n', None),                   # a long text, a short key
    ("a." * (_MAX_KEY_DOTS + 1) + 'b = "' + "x" * 300 + '"\n', 1),  # a deep key, a long text
    ('  "' + "x." * 150 + '" = 1\n', 1),                           # a long quoted key
])
def test_too_deep_limits(text, line):
    assert _too_deep(text) == line == plain_too_deep(text)


def test_a_key_too_deep_is_refused_before_parsing(tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text('schema = "gpu-wizard/report/1"\n' + "a." * 5000 + "b = 1\n", encoding="utf-8")
    with pytest.raises(ReportReadError) as caught:
        read_toml(path)
    assert caught.value.reason == "report.error.key-too-long" and caught.value.values == {"line": 2}


# TOML strings: plain text, and every way a control character or a stray mark can get in
# (raw, or written as an escape).
_TEXT = st.lists(st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters='"\\\n\r'), max_size=8),
    st.sampled_from(["\\u001b", "\\u0007", "\\b", "\\f", "\\r", "\\n", "\\t", '\\"', "\\\\",
                     "\\U0000202E", "\\u200b", "\\u0085", "\\\\u001b", "\\\\\\u001b",
                     "C:\\\\Users\\\\ana", "\\\\\\\\b", "\u202e", "\u200b", "\x85",
                     "\ufeff", "\u061c"]),
), max_size=6).map("".join)


@settings(max_examples=400, deadline=None)
@given(key=_TEXT, value=_TEXT, crlf=st.booleans())
def test_read_toml_cleans_strings_as_clean_strings_does(tmp_path_factory, key, value, crlf):
    text = f'"{key}" = "{value}"\n[t]\nlist = ["{value}", 1]\n'
    try:
        parsed = tomllib.loads(text)
    except tomllib.TOMLDecodeError:  # a raw character TOML refuses: not a case for the clean-up
        return
    if crlf:
        text = text.replace("\n", "\r\n")
    path = tmp_path_factory.mktemp("r") / "r.toml"
    path.write_bytes(text.encode("utf-8"))
    assert read_toml(path) == clean_strings(parsed)


def test_an_escaped_control_character_is_replaced(tmp_path):
    path = tmp_path / "evil.toml"
    path.write_text('headline = "ok\\u001b]0;pwned\\u0007 \\u202e"\n', encoding="utf-8")
    headline = read_toml(path)["headline"]
    assert "\x1b" not in headline and "\x07" not in headline and "\u202e" not in headline
    assert headline.startswith("ok") and "pwned" in headline


def test_probe_results_are_mended_through_named_tuples_and_records():
    """A host name under LANG=C arrives as lone surrogates; the probes' results are named
    tuples holding records, and every string in them is made valid and shown safely."""
    from wizard.probe.facts import ProbeNote
    from wizard.probe.system import SystemFacts
    from wizard.text.output import valid_unicode

    facts = SystemFacts("Linux", "Debian", "x86_64", "3.11.7", "CPU \udcff", 2, 2, 8.0, 10.0,
                        "host\udce9\x1b[2J")
    mended = valid_unicode(facts)
    assert type(mended) is SystemFacts and mended.cpu_model == "CPU \ufffd"
    mended.hostname.encode("utf-8")
    cleaned = clean_strings((facts, ProbeNote("pci", "ok", detail="a\u202eb")))
    assert type(cleaned[0]) is SystemFacts and "\x1b" not in cleaned[0].hostname
    assert type(cleaned[1]) is ProbeNote and "\u202e" not in cleaned[1].detail
