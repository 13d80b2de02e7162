"""A finding: one thing worth telling the user about this machine, with the fix."""

from __future__ import annotations

from dataclasses import dataclass

SEVERITIES = ("ok", "info", "warning", "error")
SEVERITY_RANK = {name: rank for rank, name in enumerate(SEVERITIES)}


@dataclass(frozen=True)
class Finding:
    id: str          # stable kebab-case id, e.g. "nvidia-nouveau-bound"
    severity: str    # one of SEVERITIES
    title: str       # in the report's language
    detail: str
    fix: str = ""


def worst(findings: list[Finding]) -> str:
    return max((f.severity for f in findings), key=SEVERITY_RANK.__getitem__, default="ok")
