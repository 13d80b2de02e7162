"""Records declared once, and the one reader that checks a TOML table against them.

A record is a dataclass. A field's type says what its TOML value must be: text, a number, a
whole number, true/false, a list (`tuple[X, ...]`) or another record's table, and `X | None`
may be left out. `rule(...)` in the field's metadata adds what a type cannot say: a closed set
of words, a form, a range, how many list entries. `read_record` checks a table against a
record and builds it; every problem names its key path.

Two kinds of file are read, for two kinds of reader, so the same broken rule is worded for who
must fix it (`Profile`):

* `CONTENT`: our own content/*.toml. A typo there would surface as wrong advice far from its
  cause, so an unknown key is an error, text and lists that are given are never empty, and the
  sentence reads "must be a number, not text".
* `SHARED`: reports, recorded machines and answers files people send. A newer gpu-wizard may
  add keys (ignored here); no list may hold more than `MAX_ITEMS` entries; every problem is
  listed, as "machine.ram_gb: expected a number, got text".

Either way a value breaks at most one rule: one problem per value. Pure data, no Textual.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import math
import re
import sys
import typing
from typing import Any, Callable, NamedTuple, Union

# No machine has more GPUs, probes or warnings than this, and no report more findings; a file
# with thousands is not one we wrote, and every reader would have to draw them all.
MAX_ITEMS = 64
# What a value of a shared file may be at most: no megabyte of text in one field, no number
# that is infinite or too large to compare.
MAX_TEXT = 10_000
_MAX_INT = 2**53
_MAX_FLOAT = 1e15

# Forms more than one kind of file uses: finding, goal, platform and market ids; currency codes.
KEBAB_ID = r"[a-z0-9]+(?:-[a-z0-9]+)*"
CURRENCY_CODE = r"[A-Z]{3}"


def rule(*, choices: tuple[str, ...] | None = None, pattern: str | None = None,
         like: str | None = None, what: str | None = None, low: float | None = None,
         high: float | None = None, max_items: int | None = None, items: dict[str, Any] | None = None,
         unique: bool = False, blank: bool = False, key: str | None = None,
         read: bool = True) -> dict[str, Any]:
    """A field's constraints, for `field(metadata=rule(...))`.

    choices: the only values allowed. pattern: a regular expression the whole text matches;
    `like` is an example ("8.6") and `what` a description ("a compute capability like 8.9")
    for the message. low/high: the range of a number (low=0 alone: never negative).
    max_items: how many list entries at most. items: the rule for each entry of a list.
    unique: no entry of the list twice. blank: content text may be empty (a pattern then
    applies to text that is given). key: the file's key when it is not the field's name.
    read: False for a field the reader fills in itself, never read from the file.
    """
    out: dict[str, Any] = {
        # The pattern is compiled on first use (re keeps it): declaring a record costs nothing.
        "choices": choices, "pattern": pattern, "like": like,
        "what": what, "low": low, "high": high, "max_items": max_items, "items": items,
        "unique": unique, "blank": blank, "key": key, "read": read,
    }
    # Only what was given: 0 is a bound (`low=0`), not an absent one.
    return {name: value for name, value in out.items()
            if value is not None and (value is not False or name == "read")}


class Problem(NamedTuple):
    """One broken rule: the key path (keys and list positions) and the reason."""

    path: tuple[Any, ...]
    reason: str

    def dotted(self) -> str:
        """ "machine.gpus[0].vram_gb: -8.0 is negative" """
        return f"{key_path(self.path) or '(top level)'}: {self.reason}"


def key_path(path: tuple[Any, ...]) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


# ------------------------------------------------------------------------ wording ---

# What each kind of value is called in a message.
_KINDS = {str: "text", int: "a whole number", float: "a number", bool: "true or false",
          list: "a list", dict: "a table"}


def type_name(raw: Any) -> str:
    """How a TOML value's type reads in an error message for a person."""
    return {
        dict: "a table", list: "a list", str: "text", bool: "true/false", int: "a whole number",
        float: "a number", dt.datetime: "a date-time", dt.date: "a date", dt.time: "a time",
    }.get(type(raw), type(raw).__name__)


