"""The recorded machines (tests/machines/*.toml): one list for every test, benchmark and script
that walks them, so a machine added there is picked up everywhere."""

from __future__ import annotations

from pathlib import Path

MACHINES = Path(__file__).parent / "machines"
MACHINE_FILES = tuple(sorted(MACHINES.glob("*.toml")))
MACHINE_NAMES = tuple(path.stem for path in MACHINE_FILES)


def machine_path(name: str) -> Path:
    """The file of one recorded machine; a misspelt name fails here rather than later."""
    path = MACHINES / f"{name}.toml"
    if path not in MACHINE_FILES:
        raise KeyError(f"no recorded machine {name!r} in tests/machines")
    return path


def machine(name: str, lang: str = "en"):
    """One recorded machine, loaded as the CLI's --machine loads it."""
    from wizard.machine.recorded import load_machine

    return load_machine(machine_path(name), lang)
