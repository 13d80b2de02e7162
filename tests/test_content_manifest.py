"""content/CHECKSUMS: current in the repository, and trusted only for files whose bytes match.

`check_installation` names every damaged content file (missing, unreadable, not TOML, not
UTF-8) as it did when it parsed them all; the manifest only lets it skip parsing the files
that are byte for byte what the build recorded.
"""

import shutil
from pathlib import Path

import pytest

from wizard.knowledge import content, damaged
from wizard.knowledge.manifest import MANIFEST_NAME, digest, manifest_text, parse_manifest, write_manifest


def test_the_committed_manifest_matches_content():
    root = content.content_dir()
    committed = (root / MANIFEST_NAME).read_text(encoding="utf-8")
    assert committed == manifest_text(root), (
        "content/ changed since content/CHECKSUMS was written: run `python -m wizard.knowledge.manifest`")


@pytest.fixture
def installed(tmp_path, monkeypatch) -> Path:
    """A copy of content/ with its manifest, used as this installation's content folder."""
    root = tmp_path / "content"
    shutil.copytree(content.content_dir(), root)
    monkeypatch.setattr(content, "content_dir", lambda: root)
    damaged.DAMAGED.clear()
    yield root
    damaged.DAMAGED.clear()


def _problems() -> dict[str, str]:
    return {p.file.replace("\\", "/"): p.reason for p in content.check_installation()}


def test_an_intact_installation_is_not_parsed(installed, monkeypatch):
    parsed = []
    real = content._parse_toml
    monkeypatch.setattr(content, "_parse_toml", lambda raw, name: parsed.append(name) or real(raw, name))
    assert _problems() == {}
    assert parsed == []


@pytest.mark.parametrize("damage, reason", [
    ("missing", "file not found in"),
    ("unreadable", "cannot be read"),
    ("not-toml", "is not valid TOML"),
    ("not-utf8", "is not UTF-8"),
])
@pytest.mark.parametrize("file", ["gpus.toml", "en/strings/check.toml"])
def test_a_damaged_file_is_named_with_what_is_wrong(installed, file, damage, reason):
    path = installed / file
    if damage == "missing":
        path.unlink()
    elif damage == "unreadable":
        path.unlink()
        path.mkdir()  # reading a folder fails for root too, unlike a chmod
    elif damage == "not-toml":
        path.write_text("[gpu\nname = 'broken", encoding="utf-8")
    else:
        path.write_bytes(path.read_bytes()[:200] + b"\xff\xfe\xfa" + path.read_bytes()[200:])
    problems = _problems()
    assert list(problems) == [f"content/{file}"]
    assert problems[f"content/{file}"].startswith(reason)
    assert f"content/{file}" in damaged.DAMAGED


def test_a_page_that_is_not_utf8_is_named(installed):
    page = installed / "zh" / "goal.md"
    page.write_bytes(b"\xff" + page.read_bytes())
    assert _problems() == {"content/zh/goal.md": "is not UTF-8 (byte 0)"}


def test_a_changed_file_that_still_parses_is_not_reported(installed):
    # As before the manifest: a valid hand edit is for the loader of that file to judge.
    with (installed / "market.toml").open("a", encoding="utf-8") as fh:
        fh.write("\n# a local note\n")
    assert _problems() == {}


def test_files_the_manifest_does_not_list_are_parsed(installed):
    (installed / "en" / "strings" / "extra.toml").write_text("x = [", encoding="utf-8")
    assert list(_problems()) == ["content/en/strings/extra.toml"]


GARBLED = {
    "garbled": "not a manifest\n",
    # sha256sum's format, as an older build wrote it
    "sha256sum": "d5b7b11fe5fe36fc4ba00c4c11547d7a88388b4827cc155486a79fc1c0c24932  goals.toml\n",
    "size-not-a-number": "a5a69dc2 2x1  goals.toml\n",
    "crc-not-hex": "a5a69dcz 21659  goals.toml\n",
    "outside-content": "a5a69dc2 21659  ../goals.toml\n",
}


@pytest.mark.parametrize("manifest", ["missing", *GARBLED])
def test_without_a_usable_manifest_every_file_is_parsed(installed, manifest):
    if manifest == "missing":
        (installed / MANIFEST_NAME).unlink()
    else:
        assert parse_manifest(GARBLED[manifest]) is None
        (installed / MANIFEST_NAME).write_text(GARBLED[manifest], encoding="utf-8")
    (installed / "goals.toml").write_text("[goal\n", encoding="utf-8")
    assert list(_problems()) == ["content/goals.toml"]


def test_a_file_cut_short_or_changed_does_not_match_its_line(installed):
    entries = parse_manifest((installed / MANIFEST_NAME).read_text(encoding="utf-8"))
    raw = (installed / "goals.toml").read_bytes()
    assert digest(raw) == entries["goals.toml"]
    assert digest(raw[:-1]) != entries["goals.toml"]
    assert digest(raw.replace(b"8", b"9", 1)) != entries["goals.toml"]


def test_write_manifest_rewrites_only_a_stale_one(installed):
    assert write_manifest(installed) is False
    (installed / "currency.toml").write_text("# changed\n", encoding="utf-8")
    assert write_manifest(installed) is True
    entries = parse_manifest((installed / MANIFEST_NAME).read_text(encoding="utf-8"))
    assert set(entries) == {p.relative_to(installed).as_posix() for p in installed.rglob("*")
                            if p.is_file() and p.name != MANIFEST_NAME}
    assert write_manifest(installed) is False
