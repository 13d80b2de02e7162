"""Checking a report against the format (README.md, "The report format"): every problem, each
with its key path."""

from __future__ import annotations

import datetime as dt
from typing import Any

from wizard.answers import answers_problems
from wizard.findings import SEVERITIES
from wizard.i18n import LANGUAGES
from wizard.probe.model import MAX_ITEMS, MachineFormatError, machine_from_dict, scalar_problem, type_name
from wizard.report.schema import FINDING_ID as _FINDING_ID, SCHEMA, SCHEMA_PREFIX, VERDICTS


def validate_report(data: Any, knowledge: Any = None) -> list[str]:
    """Every problem with the report, each with its key path; [] when valid."""
    if not isinstance(data, dict):
        return ["(top level): expected a table"]
    problems: list[str] = []
    schema = data.get("schema")
    if schema is None:
        return ["schema: missing (this is not a gpu-wizard report)"]
    if not isinstance(schema, str):
        return [f"schema: expected text, got {type_name(schema)}"]
    if schema != SCHEMA:
        if schema.startswith(SCHEMA_PREFIX):
            return [f"schema: {schema!r} is a version this gpu-wizard does not read "
                    f"(it reads {SCHEMA!r}); update gpu-wizard"]
        return [f"schema: {_short(schema)!r} is not a gpu-wizard report schema"]
    _check(data, "tool_version", str, problems)
    created = data.get("created")
    if created is None:
        problems.append("created: missing")
    elif not isinstance(created, dt.datetime) or created.tzinfo is None:
        problems.append("created: expected a TOML date-time with a time zone, "
                        "e.g. 2026-11-30T12:00:00Z")
    _check_enum(data, "language", LANGUAGES, "", problems)
    _check(data, "redacted", bool, problems)

    if "answers" not in data:
        problems.append("answers: missing")
    else:
        answers = data["answers"]
        problems += answers_problems(answers, "answers", knowledge)
        if isinstance(answers, dict):
            for key in ("need_gpu", "has_nvidia", "form_factor", "goal"):
                if key not in answers:
                    problems.append(f"answers.{key}: missing")

    if "machine" not in data:
        problems.append("machine: missing")
    else:
        try:
            machine_from_dict(data["machine"], "machine")
        except MachineFormatError as exc:
            problems += exc.problems

    findings = data.get("findings")
    if findings is None:
        problems.append("findings: missing")
    elif not isinstance(findings, list):
        problems.append(f"findings: expected a list, got {type_name(findings)}")
    elif not _too_many(findings, "findings", problems):
        for i, finding in enumerate(findings):
            problems += _finding_problems(finding, f"findings[{i}]")

    if "recommendation" not in data:
        problems.append("recommendation: missing")
    else:
        problems += _recommendation_problems(data["recommendation"], "recommendation")
    return problems


def _too_many(items: list, path: str, problems: list[str]) -> bool:
    """More entries than any report of ours holds: one problem, not one per entry."""
    if len(items) > MAX_ITEMS:
        problems.append(f"{path}: {len(items)} entries, more than a report holds (at most {MAX_ITEMS})")
        return True
    return False


def _finding_problems(finding: Any, path: str) -> list[str]:
    if not isinstance(finding, dict):
        return [f"{path}: expected a table, got {type_name(finding)}"]
    problems: list[str] = []
    if _check(finding, "id", str, problems, path) and not _FINDING_ID.fullmatch(finding["id"]):
        problems.append(f"{path}.id: {_short(finding['id'])!r} is not a kebab-case id")
    _check_enum(finding, "severity", SEVERITIES, path, problems)
    _check(finding, "title", str, problems, path)
    _check(finding, "detail", str, problems, path)
    _check(finding, "fix", str, problems, path, required=False)
    return problems


def _recommendation_problems(rec: Any, path: str) -> list[str]:
    if not isinstance(rec, dict):
        return [f"{path}: expected a table, got {type_name(rec)}"]
    problems: list[str] = []
    _check_enum(rec, "verdict", VERDICTS, path, problems)
    _check(rec, "headline", str, problems, path)
    _check(rec, "torch_command", str, problems, path, required=False)
    if _check(rec, "reasons", list, problems, path) and not _too_many(rec["reasons"], f"{path}.reasons", problems):
        for i, reason in enumerate(rec["reasons"]):
            if not isinstance(reason, str):
                problems.append(f"{path}.reasons[{i}]: expected text, got {type_name(reason)}")
    for table, fields in (("gpus", (("name", str, True), ("vram_gb", float, True),
                                    ("price", float, False), ("currency", str, False),
                                    ("why", str, True))),
                          ("platforms", (("name", str, True), ("url", str, True),
                                         ("why", str, True)))):
        if table not in rec:
            continue
        items = rec[table]
        if not isinstance(items, list):
            problems.append(f"{path}.{table}: expected a list, got {type_name(items)}")
            continue
        if _too_many(items, f"{path}.{table}", problems):
            continue
        for i, item in enumerate(items):
            item_path = f"{path}.{table}[{i}]"
            if not isinstance(item, dict):
                problems.append(f"{item_path}: expected a table, got {type_name(item)}")
                continue
            for key, kind, required in fields:
                _check(item, key, kind, problems, item_path, required=required)
            price = item.get("price")
            if isinstance(price, (int, float)) and not isinstance(price, bool) and price < 0:
                problems.append(f"{item_path}.price: {price} is negative")
    return problems


def _check(table: dict, key: str, kind: type, problems: list[str], path: str = "",
           required: bool = True) -> bool:
    """True when table[key] is present and of the right kind; records a problem otherwise."""
    key_path = f"{path}.{key}" if path else key
    if key not in table:
        if required:
            problems.append(f"{key_path}: missing")
        return False
    value = table[key]
    if kind in (bool, int, float, str):
        problem = scalar_problem(kind, value, key_path)
        if problem:
            problems.append(problem)
        return problem is None
    if not isinstance(value, kind):
        problems.append(f"{key_path}: expected {_kind_name(kind)}, got {type_name(value)}")
        return False
    return True


def _check_enum(table: dict, key: str, allowed: tuple[str, ...], path: str,
                problems: list[str]) -> None:
    key_path = f"{path}.{key}" if path else key
    if _check(table, key, str, problems, path) and table[key] not in allowed:
        problems.append(f"{key_path}: {_short(table[key])!r} is not one of {', '.join(allowed)}")


def _kind_name(kind: type) -> str:
    return {list: "a list", dict: "a table"}.get(kind, kind.__name__)


def _short(text: str) -> str:
    return text if len(text) <= 40 else text[:40] + "…"
