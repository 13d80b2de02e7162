"""The class roster: one row per report (who is ready, which GPU, torch's state, the verdict,
the problem to act on and its fix), with replays and files sent twice marked, and the students
grouped by problem with the one fix to send each group."""

from __future__ import annotations

import datetime as dt
import json
import math
import os
from collections.abc import Iterable
from typing import Any, NamedTuple

from wizard.diagnosis import judgement
from wizard.presentation import action_of, findings_of, present, recorded_advice
from wizard.probe.facts import machine_from_dict
from wizard.text.i18n import has, t

# Columns are only ever added at the end: a TA's spreadsheet formulas refer to them by position.
SUMMARY_COLUMNS = ("file", "ready", "gpu", "vram_gb", "torch", "torch_gpu", "verdict", "errors",
                   "replay", "duplicate_of", "goal", "os", "problem", "fix", "python")
# What the terminal table shows as columns; `replay` and `duplicate_of` mark the file's cell
# there (neither row is counted as a student).
TABLE_COLUMNS = SUMMARY_COLUMNS[:8]
# The states of a file that is no report to read: such a student is asked for the file again.
UNUSABLE = ("unreadable", "invalid")


class Student(NamedTuple):
    """What the class page and the by-problem groups say of a student besides the row."""

    language: str = ""             # the report's
    problem_title: str = ""        # the leading finding's title as saved (the report's language)
    next_step: str = ""            # the one thing to do next, worded in the reader's language
    fix_is_command: bool = False   # the row's `fix` is the install line: copied whole
    # Every finding as saved: (severity, title, detail, fix).
    findings: tuple[tuple[str, str, str, str], ...] = ()


class Entry(NamedTuple):
    """A valid report as the roster uses it."""

    row: dict[str, str]
    identity: str | None      # the same for one report sent twice
    created: float | None     # when the report was saved (POSIX seconds)
    student: Student


def _gb_text(value: float) -> str:
    # As people say sizes: 12, 10.6, 140 (a driver's 11.99 is a 12 GB card).
    return f"{round(value):d}" if value >= 10 else f"{round(value, 1):g}"


def summarize(reports: Iterable[tuple[str, dict[str, Any]]],
              seen: dict[str, Any] | None = None) -> list[dict[str, str]]:
    """One row per (name, valid report): who is ready, which GPU, torch's state, the verdict.

    A report saved from a replay (`gpu-wizard --machine REPORT`) has replay "yes"; a report
    identical to another in the list (the same file sent twice, under two names) names the
    first of them in duplicate_of (see `place`). Neither is another student: see `counted`.
    `seen` carries the earlier reports over from one call to the next (a roster summarized
    file by file); a copy found later may then mark a row returned earlier.
    """
    seen = {} if seen is None else seen
    rows = []
    for name, report in reports:
        entry = entry_of(name, report)
        rows.append(place(entry.row, entry.identity, seen, entry.created))
    return rows


def entry_of(name: str, report: dict[str, Any], lang: str = "en") -> Entry:
    """A valid report's row, identity, creation time and what the groups and the page say of
    the student (the next step worded in `lang`, the reader's language)."""
    row, student = _summary(name, report, lang)
    return Entry(row, _identity(report), created_of(report), student)


def created_of(report: Any) -> float | None:
    """When the report was saved, in POSIX seconds; None when it does not say (or not as a
    date-time with a zone)."""
    created = report.get("created") if isinstance(report, dict) else None
    if isinstance(created, dt.datetime) and created.tzinfo is not None:
        try:
            return created.timestamp()
        except (OverflowError, ValueError, OSError):
            return None
    return None


