"""The user documentation: READMEs whose links work, screenshots the wizard really made.

README.md and README.zh.md link to each other, to the SVG screenshots in docs/screenshots/ and
to their own sections; docs/screenshots.py regenerates the screenshots from the app itself.
These tests catch a renamed file or heading, a hand-edited or foreign SVG, a command missing
from one README, and a screenshot script that no longer runs or names its files differently.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from wizard.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
READMES = [ROOT / "README.md", ROOT / "README.zh.md"]
SHOTS_DIR = ROOT / "docs" / "screenshots"
SCRIPT = ROOT / "docs" / "screenshots.py"

# Markdown links and images: [text](target) and ![alt](target), target without spaces.
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def load_script():
    """docs/screenshots.py as a module, by path (docs/ need not be a package)."""
    spec = importlib.util.spec_from_file_location("docs_screenshots", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module   # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def prose(markdown: str) -> str:
    """The Markdown without fenced code blocks (a `[x](y)` in sample output is not a link)."""
    return re.sub(r"^\s*```.*?^\s*```", "", markdown, flags=re.S | re.M)


def links(path: Path) -> list[str]:
    return LINK.findall(prose(path.read_text(encoding="utf-8")))


def github_anchor(heading: str) -> str:
    """The id GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    headings = re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", prose(path.read_text(encoding="utf-8")),
                          flags=re.M)
    return {github_anchor(h) for h in headings}


# ------------------------------------------------------------------------- links ---

@pytest.mark.parametrize("readme", READMES, ids=lambda p: p.name)
def test_every_relative_link_and_image_exists(readme):
    targets = links(readme)
    assert targets, f"{readme.name} has no links at all: the pattern is wrong"
    missing = []
    for target in targets:
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, flags=re.I):   # https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        file = (readme.parent / file_part).resolve() if file_part else readme
        if not file.is_file():
            missing.append(target)
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            missing.append(f"{target} (no such heading in {file.name})")
    assert missing == []


@pytest.mark.parametrize("readme", READMES, ids=lambda p: p.name)
def test_each_readme_links_the_other(readme):
    other = next(r for r in READMES if r != readme)
    assert other.name in links(readme)


@pytest.mark.parametrize("readme", READMES, ids=lambda p: p.name)
def test_readme_shows_screenshots_that_exist(readme):
    images = [t for t in links(readme) if t.startswith("docs/screenshots/")]
    assert images, f"{readme.name} shows no screenshot"
    assert all((ROOT / t).is_file() for t in images)


def test_chinese_readme_shows_the_chinese_result_page():
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", prose(READMES[1].read_text(encoding="utf-8")))
    assert "docs/screenshots/result-zh.svg" in images


def test_anchor_slugs_follow_github():
    assert github_anchor("For teachers and TAs") == "for-teachers-and-tas"
    assert github_anchor("Exit status, all together") == "exit-status-all-together"
    assert github_anchor("`gpu-wizard check`：一次性诊断") == "gpu-wizard-check一次性诊断"
    assert github_anchor("给老师和助教") == "给老师和助教"


# ------------------------------------------------------------------- screenshots ---

def svg_files() -> list[Path]:
    return sorted(SHOTS_DIR.glob("*.svg"))


def test_there_are_a_few_screenshots():
    assert 3 <= len(svg_files()) <= 8


@pytest.mark.parametrize("svg", svg_files(), ids=lambda p: p.name)
def test_screenshot_is_an_svg_exported_by_textual(svg):
    text = svg.read_text(encoding="utf-8")
    root = ET.fromstring(text)   # well-formed XML, or this raises
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    # What Textual's App.export_screenshot (Rich's export_svg) always writes.
    assert root.get("class") == "rich-terminal"
    assert "<!-- Generated with Rich https://www.textualize.io -->" in text
    assert any(el.tag.endswith("text") and el.text and "GPU" in el.text for el in root.iter()), \
        "no terminal text: not a screenshot of the wizard"
    assert len(text.encode("utf-8")) < 100_000
    assert "\r" not in text   # .gitattributes keeps SVGs LF; a CRLF copy is not ours


def test_every_screenshot_is_one_the_script_makes():
    script = load_script()
    assert {p.stem for p in svg_files()} == set(script.SHOTS)


