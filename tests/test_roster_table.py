"""The roster table's file names: the indexed check that no cut reads as another student's file
gives what checking every row against every other gives (wizard/report/roster_table.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from wizard.report import roster_table
from wizard.report.roster_table import _fit_names, _other_cuts, _take, _take_end, _width
from wizard.text.output import cell_width


def plain_fit_names(names, width, tags, lead=""):
    """_fit_names with exact=True as it was: each row checked against all the others."""
    shown = _fit_names(names, width, tags, lead, exact=False)
    mark = roster_table._ellipsis()
    bases = [n[:-5] if n.lower().endswith(".toml") and len(n) > 5 else n for n in names]
    rooms = [width - cell_width(lead) - cell_width(tag) for tag in tags]
    patterns = []
    for name, base, room in zip(names, bases, rooms):
        if cell_width(name) <= room:
            patterns.append(("full", name))
        elif cell_width(base) <= room:
            patterns.append(("full", base))
        elif room <= cell_width(mark) + 1:
            patterns.append(None)
        else:
            head = _take(base, (room - cell_width(mark)) // 2)
            patterns.append(("ends", head, _take_end(base, room - cell_width(mark) - cell_width(head))))

    def matches(pattern, j):
        kind, base = pattern[0], bases[j]
        if kind == "full":
            return pattern[1] in (names[j], base)
        if kind == "ends":
            return (len(base) > len(pattern[1]) + len(pattern[2]) and base.startswith(pattern[1])
                    and base.endswith(pattern[2]))
        return pattern[1] in base

    def clear(i, pattern, text):
        return all(j == i or names[j] == names[i]
                   or (not matches(pattern, j) and shown[j] != text) for j in range(len(names)))

    for i, pattern in enumerate(patterns):
        if pattern is None or clear(i, pattern, shown[i]):
            continue
        for text, candidate in _other_cuts(bases[i], rooms[i], mark, lead):
            if clear(i, candidate, lead + text + tags[i]):
                shown[i] = lead + text + tags[i]
                break
    return shown


# Names alike in their start, their end or their middle, as a class folder's are; some twice.
_NAME = st.lists(st.sampled_from(["s", "0", "1", "2", "-", "gpu", "report", "学生", ".toml", "_"]),
                 min_size=1, max_size=9).map("".join)


@settings(max_examples=300, deadline=None)
@given(names=st.lists(_NAME, min_size=1, max_size=25), width=st.integers(3, 30),
       tagged=st.lists(st.booleans(), max_size=25), lead=st.sampled_from(["", "…"]))
def test_indexed_check_gives_the_same_names_as_the_plain_one(names, width, tagged, lead):
    tags = [" (copy)" if tagged[i % len(tagged)] else "" for i in range(len(names))] if tagged \
        else [""] * len(names)
    assert _fit_names(names, width, tags, lead) == plain_fit_names(names, width, tags, lead)


@given(st.text(max_size=30))
def test_width_is_cell_width(text):
    assert _width(text) == cell_width(text)