def place(row: dict[str, str], identity: str | None, seen: dict[str, Any],
          created: float | None = None) -> dict[str, str]:
    """`row`, with the other rows of the same report in `seen` marked as copies of the first.

    The first is the one saved first (`created`); the same report sent twice was saved once,
    so then the file written first (a copy is written after the file it copies, and made
    after it even when it keeps its time), then the name. Whichever order the files are listed
    in, the later copy carries the mark. A row placed earlier may be marked here: keep the
    rows, and render them once all are placed.
    """
    if identity is None:
        return row
    group = seen.setdefault(identity, [])
    group.append([created, None, row])
    if len(group) > 1:
        for member in group:
            if member[1] is None:   # only a report sent twice pays for a look at its file
                member[1] = _written(member[2]["file"])
        group.sort(key=lambda m: (math.inf if m[0] is None else m[0], m[1], m[2]["file"]))
        first = group[0][2]
        first["duplicate_of"] = ""
        for member in group[1:]:
            member[2]["duplicate_of"] = first["file"]
    return row


def _written(name: str) -> tuple[float, float]:
    """When the file was written (ns), then when it was last changed at all: a copy that kept
    its original's time (`cp -p`) was still made later. Later than any file when the file
    cannot be looked at."""
    try:
        found = os.stat(name)
    except (OSError, ValueError):
        return math.inf, math.inf
    return float(found.st_mtime_ns), float(found.st_ctime_ns)


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
            row = _summary(name, data)[0]
        except Exception:  # a hand-edited file can hold anything; the row is best effort
            pass
    return {**row, "file": name, "ready": state, "duplicate_of": ""}


# ------------------------------------------------------------------- by problem ---

class Fix(NamedTuple):
    """One fix to send, and to whom."""

    text: str                          # the command, or the sentence
    command: bool                      # a command: shown whole, to copy
    files: tuple[str, ...]
    systems: tuple[tuple[str, str], ...]   # the (os, python) of those students, each once


class Group(NamedTuple):
    """The students (not ready) with the same problem, or with no problem but the same next step."""

    problem: str       # the leading finding's id; "" for a group by next step
    verdict: str       # for a group by next step: the verdict they share
    title: str         # the problem, as a report words it (the reader's language where one is)
    files: tuple[str, ...]
    fixes: tuple[Fix, ...]   # most students first; one, unless their computers differ


class Groups(NamedTuple):
    groups: tuple[Group, ...]   # most students first
    ready: int                  # students ready: counted, not listed
    unusable: tuple[str, ...]   # files that could not be used: ask for the report again


def by_problem(students: Iterable[tuple[dict[str, str], Student | None]], lang: str) -> Groups:
    """The students who are not ready, grouped by the problem to act on, each group with the
    fix to send (one per kind of computer where the fix depends on it). Replays and copies are
    left out, as in the totals; ready students are counted, not listed."""
    ready = 0
    unusable: list[str] = []
    members: dict[tuple[str, str], list[tuple[dict[str, str], Student]]] = {}
    for row, student in students:
        if row.get("replay") == "yes" or row.get("duplicate_of"):
            continue
        if row.get("ready") in UNUSABLE or student is None:
            unusable.append(row["file"])
        elif row.get("ready") == "yes":
            ready += 1
        else:
            key = (row["problem"], "") if row.get("problem") else ("", row.get("verdict", ""))
            members.setdefault(key, []).append((row, student))
    groups = []
    for (problem, verdict), group in members.items():
        fixes: dict[str, list[tuple[dict[str, str], Student]]] = {}
        for row, student in group:
            text = row.get("fix") or student.next_step
            fixes.setdefault(text, []).append((row, student))
        if problem:
            worded = [s.problem_title for _r, s in group if s.problem_title]
            mine = [s.problem_title for _r, s in group if s.problem_title and s.language == lang]
            title = (mine or worded or [problem])[0]
        else:
            title = verdict
        shown = [Fix(text, any(s.fix_is_command for _r, s in them),
                     tuple(r["file"] for r, _s in them),
                     tuple(sorted({(r.get("os", ""), r.get("python", "")) for r, _s in them})))
                 for text, them in fixes.items()]
        shown.sort(key=lambda fix: -len(fix.files))   # stable: first seen first among equals
        groups.append(Group(problem, verdict, title, tuple(r["file"] for r, _s in group),
                            tuple(shown)))
    groups.sort(key=lambda group: -len(group.files))
    return Groups(tuple(groups), ready, tuple(unusable))


