"""Probes hold facts only: nothing under wizard/probe/ or wizard/pytorch/probe/ imports our data,
rules, advice or wording.

A probe that reads the catalog or a compatibility table answers with our opinion of the machine
instead of the machine's own word, and a recorded report can then never be read again under a
newer catalog. Naming from the catalog is wizard.machine.identify's; rules live in wizard.pytorch.matrix and
wizard.diagnosis.nvidia_cause; sentences in wizard.pytorch.wording, wizard.diagnosis.nvidia_cause and the diagnosis.
Read from the source's syntax tree, so an import inside a function counts as much as one at the top.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROBE_FILES = sorted(ROOT.joinpath("wizard", "probe").rglob("*.py")) + \
    sorted(ROOT.joinpath("wizard", "pytorch", "probe").rglob("*.py"))

# What a probe may use of gpu-wizard besides other probes: text cleaning of what the OS said,
# the record declarations (wizard.schema: types and ranges, no data and no advice), running a
# call in a thread (wizard.background), reading a file it did not write (wizard.bounded_read),
# what the user allowed gpu-wizard to run (wizard.user_settings: the user's word, not ours), and
# what must happen when the process ends (wizard.signals: the runner's children ended).
ALLOWED = ("wizard.probe", "wizard.pytorch.probe", "wizard.text.output", "wizard.schema", "wizard.background",
           "wizard.bounded_read", "wizard.user_settings", "wizard.signals")



def _module_of(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(source: str, package: str) -> set[str]:
    """Every module `source` imports, relative imports resolved against `package` (the package
    the file sits in), `from X import y` counted as both X and X.y (y may be a module)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def _imports_of(path: Path) -> set[str]:
    module = _module_of(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    return imported_modules(path.read_text(encoding="utf-8"), package)


def _ours(module: str) -> bool:
    return module == "wizard" or module.startswith("wizard.") or module == "screens" or \
        module.startswith("screens.")


def _allowed(module: str) -> bool:
    return any(module == ok or module.startswith(ok + ".") for ok in ALLOWED)


def test_the_probe_files_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in PROBE_FILES}
    assert {"wizard/probe/pci.py", "wizard/probe/gather.py", "wizard/pytorch/probe/assemble.py",
            "wizard/pytorch/probe/static.py"} <= names


@pytest.mark.parametrize("path", PROBE_FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_a_probe_imports_only_probes(path):
    outside = sorted(m for m in _imports_of(path) if _ours(m) and not _allowed(m))
    assert outside == [], f"{path.relative_to(ROOT)} imports {outside}"


def test_the_reader_sees_every_kind_of_import():
    # The rule above is only as good as this reader: a plain, a nested and relative imports.
    source = ("import wizard.knowledge\n"
              "def f():\n    from wizard.knowledge.content import read_toml\n"
              "from ..matrix import rules\nfrom . import child\n")
    found = imported_modules(source, "wizard.pytorch.probe")
    assert {"wizard.knowledge", "wizard.knowledge.content", "wizard.pytorch.matrix.rules",
            "wizard.pytorch.probe.child"} <= found
    assert not _allowed("wizard.knowledge") and not _allowed("wizard.text.i18n")
    assert not _allowed("wizard.pytorch.matrix") and not _allowed("wizard.pytorch.choose")
    assert _allowed("wizard.probe.facts") and not _allowed("wizard.probes_elsewhere")