def shown(value: Any) -> str:
    """A value as a message quotes it: text cut at 40 characters, so a hostile file cannot
    fill the screen through an error message."""
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:40] + "…")
    return repr(value)


def _number(value: float) -> str:
    return str(value) if isinstance(value, int) else f"{value:g}"


class Profile(NamedTuple):
    """How a kind of file is read: its policies, and how its problems are worded."""

    name: str
    unknown_keys: bool        # an unknown key is a problem
    non_empty: bool           # text and lists that are given must not be empty
    max_items: int | None     # entries a list may hold at most
    keep_numbers: bool        # an int in a float field stays an int (content), or becomes float
    wrong_type: Callable[[str, Any], str]
    missing: str
    range_words: Callable[[Any, Any, Any], str]
    item_problem: Callable[[tuple, int, str], Problem]


def _content_range(value: Any, low: Any, high: Any) -> str:
    if low is not None and high is not None:
        return f"{value} is outside {_number(low)}..{_number(high)}"
    return f"{value} is below {_number(low)}" if low is not None else f"{value} is above {_number(high)}"


def _shared_range(value: Any, low: Any, high: Any) -> str:
    if low == 0 and value < 0:
        return f"{value!r} is negative"
    if low is not None and value < low:
        return f"{value!r} is below {_number(low)}"
    return f"{value!r} is above {_number(high)}"


CONTENT = Profile(
    name="content", unknown_keys=True, non_empty=True, max_items=None, keep_numbers=True,
    wrong_type=lambda kind, raw: f"must be {kind}, not {type_name(raw)}",
    missing="is missing",
    range_words=_content_range,
    # A list of plain values is one field: its entry is named in the reason.
    item_problem=lambda path, position, reason: Problem(path, f"item {position}: {reason}"),
)
SHARED = Profile(
    name="shared", unknown_keys=False, non_empty=False, max_items=MAX_ITEMS, keep_numbers=False,
    wrong_type=lambda kind, raw: f"expected {kind}, got {type_name(raw)}",
    missing="missing",
    range_words=_shared_range,
    item_problem=lambda path, position, reason: Problem(path + (position,), reason),
)


# ------------------------------------------------------------------------ reading ---

