"""Checking a report against the format (README.md, "The report format"): every problem, each
with its key path. The report's records are declared once (wizard.schema): the [machine] table
is wizard.probe.facts's Machine, the [answers] table wizard.answers' own rules; the rest is
declared here."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from wizard.answers import answers_problems
from wizard.diagnosis.findings import SEVERITIES
from wizard.diagnosis.judgement import ACTIONS
from wizard.probe.facts import Machine
from wizard.report.fields import FINDING_ID as _FINDING_ID
from wizard.report.fields import SCHEMA, SCHEMA_PREFIX, VERDICTS
from wizard.schema import SHARED, check_record, rule, shown
from wizard.text.i18n import LANGUAGES


@dataclasses.dataclass(frozen=True)
class ReportFinding:
    id: str = dataclasses.field(metadata=rule(pattern=_FINDING_ID.pattern, what="a kebab-case id"))
    severity: str = dataclasses.field(metadata=rule(choices=SEVERITIES))
    title: str
    detail: str
    fix: str | None = None


@dataclasses.dataclass(frozen=True)
class ReportGpu:
    name: str
    vram_gb: float
    why: str
    price: float | None = dataclasses.field(default=None, metadata=rule(low=0))
    currency: str | None = None


@dataclasses.dataclass(frozen=True)
class ReportPlatform:
    name: str
    url: str
    why: str


@dataclasses.dataclass(frozen=True)
class ReportRecommendation:
    verdict: str = dataclasses.field(metadata=rule(choices=VERDICTS))
    headline: str
    reasons: tuple[str, ...]
    torch_command: str | None = None
    action: str | None = dataclasses.field(default=None, metadata=rule(choices=ACTIONS))
    gpus: tuple[ReportGpu, ...] = ()
    platforms: tuple[ReportPlatform, ...] = ()


@dataclasses.dataclass(frozen=True)
class Report:
    """What a report must hold besides `schema`, `created` and `[answers]`, which are checked
    on their own (a version message, a date-time with a zone, rules that need the content)."""

    tool_version: str
    language: str = dataclasses.field(metadata=rule(choices=LANGUAGES))
    redacted: bool
    machine: Machine
    findings: tuple[ReportFinding, ...]
    recommendation: ReportRecommendation


# The order problems are listed in: the order of the report's keys.
_REPORT_KEYS = ("schema", "tool_version", "created", "language", "redacted", "answers", "machine",
                "findings", "recommendation")


def validate_report(data: Any, knowledge: Any = None) -> list[str]:
    """Every problem with the report, each with its key path; [] when valid."""
    if not isinstance(data, dict):
        return ["(top level): expected a table"]
    schema = data.get("schema")
    if schema is None:
        return ["schema: missing (this is not a gpu-wizard report)"]
    if not isinstance(schema, str):
        return [f"schema: {SHARED.wrong_type('text', schema)}"]
    if schema != SCHEMA:
        if schema.startswith(SCHEMA_PREFIX):
            return [f"schema: {shown(schema)} is a version this gpu-wizard does not read "
                    f"(it reads {SCHEMA!r}); update gpu-wizard"]
        return [f"schema: {shown(schema)} is not a gpu-wizard report schema"]
    problems = [(p.path[0], p.dotted()) for p in check_record(Report, data, SHARED)]
    created = data.get("created")
    if created is None:
        problems.append(("created", "created: missing"))
    elif not isinstance(created, dt.datetime) or created.tzinfo is None:
        problems.append(("created", "created: expected a TOML date-time with a time zone, "
                                    "e.g. 2026-11-30T12:00:00Z"))
    if "answers" not in data:
        problems.append(("answers", "answers: missing"))
    else:
        answers = data["answers"]
        problems += [("answers", p) for p in answers_problems(answers, "answers", knowledge)]
        if isinstance(answers, dict):
            problems += [("answers", f"answers.{key}: missing")
                         for key in ("need_gpu", "has_nvidia", "form_factor", "goal") if key not in answers]
    return [text for _key, text in sorted(problems, key=lambda item: _REPORT_KEYS.index(item[0]))]
