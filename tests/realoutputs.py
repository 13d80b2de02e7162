"""Sections of the verbatim machine outputs in tests/data/real-outputs (see its INDEX.md)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

FOLDER = Path(__file__).parent / "data" / "real-outputs"
BEGIN = "# ===== BEGIN OUTPUT ====="
END = "# ===== END OUTPUT ====="


@dataclass(frozen=True)
class Section:
    source: str
    machine: str
    command: str
    output: str


def sections(file_name: str) -> list[Section]:
    lines = (FOLDER / file_name).read_text(encoding="utf-8").splitlines()
    found: list[Section] = []
    header: dict[str, str] = {}
    body: list[str] | None = None
    for line in lines:
        if body is None:
            if line == BEGIN:
                body = []
            elif line.startswith("# ") and ":" in line:
                key, _, value = line[2:].partition(":")
                if key in ("SOURCE", "MACHINE", "COMMAND"):
                    header[key] = value.strip()
        elif line == END:
            found.append(Section(header.get("SOURCE", ""), header.get("MACHINE", ""),
                                 header.get("COMMAND", ""), "\n".join(body) + "\n"))
            header, body = {}, None
        else:
            body.append(line)
    return found


def section(file_name: str, machine_contains: str) -> Section:
    """The one section whose MACHINE line contains the text (fails loudly if not exactly one)."""
    matches = [s for s in sections(file_name) if machine_contains in s.machine]
    if len(matches) != 1:
        raise LookupError(f"{file_name}: {len(matches)} sections match {machine_contains!r}")
    return matches[0]
