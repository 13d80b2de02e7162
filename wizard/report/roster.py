"""The class roster: one row per report (who is ready, which GPU, torch's state, the verdict),
with replays and files sent twice marked."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

SUMMARY_COLUMNS = ("file", "ready", "gpu", "vram_gb", "torch", "torch_gpu", "verdict", "errors",
                   "replay", "duplicate_of")
# What the terminal table shows as columns; `replay` and `duplicate_of` mark the file's cell
# there (neither row is counted as a student).
TABLE_COLUMNS = SUMMARY_COLUMNS[:8]


def _gb_text(value: float) -> str:
    # As people say sizes: 12, 10.6, 140 (a driver's 11.99 is a 12 GB card).
    return f"{round(value):d}" if value >= 10 else f"{round(value, 1):g}"


def summarize(reports: Iterable[tuple[str, dict[str, Any]]],
              seen: dict[str, str] | None = None) -> list[dict[str, str]]:
    """One row per (name, valid report): who is ready, which GPU, torch's state, the verdict.

    A report saved from a replay (`gpu-wizard --machine REPORT`) has replay "yes"; a report
    identical to an earlier one in the list (the same file sent twice, under two names) names
    that one in duplicate_of. Neither is another student: see `counted`. `seen` carries the
    earlier reports over from one call to the next (a roster summarized file by file).
    """
    seen = {} if seen is None else seen
    return [place(*row_of(name, report), seen) for name, report in reports]


def row_of(name: str, report: dict[str, Any]) -> tuple[dict[str, str], str | None]:
    """A valid report's roster row, and what it shares with the same file sent twice."""
    return _summary_row(name, report), _identity(report)


def place(row: dict[str, str], identity: str | None, seen: dict[str, str]) -> dict[str, str]:
    """`row`, marked as a copy of the earlier report in `seen` with the same identity."""
    if identity is not None and identity in seen:
        row["duplicate_of"] = seen[identity]
    elif identity is not None:
        seen[identity] = row["file"]
    return row


def counted(row: dict[str, str]) -> bool:
    """Whether a roster row is a student of its own: not a replay, not a copy of another row."""
    return row.get("replay") != "yes" and not row.get("duplicate_of")


def _identity(report: Any) -> str | None:
    """The same for two reports with the same content: the same answers and machine, saved in
    the same second, each probe taking the same milliseconds. Two students' computers do not
    produce that (not even a lab of identical ones); one file sent twice does. The redacted
    reports hold nothing else that could tell one computer from another, so two different
    checks of one computer stay two rows.

    The canonical text itself, not a digest of it: a class's reports are a few MB at most, and
    a roster need not import hashlib."""
    try:
        return json.dumps(report, sort_keys=True, default=str, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return None


def unusable_row(name: str, state: str, data: Any = None) -> dict[str, str]:
    """The roster row of a report that is "invalid" (read, but fails validation) or
    "unreadable": the student stays on the roster. An invalid report shows what it can."""
    row = {column: "" for column in SUMMARY_COLUMNS}
    if isinstance(data, dict):
        try:
            row = _summary_row(name, data)
        except Exception:  # a hand-edited file can hold anything; the row is best effort
            pass
    return {**row, "file": name, "ready": state, "duplicate_of": ""}


def _summary_row(name: str, report: dict[str, Any]) -> dict[str, str]:
    from wizard import judgement
    from wizard.presentation import findings_of
    from wizard.probe.model import machine_from_dict

    machine = report.get("machine", {})
    gpus = machine.get("gpus", [])
    best = max(gpus, key=lambda g: (g.get("vendor") == "nvidia", g.get("vram_gb") or 0),
               default=None)
    torch = machine.get("torch") or {}
    rec = report.get("recommendation", {})
    errors = sum(1 for f in report.get("findings", []) if f.get("severity") == "error")
    verdict = rec.get("verdict", "")
    # The same rules as every other screen (wizard.judgement), on the machine rebuilt.
    facts = machine_from_dict(machine)
    findings = findings_of(report.get("findings"))
    torch_gpu = facts.torch is not None and judgement.torch_uses_gpu(facts.torch, findings)
    ready = judgement.ready(facts, findings, verdict if isinstance(verdict, str) else None)
    if torch.get("status") == "ok":
        torch_text = f"{torch.get('version', '?')} ({torch.get('build', '?')})"
    else:
        torch_text = torch.get("status", "unknown")
    vram = best.get("vram_gb") if best else None
    row = {
        "file": name,
        "ready": "yes" if ready else "no",
        "gpu": best.get("name", "") if best else "",
        "vram_gb": _gb_text(vram) if isinstance(vram, (int, float)) and not isinstance(vram, bool) else "",
        "torch": torch_text,
        "torch_gpu": "yes" if torch_gpu else "no",
        "verdict": verdict,
        "errors": str(errors),
        # Saved from `gpu-wizard --machine REPORT`: an earlier report's machine, not a new check.
        "replay": "yes" if isinstance(report.get("replay"), dict) else "no",
        "duplicate_of": "",
    }
    # An invalid report's row is best effort: a name that is a number, a verdict that is a table.
    return {key: value if isinstance(value, str) else "" for key, value in row.items()}
