"""Read a recorded machine (`--machine FILE`): a saved report or a fixture with `[machine]`."""

from __future__ import annotations

import tomllib
from pathlib import Path

from wizard.probe.model import Machine, MachineFormatError, machine_from_dict

MAX_BYTES = 2 * 1024 * 1024  # a real report is a few kB; refuse to parse a huge file


class MachineFileError(Exception):
    """One line for the user: the file and what is wrong with it."""


def read_toml(path: Path, what: str = "file") -> dict:
    """A TOML file's table, or MachineFileError naming the file and the problem."""
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise MachineFileError(f"{path}: {size // 1024} kB is too big for a {what} (at most {MAX_BYTES // 1024} kB)")
        raw = path.read_bytes()
    except FileNotFoundError:
        raise MachineFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise MachineFileError(f"{path}: is a folder, not a file") from None
    except PermissionError:
        raise MachineFileError(f"{path}: permission denied") from None
    except OSError as exc:
        raise MachineFileError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MachineFileError(f"{path}: not UTF-8 text (bad byte at position {exc.start})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MachineFileError(f"{path}: not valid TOML ({exc})") from None


def load_machine(path: str | Path) -> Machine:
    path = Path(path)
    data = read_toml(path, "machine file")
    if "machine" not in data:
        raise MachineFileError(f"{path}: has no [machine] table (expected a gpu-wizard report or recorded machine)")
    try:
        return machine_from_dict(data["machine"])
    except MachineFormatError as exc:
        shown = "; ".join(exc.problems[:5])
        more = f" (and {len(exc.problems) - 5} more)" if len(exc.problems) > 5 else ""
        raise MachineFileError(f"{path}: {shown}{more}") from None