# ------------------------------------------------------------------------- rows ---

def _summary(name: str, report: dict[str, Any], lang: str = "en") -> tuple[dict[str, str], Student]:
    machine = report.get("machine", {})
    gpus = machine.get("gpus", [])
    best = max(gpus, key=lambda g: (g.get("vendor") == "nvidia", g.get("vram_gb") or 0),
               default=None)
    torch = machine.get("torch") or {}
    rec = report.get("recommendation", {})
    errors = sum(1 for f in report.get("findings", []) if f.get("severity") == "error")
    verdict = rec.get("verdict", "")
    # The same rules as every other screen (wizard.diagnosis.judgement), on the machine rebuilt.
    facts = machine_from_dict(machine)
    findings = findings_of(report.get("findings"))
    torch_gpu = facts.torch is not None and judgement.torch_uses_gpu(facts.torch, findings)
    ready = judgement.ready(facts, findings, verdict if isinstance(verdict, str) else None)
    if torch.get("status") == "ok":
        torch_text = f"{torch.get('version', '?')} ({torch.get('build', '?')})"
    else:
        torch_text = torch.get("status", "unknown")
    vram = best.get("vram_gb") if best else None
    # The problem to act on and its fix, as `report show` and the wizard say it: the action the
    # report recorded (else judgement.decide's: wizard.presentation.action_of), the install line
    # when installing is the next step (the command for this student's OS and Python, as
    # saved), else the finding's own fix. Not present() itself: its wording imports the advice
    # and the market's records, which a roster of 1,000 reports never needs.
    advice = recorded_advice(rec)
    try:
        action = action_of(facts, findings, advice)
    except Exception:  # an invalid report's row is best effort
        action = None
    first = judgement.leading(findings)
    problem = (action.finding if action is not None else None) or (first.id if first else "")
    finding = next((f for f in findings if f.id == problem), None)
    command = advice.torch_command if advice is not None and action is not None \
        and action.kind == "install" else None
    fix = command or (finding.fix if finding is not None else "")
    answers = report.get("answers")
    python = torch.get("python_version") or machine.get("python_version")
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
        "goal": answers.get("goal") if isinstance(answers, dict) else "",
        "os": machine.get("os"),
        "problem": problem,
        # One line: a command to paste, a sentence to send.
        "fix": " ".join(fix.split()) if isinstance(fix, str) else "",
        "python": python,
    }
    language = report.get("language")
    student = Student(
        language=language if isinstance(language, str) else "",
        problem_title=finding.title if finding is not None else "",
        # Only where the groups need it: a student not ready, with no fix to send.
        next_step="" if ready or fix or action is None else _next_step(facts, findings, advice, action, lang),
        fix_is_command=bool(command),
        findings=tuple((f.severity, f.title, f.detail, f.fix) for f in findings))
    # An invalid report's row is best effort: a name that is a number, a verdict that is a table.
    return {key: value if isinstance(value, str) else "" for key, value in row.items()}, student


def _next_step(machine: Any, findings: Any, advice: Any, action: Any, lang: str) -> str:
    """What to tell a student whose computer has nothing to fix, in `lang`: the cloud to use,
    or where the hardware advice is; else the sentence every screen says."""
    if action.kind == "cloud":
        first = advice.platforms[0] if advice is not None and advice.platforms else None
        name = first.get("name") if isinstance(first, dict) else None
        if isinstance(name, str) and name:
            return t("roster.groups.cloud", lang, platform=name)
        return t("roster.groups.cloud-none", lang)
    verdict = advice.verdict if advice is not None else None
    if action.kind == "buy" and verdict and has(f"advice.verdict.{verdict}", lang):
        return t("roster.groups.see-report", lang, verdict=t(f"advice.verdict.{verdict}", lang))

    try:
        return present(machine, findings, advice, lang).action_text
    except Exception:  # an invalid report's row is best effort
        return ""
