"""The core must stay usable without Textual: scripts, `check`, reports, headless mode."""

import pkgutil
import subprocess
import sys

import wizard


def core_modules() -> list[str]:
    """Every module under wizard/: the App lives in screens/ (tests/test_import_rules.py)."""
    return sorted(m.name for m in pkgutil.walk_packages(wizard.__path__, "wizard."))


def test_core_module_list_is_not_empty():
    modules = core_modules()
    assert "wizard.probe.gather" in modules and "wizard.diagnosis.diagnose" in modules


def test_importing_every_core_module_does_not_load_textual():
    code = (
        "import importlib, sys\n"
        f"for name in {core_modules()!r}:\n"
        "    if name.endswith('__main__'): continue\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"core imported Textual: {result.stdout.strip()}"


def test_the_check_itself_loads_neither_textual_nor_torch():
    code = (
        "import sys\n"
        "from wizard.cli import main\n"
        "rc = main(['check', '--json', '--no-torch'])\n"
        "loaded = [m for m in ('textual', 'torch') if m in sys.modules]\n"
        "sys.stderr.write('LOADED=' + ','.join(loaded))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "LOADED=" in result.stderr
    assert result.stderr.rsplit("LOADED=", 1)[1].strip() == ""
