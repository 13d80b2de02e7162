"""The tree's layering, read from the source: every import counts, also those inside functions
and under `if TYPE_CHECKING:` (a type-only import back into the App is still a cycle a reader
has to hold in their head).

- wizard/ (the core) imports neither Textual nor screens/ (one door excepted: the command that
  starts the wizard imports the App, lazily);
- a screen never imports the App (screens/app.py): it gets the state through its constructor
  and asks for changes with messages;
- nothing outside screens/app.py, wizard/commands/wizard_main.py (which starts it) and the
  tests/benchmarks imports screens.app;
- no import cycle among the modules of wizard/ and screens/: break one by moving the shared
  piece where it belongs, passing a function or value as an argument, or splitting a module,
  not by moving an import into a function;
- an import inside a function says why, on its line or the line above: what it would cost at
  the top (measured), or why it cannot be there.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def import_statements(path: Path, package: str | None = None) -> Iterator[tuple[str, tuple[str, ...]]]:
    """Every import in `path`, anywhere in the file: (the module as an absolute dotted name, the
    names a `from` import takes from it; () for a plain `import`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    if package is None:
        package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, ()
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            yield module, tuple(alias.name for alias in node.names)


def imported_modules(path: Path, package: str | None = None) -> set[str]:
    """Every module `path` imports, anywhere in the file, as absolute dotted names."""
    names: set[str] = set()
    for module, taken in import_statements(path, package):
        names.add(module)
        # `from screens import app` imports the module screens.app
        names.update(f"{module}.{name}" for name in taken)
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


# --- no import cycles -------------------------------------------------------------------------

def module_files(root: Path, folders: tuple[str, ...] = ("wizard", "screens")) -> dict[str, Path]:
    """Every module under `folders` of `root`: dotted name → file (a package is its __init__.py)."""
    files: dict[str, Path] = {}
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return files


def import_graph(files: dict[str, Path]) -> dict[str, set[str]]:
    """Module → the modules of `files` it imports (in functions and TYPE_CHECKING blocks too).
    `from wizard.probe import gather` is an edge to wizard.probe.gather; `from wizard.probe.facts
    import Gpu`, to wizard.probe.facts."""
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for module, taken in import_statements(path, package):
            for target in [f"{module}.{n}" if f"{module}.{n}" in files else module for n in taken] or [module]:
                if target in files and target != name:
                    targets.add(target)
        graph[name] = targets
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, round and round (Tarjan's strongly
    connected components of more than one module), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(cycles)


def test_the_cycle_rule_sees_one_through_a_function_and_a_type_checking_block(tmp_path):
    package = tmp_path / "wizard"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "a.py").write_text("from wizard import b\n", encoding="utf-8")
    (package / "b.py").write_text("def f():\n    from wizard.c import thing\n", encoding="utf-8")
    (package / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\n",
                                  encoding="utf-8")
    (package / "d.py").write_text("import wizard.a\n", encoding="utf-8")   # into the cycle, not part of it
    graph = import_graph(module_files(tmp_path, ("wizard",)))
    assert graph["wizard.d"] == {"wizard.a"}
    assert import_cycles(graph) == [["wizard.a", "wizard.b", "wizard.c"]]


def test_no_import_cycle_among_the_modules_of_wizard_and_screens():
    graph = import_graph(module_files(ROOT))
    assert len(graph) > 100 and "wizard.probe.gather" in graph["wizard.machine.identify"]
    assert import_cycles(graph) == []


# --- an import inside a function says why -----------------------------------------------------

# A comment that only talks to a tool says nothing to the reader about why.
_PRAGMA = re.compile(r"#\s*(noqa(:\s*[A-Z]+[0-9]+(,\s*[A-Z]+[0-9]+)*)?|type:\s*ignore(\[[\w, -]+\])?|novermin"
                     r"|pragma:?\s*no\s*cover)\s*")


def unexplained_imports_in_functions(path: Path) -> list[str]:
    """The imports inside a function or method of `path` with no comment on their line(s) nor on
    the line above; consecutive imports count as one, under the comment above the first."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    said = {token.start[0] for token in tokenize.generate_tokens(io.StringIO(source).readline)
            if token.type == tokenize.COMMENT and not _PRAGMA.fullmatch(token.string)}
    inside: list[ast.Import | ast.ImportFrom] = []

    def walk(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if in_function and isinstance(child, (ast.Import, ast.ImportFrom)):
                inside.append(child)
            walk(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))

    walk(ast.parse(source, str(path)), False)
    ends = {node.end_lineno: node for node in inside}
    missing = []
    for node in sorted(inside, key=lambda n: n.lineno):
        assert node.end_lineno is not None
        if said & set(range(node.lineno, node.end_lineno + 1)):
            continue
        first = node
        while first.lineno - 1 in ends:   # the imports right above it, one block with it
            first = ends[first.lineno - 1]
        above = first.lineno - 1
        if not (above in said and lines[above - 1].lstrip().startswith("#")):
            missing.append(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name}:"
                           f"{node.lineno}: {lines[node.lineno - 1].strip()}")
    return missing


def test_the_comment_rule_sees_an_unexplained_import(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import json  # at the top: nothing to explain\n"
        "def f():\n"
        "    import csv  # only for --csv: +3 ms elsewhere\n"
        "    # only on Windows: the ImportError is the answer\n"
        "    import winreg\n"
        "    import msvcrt\n"                                    # in the block under that comment
        "    x = 1\n"
        "    import gzip\n"                                      # unexplained
        "    from wizard import (\n        live,\n    )  # a comment on its last line counts\n"
        "class C:\n"
        "    def g(self):\n"
        "        from wizard import gather  # noqa: F401\n"      # a pragma is not a reason
        "        return 'not # a comment'; import os\n",        # a '#' in a string is not one
        encoding="utf-8")
    assert [line.split(": ", 1)[1] for line in unexplained_imports_in_functions(sample)] == [
        "import gzip", "from wizard import gather  # noqa: F401", "return 'not # a comment'; import os"]


@pytest.mark.parametrize("folder", ["wizard", "screens"])
def test_every_import_inside_a_function_says_why(folder):
    """wizard/ and screens/ alike."""
    missing = [line for path in python_files(folder) for line in unexplained_imports_in_functions(path)]
    assert missing == []