class RecordError(ValueError):
    """A table that does not fit its record; `problems` holds every broken rule."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("; ".join(p.dotted() for p in problems))


def read_record(cls: type, data: Any, profile: Profile, path: tuple[Any, ...] = (),
                **given: Any) -> Any:
    """`data` as a `cls`; RecordError listing every problem when it does not fit.

    `given` fills the fields that are not read from the file (`rule(read=False)`)."""
    problems: list[Problem] = []
    record = _record(cls, data, profile, path, problems, given)
    if problems:
        raise RecordError(problems)
    return record


def check_record(cls: type, data: Any, profile: Profile, path: tuple[Any, ...] = ()) -> list[Problem]:
    """The problems `read_record` would raise, without building the record."""
    problems: list[Problem] = []
    _record(cls, data, profile, path, problems, None)
    return problems


_MISSING = object()


class _Field(NamedTuple):
    """One field as the reader walks it, worked out once per record class."""

    name: str
    key: str              # its key in the file
    rules: dict[str, Any]
    required: bool        # no default: missing is a problem (or None, when it may be None)
    optional: bool        # `X | None`
    shape: str            # "value", "list" or "record"
    kind: Any             # str, int, float, bool, number (float | int), or the record class
    item: Any = None      # a list's entry: a value kind or a record class


_NUMBER = "number"   # `float | int`: a number, kept as written


@functools.cache
def _plan(cls: type) -> tuple[_Field, ...]:
    out = []
    for f in dataclasses.fields(cls):
        if not f.metadata.get("read", True):
            continue
        tp = record_types(cls)[f.name]
        optional = _optional(tp)
        if optional:
            tp = _without_none(tp)
        shape, item = "value", None
        if typing.get_origin(tp) is tuple:
            shape, item = "list", _value_kind(typing.get_args(tp)[0])
        elif dataclasses.is_dataclass(tp):
            shape = "record"
        out.append(_Field(f.name, f.metadata.get("key", f.name), dict(f.metadata),
                          f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING,
                          optional, shape, tp if shape != "value" else _value_kind(tp), item))
    return tuple(out)


def _value_kind(tp: Any) -> Any:
    if dataclasses.is_dataclass(tp) or tp in (str, int, float, bool):
        return tp
    if typing.get_origin(tp) in _UNIONS and set(typing.get_args(tp)) == {int, float}:
        return _NUMBER
    raise TypeError(f"no rule for values of type {tp!r}")  # a bug in a declaration, not input


def _record(cls: type, data: Any, profile: Profile, path: tuple[Any, ...], problems: list[Problem],
            given: dict[str, Any] | None) -> Any:
    if not isinstance(data, dict):
        problems.append(Problem(path, profile.wrong_type("a table", data)))
        return None
    before = len(problems)
    plan = _plan(cls)
    if profile.unknown_keys:
        keys = {f.key for f in plan}
        problems += [Problem(path + (key,), "unknown field (a typo?)") for key in data if key not in keys]
    values: dict[str, Any] = {}
    for f in plan:
        raw = data.get(f.key, _MISSING)
        if raw is _MISSING:
            if f.required and not f.optional:
                problems.append(Problem(path + (f.key,), profile.missing))
            elif f.required:
                values[f.name] = None
            continue
        if raw is None and f.optional:
            values[f.name] = None
        elif f.shape == "list":
            values[f.name] = _list(f.item, f.rules, raw, profile, path + (f.key,), problems)
        elif f.shape == "record":
            values[f.name] = _record(f.kind, raw, profile, path + (f.key,), problems, {})
        else:
            reason = _scalar(f.kind, f.rules, raw, profile)
            if reason:
                problems.append(Problem(path + (f.key,), reason))
            elif f.kind is float and not profile.keep_numbers:
                raw = float(raw)
            values[f.name] = raw
    if len(problems) > before or given is None:
        return None
    return cls(**values, **given)


def _list(item: Any, rules: dict[str, Any], raw: Any, profile: Profile, path: tuple[Any, ...],
          problems: list[Problem]) -> tuple[Any, ...]:
    if not isinstance(raw, list):
        problems.append(Problem(path, profile.wrong_type("a list", raw)))
        return ()
    limit = rules.get("max_items", profile.max_items)
    if limit is not None and len(raw) > limit:
        problems.append(Problem(path, f"{len(raw)} entries, more than gpu-wizard ever writes (at most {limit})"))
        return ()
    if profile.non_empty and not raw:
        problems.append(Problem(path, "must not be an empty list"))
        return ()
    if isinstance(item, type) and dataclasses.is_dataclass(item):
        return tuple(_record(item, entry, profile, path + (position,), problems, {})
                     for position, entry in enumerate(raw))
    item_rules = rules.get("items", {})
    out = []
    for position, entry in enumerate(raw):
        reason = _scalar(item, item_rules, entry, profile)
        if reason:
            problems.append(profile.item_problem(path, position, reason))
            continue
        out.append(float(entry) if item is float and not profile.keep_numbers else entry)
    if rules.get("unique") and len(set(out)) != len(out):
        problems.append(Problem(path, "lists an item twice"))
    return tuple(out)


def scalar_reason(tp: Any, rules: Any, raw: Any, profile: Profile = SHARED) -> str | None:
    """What is wrong with one value that should be text, a number, a whole number or
    true/false under `rules`; None when nothing is."""
    return _scalar(_value_kind(tp), rules, raw, profile)


def _scalar(kind: Any, rules: Any, raw: Any, profile: Profile) -> str | None:
    if kind is bool:
        if not isinstance(raw, bool):
            return profile.wrong_type("true or false", raw)
        return None
    if kind in (int, float, _NUMBER):
        allowed = (int,) if kind is int else (int, float)
        if isinstance(raw, bool) or not isinstance(raw, allowed):
            return profile.wrong_type(_KINDS[kind] if kind is int else "a number", raw)
        # A whole number with hundreds of digits cannot even become a float: check its size first.
        limit = _MAX_INT if kind is int else _MAX_FLOAT
        if (isinstance(raw, int) and abs(raw) >= limit) or not math.isfinite(raw) or abs(raw) >= limit:
            text = str(raw) if len(str(raw)) <= 24 else str(raw)[:20] + "…"
            return f"number {text} is out of range"
        low, high = rules.get("low"), rules.get("high")
        if (low is not None and raw < low) or (high is not None and raw > high):
            return profile.range_words(raw, low, high)
        return None
    if kind is str:
        if not isinstance(raw, str):
            return profile.wrong_type("text", raw)
        if len(raw) > MAX_TEXT:
            return f"text is {len(raw)} characters long (at most {MAX_TEXT})"
        if profile.non_empty and not rules.get("blank") and not raw.strip():
            return "must not be empty"
        allowed = rules.get("choices")
        if allowed is not None and raw not in allowed:
            return f"{shown(raw)} is not one of {', '.join(allowed)}"
        pattern = rules.get("pattern")
        if pattern is not None and (raw or not rules.get("blank")) and not re.fullmatch(pattern, raw):
            what = rules.get("what") if profile is CONTENT or not rules.get("like") else None
            return f"{shown(raw)} is not {what}" if what else f"{shown(raw)} is not like {rules['like']!r}"
        return None
    raise TypeError(f"no rule for values of type {kind!r}")  # a bug in a declaration, not input


def fits(cls: type, name: str, value: Any) -> bool:
    """Whether `value` may be field `name` of `cls` (type and rules), for data that did not
    come through `read_record`: a child process's answer holds to the same rules as a file."""
    f = next(f for f in dataclasses.fields(cls) if f.name == name)
    tp = record_types(cls)[name]
    if _optional(tp):
        tp = _without_none(tp)
    return scalar_reason(tp, f.metadata, value) is None