# ------------------------------------------------------------------------ commands ---

def cli_commands() -> set[str]:
    """Every `gpu-wizard …` subcommand path the parser knows: check, report show, …"""
    import argparse

    found: set[str] = set()

    def walk(parser: argparse.ArgumentParser, prefix: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    found.add(f"{prefix} {name}")
                    walk(sub, f"{prefix} {name}")

    walk(build_parser(), "gpu-wizard")
    return {c for c in found if not any(o.startswith(c + " ") for o in found)}


def contracts_file() -> Path | None:
    for candidate in (ROOT / "CONTRACTS.md", ROOT / "shared" / "CONTRACTS.md",
                      ROOT.parent / "shared" / "CONTRACTS.md"):
        if candidate.is_file():
            return candidate
    return None


def contract_commands(text: str) -> set[str]:
    """`gpu-wizard report show FILE` → "gpu-wizard report show"; options and FILE are dropped."""
    section = text.split("## Commands", 1)[1].split("\n## ", 1)[0]
    found = set()
    for cell in re.findall(r"^\|\s*`(gpu-wizard[^`]*)`", section, flags=re.M):
        words = []
        for word in cell.split():
            if word.startswith(("-", "[")) or word.isupper() or not re.fullmatch(r"[a-z-]+", word):
                break
            words.append(word)
        found.add(" ".join(words))
    return found


def test_contract_parsing():
    sample = "## Commands\n| `gpu-wizard report summarize FILE... [--csv]` | x |\n| `gpu-wizard check [--json]` | y |\n"
    assert contract_commands(sample) == {"gpu-wizard report summarize", "gpu-wizard check"}


@pytest.mark.parametrize("readme", READMES, ids=lambda p: p.name)
def test_every_command_is_documented(readme):
    text = readme.read_text(encoding="utf-8")
    commands = cli_commands()
    assert {"gpu-wizard check", "gpu-wizard torch-command", "gpu-wizard report show",
            "gpu-wizard report validate", "gpu-wizard report summarize"} <= commands
    contracts = contracts_file()
    if contracts is not None:
        commands |= contract_commands(contracts.read_text(encoding="utf-8"))
    commands |= {"gpu-wizard --answers", "gpu-wizard --machine"}
    assert sorted(c for c in commands if c not in text) == []
    for flag in ("--csv", "--json", "--lang", "--python", "--no-redact", "--report"):
        assert flag in text, flag


@pytest.mark.parametrize("readme", READMES, ids=lambda p: p.name)
def test_readme_keeps_the_ci_test_command(readme):
    # .ci/run runs the line the README gives; both READMEs show the same one.
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    line = next(text for text in ci.splitlines() if text.startswith("python3 -m venv"))
    assert line in readme.read_text(encoding="utf-8")


def test_readme_keeps_what_others_fill_in():
    text = READMES[0].read_text(encoding="utf-8")
    assert "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/gpu-wizard" in text
    assert "## Performance" in text
    assert "<!-- performance figures: filled from python -m benchmarks -->" in text


# ------------------------------------------------------------------ the script ---

def test_screenshot_script_makes_the_same_files(tmp_path):
    script = load_script()
    written = script.generate(tmp_path)
    assert sorted(p.name for p in written) == sorted(p.name for p in svg_files())
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in svg_files())
    for path in written:
        ET.parse(path)

    # Run as a file from another folder, with a colourless C locale: the same bytes, because
    # the script pins the clock, the machine and the terminal settings.
    env = {**os.environ, "NO_COLOR": "1", "LANG": "C", "LC_ALL": "C"}
    again = tmp_path / "again"
    result = subprocess.run([sys.executable, str(SCRIPT), "--out", str(again), "result-zh"],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert (again / "result-zh.svg").read_bytes() == (tmp_path / "result-zh.svg").read_bytes()


def test_screenshot_script_rejects_an_unknown_name(tmp_path):
    script = load_script()
    with pytest.raises(SystemExit) as exc:
        script.main(["--out", str(tmp_path), "no-such-shot"])
    assert exc.value.code == 2
    assert list(tmp_path.iterdir()) == []
