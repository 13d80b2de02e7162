"""CONTRIBUTING.md's module map names every module of wizard/ and screens/, and nothing else."""

from __future__ import annotations

import re

from tests.conftest import ROOT


def _map_block() -> str:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    start = text.index("<!-- module map")
    end = text.index("<!-- end of module map -->")
    return text[start:end]


def test_the_module_map_names_every_module_and_nothing_else():
    listed = set(re.findall(r"^((?:wizard|screens)/\S+\.py) +\S", _map_block(), flags=re.MULTILINE))
    actual = {str(p.relative_to(ROOT)) for folder in ("wizard", "screens") for p in (ROOT / folder).rglob("*.py")
              if "__pycache__" not in p.parts and p.name not in ("__init__.py", "__main__.py")}
    assert listed - actual == set(), "CONTRIBUTING.md names modules that do not exist"
    assert actual - listed == set(), "modules missing from CONTRIBUTING.md's module map"


def test_the_readme_points_at_it():
    for name in ("README.md", "README.zh.md"):
        assert "CONTRIBUTING.md" in (ROOT / name).read_text(encoding="utf-8")
