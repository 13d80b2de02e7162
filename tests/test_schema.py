"""wizard.schema: one declaration per record, read the same way for content, machines and reports."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

import pytest

from wizard.schema import CONTENT, MAX_ITEMS, SHARED, RecordError, check_record, fits, read_record, record_types, rule


@dataclass(frozen=True)
class Part:
    name: str
    watts: int | None = field(default=None, metadata=rule(low=0))


@dataclass(frozen=True)
class Box:
    kind: str = field(metadata=rule(choices=("tower", "laptop")))
    cc: str = field(metadata=rule(pattern=r"\d\.\d", like="8.6", what="a compute capability like 8.6"))
    size_gb: float = field(metadata=rule(low=0.5, high=64))
    count: int | None
    ids: tuple[str, ...] = field(default=(), metadata=rule(items=rule(pattern=r"0x[0-9a-f]{4}", what="a hex id")))
    parts: tuple[Part, ...] = field(default=(), metadata=rule(key="part"))
    note: str = field(default="", metadata=rule(blank=True))
    position: int = field(default=0, metadata=rule(read=False))


GOOD = {"kind": "tower", "cc": "8.6", "size_gb": 8, "count": 2, "ids": ["0x10de"],
        "part": [{"name": "psu", "watts": 650}]}


def problems(data, profile) -> list[str]:
    return [p.dotted() for p in check_record(Box, data, profile, ("box",))]


def test_a_good_table_becomes_the_record_and_fields_not_read_are_given():
    box = read_record(Box, GOOD, SHARED, position=3)
    assert box == Box("tower", "8.6", 8.0, 2, ("0x10de",), (Part("psu", 650),), "", 3)
    assert isinstance(box.size_gb, float)   # a shared file's number is a float where one is declared
    assert isinstance(read_record(Box, GOOD, CONTENT).size_gb, int)   # content keeps what it says


def test_a_required_field_that_may_be_none_is_none_when_missing():
    data = {k: v for k, v in GOOD.items() if k != "count"}
    assert read_record(Box, data, SHARED).count is None
    assert problems({k: v for k, v in GOOD.items() if k != "kind"}, SHARED) == ["box.kind: missing"]


@pytest.mark.parametrize("change, shared, content", [
    ({"kind": "tablet"}, "box.kind: 'tablet' is not one of tower, laptop",
     "box.kind: 'tablet' is not one of tower, laptop"),
    ({"cc": "banana"}, "box.cc: 'banana' is not like '8.6'", "box.cc: 'banana' is not a compute capability like 8.6"),
    ({"size_gb": "lots"}, "box.size_gb: expected a number, got text", "box.size_gb: must be a number, not text"),
    ({"size_gb": 100}, "box.size_gb: 100 is above 64", "box.size_gb: 100 is outside 0.5..64"),
    ({"count": 2.5}, "box.count: expected a whole number, got a number",
     "box.count: must be a whole number, not a number"),
    ({"ids": "0x10de"}, "box.ids: expected a list, got text", "box.ids: must be a list, not text"),
    ({"ids": ["10de"]}, "box.ids[0]: '10de' is not a hex id", "box.ids: item 0: '10de' is not a hex id"),
    ({"part": [{"name": "psu", "watts": -5}]}, "box.part[0].watts: -5 is negative",
     "box.part[0].watts: -5 is below 0"),
    ({"part": ["psu"]}, "box.part[0]: expected a table, got text", "box.part[0]: must be a table, not text"),
])
def test_one_rule_two_wordings(change, shared, content):
    data = dict(GOOD, **change)
    assert problems(data, SHARED) == [shared]
    assert problems(data, CONTENT) == [content]


def test_zero_is_a_bound():
    assert rule(low=0) == {"low": 0, "read": True}
    assert fits(Part, "watts", 0) and not fits(Part, "watts", -1)


def test_content_refuses_unknown_keys_and_empty_values_shared_files_do_not():
    data = dict(GOOD, colour="red", note="", ids=[])
    assert problems(data, SHARED) == []
    assert problems(dict(data, ids=["0x10de"]), CONTENT) == ["box.colour: unknown field (a typo?)"]
    assert problems(dict(GOOD, ids=[]), CONTENT) == ["box.ids: must not be an empty list"]
    assert problems(dict(GOOD, part=[{"name": " "}]), CONTENT) == ["box.part[0].name: must not be empty"]
    assert problems(dict(GOOD, note=""), CONTENT) == []   # blank=True


@pytest.mark.parametrize("value", [math.nan, math.inf, 1e300, 10**400])
def test_numbers_no_one_means_are_refused(value):
    assert problems(dict(GOOD, size_gb=value), SHARED)[0].startswith("box.size_gb: number ")
    assert problems(dict(GOOD, count=value if isinstance(value, int) else 10**20), SHARED)


def test_every_problem_is_listed_one_per_value():
    data = dict(GOOD, kind=7, cc="x", size_gb=-1)
    assert [p.split(":")[0] for p in problems(data, SHARED)] == ["box.kind", "box.cc", "box.size_gb"]
    with pytest.raises(RecordError) as caught:
        read_record(Box, data, SHARED)
    assert len(caught.value.problems) == 3


def test_lists_longer_than_any_file_we_write_are_one_problem():
    found = problems(dict(GOOD, ids=["0x10de"] * (MAX_ITEMS + 1)), SHARED)
    assert found == [f"box.ids: {MAX_ITEMS + 1} entries, more than gpu-wizard ever writes (at most {MAX_ITEMS})"]


def test_long_text_is_cut_in_messages():
    found = problems(dict(GOOD, kind="x" * 5000), SHARED)[0]
    assert len(found) < 120 and "…" in found


def test_not_a_table():
    assert problems([1], SHARED) == ["box: expected a table, got a list"]


def test_annotations_resolve_without_the_or_operator_on_types():
    # "int | None" is evaluated side by side, as Python 3.9 needs.
    assert record_types(Part)["watts"] == Optional[int]


@dataclass(frozen=True)
class Listing:
    names: tuple[str, ...] = field(metadata=rule(unique=True))
    floor: str = field(default="", metadata=rule(pattern=r"\d{3}", what="a driver like 560", blank=True))


def test_a_list_that_must_not_repeat_names_the_list():
    with pytest.raises(RecordError) as info:
        read_record(Listing, {"names": ["a", "b", "a"]}, CONTENT)
    assert [p.dotted() for p in info.value.problems] == ["names: lists an item twice"]
    assert read_record(Listing, {"names": ["a", "b"]}, CONTENT).names == ("a", "b")


def test_blank_text_skips_its_pattern_but_given_text_keeps_it():
    assert read_record(Listing, {"names": ["a"], "floor": ""}, CONTENT).floor == ""
    assert read_record(Listing, {"names": ["a"], "floor": "560"}, CONTENT).floor == "560"
    with pytest.raises(RecordError, match="'56x' is not a driver like 560"):
        read_record(Listing, {"names": ["a"], "floor": "56x"}, CONTENT)
