"""A finding: one thing worth telling the user about this machine, with the fix."""

from __future__ import annotations

from dataclasses import dataclass

from wizard.text.i18n import t

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


def make_finding(area: str, fid: str, severity: str, lang: str, **values: object) -> Finding:
    """A finding whose texts are `<area>.<fid>.title/detail/fix` in the strings."""
    return Finding(
        id=fid,
        severity=severity,
        title=t(f"{area}.{fid}.title", lang, **values),
        detail=t(f"{area}.{fid}.detail", lang, **values),
        fix=t(f"{area}.{fid}.fix", lang, **values),
    )
