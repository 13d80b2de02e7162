"""Read a recorded machine (`--machine FILE`): a saved report or a fixture with `[machine]`."""

from __future__ import annotations

from pathlib import Path

from wizard.probe.model import Machine, MachineFormatError, machine_from_dict
from wizard.report import ReportReadError, read_toml

MAX_BYTES = 2 * 1024 * 1024  # a real report is a few kB; refuse to parse a huge file


class MachineFileError(Exception):
    """One line for the user: the file and what is wrong with it."""


def load_machine(path: str | Path, lang: str = "en") -> Machine:
    path = Path(path)
    try:
        data = read_toml(path, MAX_BYTES)
    except ReportReadError as exc:
        raise MachineFileError(exc.message(lang)) from None
    if "machine" not in data:
        raise MachineFileError(f"{path}: has no [machine] table (expected a gpu-wizard report or recorded machine)")
    try:
        return machine_from_dict(data["machine"])
    except MachineFormatError as exc:
        shown = "; ".join(exc.problems[:5])
        more = f" (and {len(exc.problems) - 5} more)" if len(exc.problems) > 5 else ""
        raise MachineFileError(f"{path}: {shown}{more}") from None
