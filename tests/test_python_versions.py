"""gpu-wizard installs on Python 3.9 and newer (the system Pythons of RHEL/Rocky 9 and Ubuntu
22.04, the lab servers reached over SSH). The suite runs on 3.11, so the older versions are
checked statically: vermin over the whole package, plus what vermin does not see — a type union
made with `|` at run time (3.10+), which breaks import on 3.9."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
import typing
from pathlib import Path

import pytest

from wizard import schema
from wizard.probe import facts

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("wizard", "screens")
OLDEST = "3.9"


def sources() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def test_the_package_says_it_runs_on_the_oldest_python_it_is_checked_for():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["requires-python"] == f">={OLDEST}"
    assert any(d.startswith("tomli") and "python_version < '3.11'" in d for d in project["dependencies"])


def test_vermin_finds_nothing_newer_than_the_oldest_python():
    vermin = "import sys, vermin; sys.exit(vermin.main())"   # the package has no __main__
    result = subprocess.run([sys.executable, "-c", vermin, "--eval-annotations", f"-t={OLDEST}-", "--no-tips",
                             "--violations", *(str(ROOT / p) for p in PACKAGES)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Target versions not met" not in result.stdout


_TYPES = {"str", "int", "float", "bool", "bytes", "dict", "list", "tuple", "set", "type", "object"}


def _typeish(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return node.value is None
    if isinstance(node, ast.Name):
        return node.id in _TYPES or (node.id[:1].isupper() and not node.id.isupper())
    if isinstance(node, ast.Subscript):
        return _typeish(node.value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _typeish(node.left) and _typeish(node.right)
    return False


def runtime_unions(tree: ast.AST) -> list[str]:
    """`str | None` outside annotations: evaluated when the module loads (a base class's
    subscript, a default, an isinstance), where Python 3.9 raises TypeError."""
    in_annotations = set()
    for node in ast.walk(tree):
        for name in ("annotation", "returns"):
            annotation = getattr(node, name, None)
            if annotation is not None:
                in_annotations.update(id(sub) for sub in ast.walk(annotation))
    return [ast.unparse(node) for node in ast.walk(tree)
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr) and id(node) not in in_annotations
            and _typeish(node.left) and _typeish(node.right)]


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_type_union_is_made_at_run_time(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert runtime_unions(tree) == []
    # Annotations with `|` stay strings (never evaluated) only under the future import.
    uses_union_annotations = any(
        isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.BitOr)
        for node in ast.walk(tree) for name in ("annotation", "returns")
        if getattr(node, name, None) is not None for sub in ast.walk(getattr(node, name)))
    if uses_union_annotations:
        assert "from __future__ import annotations" in path.read_text(encoding="utf-8")


def test_the_checker_sees_what_3_9_cannot_run():
    assert runtime_unions(ast.parse("class D(ModalScreen[str | None]): pass")) == ["str | None"]
    assert runtime_unions(ast.parse("x: str | None = None\ndef f(a: int | None) -> str | None: ...")) == []
    assert runtime_unions(ast.parse("flags = os.W_OK | os.X_OK\nkinds = Gpu | TorchInfo")) == ["Gpu | TorchInfo"]


@pytest.mark.parametrize("annotation, expected", [
    ("str", str),
    ("int | None", typing.Optional[int]),
    ("tuple[str, ...]", tuple[str, ...]),
    ("TorchInfo | None", typing.Optional[facts.TorchInfo]),
])
def test_model_annotations_resolve_without_the_310_union_operator(annotation, expected):
    assert schema._resolve(annotation, vars(facts)) == expected
