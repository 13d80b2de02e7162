"""The tree's layering, read from the source: every import counts, also those inside functions
and under `if TYPE_CHECKING:` (a type-only import back into the App is still a cycle a reader
has to hold in their head).

- wizard/ (the core) imports neither Textual nor screens/ (one door excepted: the command that
  starts the wizard imports the App, lazily);
- a screen never imports the App (screens/app.py): it gets the state through its constructor
  and asks for changes with messages;
- nothing outside screens/app.py, wizard/commands/wizard_main.py (which starts it) and the
  tests/benchmarks imports screens.app.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def imported_modules(path: Path, package: str | None = None) -> set[str]:
    """Every module `path` imports, anywhere in the file, as absolute dotted names."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    if package is None:
        package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            names.add(module)
            # `from screens import app` imports the module screens.app
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def python_files(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def _hits(names: set[str], forbidden: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names if any(n == f or n.startswith(f + ".") for f in forbidden))


def test_the_rules_see_imports_inside_functions_and_type_checking_blocks(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from screens.app import WizardApp\n"
        "def f():\n    import textual.widgets\n    from . import live\n"
        "    from ..probe import gather\n",
        encoding="utf-8")
    names = imported_modules(sample, package="wizard.commands")
    assert {"screens.app", "textual.widgets", "wizard.commands.live", "wizard.probe.gather"} <= names


# The one door from the command line into the UI: `gpu-wizard` with no subcommand.
UI_DOOR = ROOT / "wizard" / "commands" / "wizard_main.py"


@pytest.mark.parametrize("path", python_files("wizard"), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_core_imports_no_textual_and_no_screen(path):
    allowed = {"screens.app", "screens.app.run_app"} if path == UI_DOOR else set()
    assert _hits(imported_modules(path) - allowed, ("textual", "screens")) == []


@pytest.mark.parametrize("path", [p for p in python_files("screens") if p.name != "app.py"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_no_screen_imports_the_app(path):
    assert _hits(imported_modules(path), ("screens.app",)) == []


def test_only_the_wizard_command_starts_the_app():
    importers = sorted(str(p.relative_to(ROOT)) for p in python_files("wizard") + python_files("screens")
                       if p.name != "app.py" and _hits(imported_modules(p), ("screens.app",)))
    assert importers == ["wizard/commands/wizard_main.py"]
