"""A report built from what the user saw: answers, machine, findings, recommendation."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any

from wizard import __version__
from wizard.answers import Answers, answers_to_dict
from wizard.diagnosis.nvidia_cause import nvidia_message
from wizard.probe.facts import Machine, to_dict
from wizard.report.fields import SCHEMA
from wizard.report.redaction import redact_report
from wizard.text.i18n import LANGUAGES
from wizard.text.output import clean_strings


def build_report(answers: Answers | Mapping[str, Any], machine: Any, findings: Iterable[Any], recommendation: Any,
                 lang: str, redact: bool = True, now: dt.datetime | None = None,
                 identifiers: Iterable[str] | None = None, tables: Mapping[str, Any] | None = None,
                 folders: Iterable[str] | None = None, full_name: str | None = None) -> dict[str, Any]:
    """Everything the user saw, as TOML-ready data; identifiers removed unless redact=False.

    `tables` are the caller's own ([install], [replay]), added after the recommendation: they
    go through the same redaction, which alone knows the machine's interpreter paths.
    `identifiers`, `folders` and `full_name` are redact_report's (default: this user's)."""
    created = (now or dt.datetime.now(dt.timezone.utc)).astimezone(dt.timezone.utc)
    lang = lang if lang in LANGUAGES else "en"
    report = {
        "schema": SCHEMA,
        "tool_version": __version__,
        "created": created.replace(microsecond=0),
        "language": lang,
        "redacted": False,
        "answers": answers_to_dict(answers) if dataclasses.is_dataclass(answers) else dict(answers),
        "machine": machine_table(machine, lang) if isinstance(machine, Machine) else _plain(machine),
        "findings": [_plain(f) for f in findings],
        "recommendation": _plain(recommendation),
        **{key: _plain(value) for key, value in (tables or {}).items()},
    }
    report = clean_strings(report)  # a recorded machine may carry undecodable OS bytes
    return redact_report(report, identifiers, folders, full_name) if redact else report


def machine_table(machine: Machine, lang: str) -> dict[str, Any]:
    """The report's `[machine]` table (also `check --json`'s): the Machine's facts, and the NVIDIA
    and PyTorch sentences the format keeps beside them (`message`), worded in `lang` as the table
    is written. They go into the table only: the Machine holds facts, worded when shown."""
    nvidia = dataclasses.replace(machine.nvidia, message=nvidia_message(machine, lang))
    torch = machine.torch
    if torch is not None:
        # The torch sentences (and the torch matrix): +30 ms that `check --json --no-torch`
        # skips (measured 2026-12-04).
        from wizard.pytorch.wording import torch_message

        torch = dataclasses.replace(torch, message=torch_message(torch, lang))
    return to_dict(dataclasses.replace(machine, nvidia=nvidia, torch=torch))


def _plain(obj: Any) -> Any:
    return to_dict(obj) if dataclasses.is_dataclass(obj) else _drop_none(obj)


def _drop_none(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _drop_none(v) for k, v in obj.items() if v is not None}
    if isinstance(obj, (list, tuple)):
        return [_drop_none(v) for v in obj]
    return obj
