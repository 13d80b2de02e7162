"""Reading the entries of a content data file, each against its record's declaration, with
every problem raised as a KnowledgeError that names the file, the entry (`gpu[12] "GeForce RTX
4060"`) and the field; and the field rules several records share."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from wizard.knowledge.content import ContentError, read_toml
from wizard.knowledge.damaged import KnowledgeError
from wizard.schema import CONTENT, CURRENCY_CODE, KEBAB_ID, Problem, RecordError, key_path, read_record, rule

DATE = rule(pattern=r"\d{4}(-\d{2}(-\d{2})?)?", what="a date like 2026, 2026-05 or 2026-05-04")


def currency_rule(example: str) -> dict[str, Any]:
    return rule(pattern=CURRENCY_CODE, what=f"a three-letter currency code like {example}")


def id_rule(example: str) -> dict[str, Any]:
    return rule(pattern=KEBAB_ID, what=f"a kebab-case id like {example}")


def read_file(folder: Path, name: str) -> dict[str, Any]:
    try:
        return read_toml(folder / name, name)
    except ContentError as exc:
        raise KnowledgeError(name, "", "", exc.reason) from None


def records_of(file: str, data: dict[str, Any], table: str) -> list[Any]:
    records = data.get(table)
    if not isinstance(records, list) or not records:
        raise KnowledgeError(file, "", table, f"needs at least one [[{table}]] entry")
    return records


def unique_entries(cls: type, file: str, data: dict[str, Any], table: str, key: str,
            twice: str) -> Iterator[tuple[str, Any, Any]]:
    """(label, raw table, record) for each [[table]] entry read as `cls`; a `key` that an earlier
    entry has already is an error (`twice` says so)."""
    seen: set[Any] = set()
    for position, entry in enumerate(records_of(file, data, table)):
        label = entry_label(table, position, entry, key)
        record = read_entry(cls, file, label, entry)
        if getattr(record, key) in seen:
            raise KnowledgeError(file, label, key, twice)
        seen.add(getattr(record, key))
        yield label, entry, record


def entry_label(kind: str, position: int, entry: Any, key: str) -> str:
    value = entry.get(key) if isinstance(entry, dict) else None
    return f'{kind}[{position}] "{value}"' if isinstance(value, str) else f"{kind}[{position}]"


def read_entry(cls: type, file: str, label: str, entry: Any, **given: Any) -> Any:
    """One entry read as `cls`; its first problem raised as a KnowledgeError."""
    try:
        return read_record(cls, entry, CONTENT, **given)
    except RecordError as exc:
        raise entry_error(file, label, exc.problems[0]) from None


def entry_error(file: str, label: str, problem: Problem) -> KnowledgeError:
    """A problem inside an entry, named the way a person looks for it in the file: a table
    inside the entry joins the entry (`platform[3] "autodl" offer[0]`), the last key is the field."""
    *inside, last = problem.path or ("",)
    if isinstance(last, int):
        inside, last = [*inside, last], ""
    entry = " ".join(part for part in (label, key_path(tuple(inside))) if part)
    return KnowledgeError(file, entry, last, problem.reason)


def check_unverified(file: str, label: str, entry: dict[str, Any], what: str, fields: Iterable[str] = ()) -> None:
    """Each name in `unverified` must be a field that has a value in this entry."""
    known = set(fields)
    for name in entry.get("unverified", ()):
        if known and name not in known:
            raise KnowledgeError(file, label, "unverified", f"{name!r} is not a field")
        if name not in entry:
            raise KnowledgeError(file, label, "unverified", f"{name!r} is {what}")