# ------------------------------------------------------------------------- types ---

@functools.cache
def record_types(cls: type) -> dict[str, Any]:
    """Each field's type, resolved from its annotation: once per class, not once per table
    (summarizing a class of 200 reports spent most of its time resolving)."""
    scope = vars(sys.modules[cls.__module__])
    return {f.name: _resolve(f.type, scope) if isinstance(f.type, str) else f.type
            for f in dataclasses.fields(cls)}


def _resolve(annotation: str, scope: dict[str, Any]) -> Any:
    """ "int | None" → Optional[int], evaluated in the record's module.

    `typing.get_type_hints` evaluates "X | None" with the `|` operator, which types only have
    from Python 3.10 on; lab servers run 3.9. Each side of a top-level `|` is evaluated alone."""
    parts = [part.strip() for part in annotation.split("|")]
    if any(part.count("[") != part.count("]") for part in parts):
        parts = [annotation]  # a `|` inside brackets: not ours to split
    resolved = tuple(eval(part, dict(scope)) for part in parts)  # our own annotations, never input
    return resolved[0] if len(resolved) == 1 else Union[resolved]


# `int | None` made at run time is types.UnionType from Python 3.10 on; before, only Union exists.
_UNIONS = tuple({Union, getattr(__import__("types"), "UnionType", Union)})


def _optional(tp: Any) -> bool:
    return typing.get_origin(tp) in _UNIONS and type(None) in typing.get_args(tp)


def _without_none(tp: Any) -> Any:
    inner = tuple(a for a in typing.get_args(tp) if a is not type(None))
    return inner[0] if len(inner) == 1 else Union[inner]
