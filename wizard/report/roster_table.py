"""The class roster as a terminal table (`gpu-wizard report summarize`): no wider than the
terminal, every student's file told apart however names are cut, totals and notes below."""

from __future__ import annotations

import bisect
import codecs
import functools
import itertools
import os
import re
import shutil
import sys
from collections.abc import Iterable
from typing import Any

from wizard.report.roster import SUMMARY_COLUMNS, TABLE_COLUMNS, UNUSABLE, counted
from wizard.text.i18n import has, t
from wizard.text.output import cell_width, wrap

# The roster table when it is wider than the terminal: columns go in this order, least
# important first (`--csv` always has them all), and these may be shortened down to a floor.
# The error count stays at 80 columns (issue 12): "Torch GPU" goes first, as "Ready" and the
# PyTorch build ("+cpu") already say most of it.
_DROP_ORDER = ("torch_gpu", "errors", "vram_gb", "torch", "gpu")  # the issue asks for GPU and VRAM
_MIN_WIDTH = {"file": 16, "gpu": 12, "torch": 13}
_SEP = "  "


def render_table(rows: list[dict[str, str]], lang: str, width: int | None = None) -> str:
    """The roster as text no wider than `width` cells (default: the terminal's, else 80).

    The full table when it fits. Otherwise a compact one: file names relative to their common
    folder, GPU and torch names shortened, short labels; then the least important columns left
    out and the longest names cut (…) until it fits, with a note that says what is missing.
    Every student's file name stays told apart from the others however it is cut. Under the
    table: the totals (replays and copies marked in their row and not counted as students),
    what the status words mean, and the notes.
    """
    if width is None:
        width = shutil.get_terminal_size((80, 24)).columns
    columns = list(TABLE_COLUMNS)
    titles = {c: t("report.summarize.vram" if c == "vram_gb" else f"report.summarize.{c}", lang)
              for c in columns}
    # One line per student: a line break or tab inside a (hand-edited) value is a space here.
    rows = [{c: _one_line(row.get(c, "")) for c in SUMMARY_COLUMNS} for row in rows]
    tags = [_tag(row, lang) for row in rows]
    # Each (column, value) worded once: 200 students show a few GPUs, builds and verdicts.
    cell = functools.cache(lambda column, value: _cell(column, value, lang))
    compact_cell = functools.cache(lambda column, value: _compact_cell(column, value, lang))
    cells = {c: [cell(c, row[c]) for row in rows] for c in columns}
    lead = ""   # "…" when the start every name shares is left out
    spill: dict[int, str] = {}   # row: its Ready text, shown over the empty cells after it

    def measured() -> dict[str, list[str]]:  # the file column holds the names and their tags
        return {**cells, "file": [lead + name + tag for name, tag in zip(cells["file"], tags)]}

    notes: list[str] = []
    if _table_width(columns, _natural(titles, measured())) > width:
        titles = {c: t(f"roster.header.{c}", lang) for c in columns}
        files, folder = _short_files([row["file"] for row in rows])
        cells = {c: files if c == "file" else [compact_cell(c, row[c]) for row in rows]
                 for c in columns}
        # A file that could not be used has no GPU to show: its state ("invalid report") runs
        # on into the empty cells after it instead of widening "Ready" for every row (which
        # cost the error count at 80 columns).
        for i, row in enumerate(rows):
            if row["ready"] in UNUSABLE and not cells["gpu"][i]:
                spill[i] = cells["ready"][i]
                cells["ready"][i] = ""
        if folder:
            # Said once below the table; a folder longer than the line is cut in its middle.
            notes.append(_note_with_path("roster.folder", "folder", folder, lang, width))
    # A tagged name keeps room for some of the name besides its tag, where the width allows.
    tagged = max([_width(tag) for tag in tags if tag], default=0)

    def fit(at_least: int = 0) -> tuple[list[str], dict[str, int], list[str]]:
        # The file names' floor that keeps the most columns (the error count at 80 columns,
        # however long a tag or a status word), the widest of those.
        best = None
        for floor in (tagged + 10, tagged + 6, _MIN_WIDTH["file"]):
            laid = _layout(list(TABLE_COLUMNS), titles, measured(), width,
                           dict(_MIN_WIDTH, file=max(floor, at_least, _MIN_WIDTH["file"])))
            if _table_width(laid[0], laid[1]) <= width and (best is None or len(laid[2]) < len(best[2])):
                best = laid
        return best or laid

    columns, widths, dropped = fit()
    shared = _shared_start(cells["file"])
    if widths["file"] < _natural(titles, measured())["file"] and shared:
        # The names will not fit whole: the start they all share goes (said once below the
        # table), and what tells them apart stays ("…135215.toml").
        lead = _ellipsis()
        cells["file"] = [name[len(shared):] for name in cells["file"]]
        columns, widths, dropped = fit()
        notes.append(_note_with_path("roster.shared", "start", shared, lang, width,
                                     mark=lead, title=titles["file"]))
    # A cut that leaves two students with the same name is no roster: give the names more room
    # (and other columns less, never fewer columns) while that helps; then cut each name where
    # it differs from the others.
    files = _fit_names(cells["file"], widths["file"], tags, lead, exact=False)
    distinct = len(set(measured()["file"]))
    while len(set(files)) < distinct and widths["file"] < _natural(titles, measured())["file"]:
        wider = fit(widths["file"] + 2)
        if _table_width(wider[0], wider[1]) > width or wider[2] != dropped:
            break   # no room left to give
        columns, widths, dropped = wider
        files = _fit_names(cells["file"], widths["file"], tags, lead, exact=False)
    files = _fit_names(cells["file"], widths["file"], tags, lead)
    cut = files != measured()["file"]
    # Two different cards never look alike however their names are cut ("RX 6700/6…" and
    # "RX 6800/6…", not "Radeon RX 6…" twice).
    gpus = _distinct_cuts(cells["gpu"], widths["gpu"]) if "gpu" in widths else {}
    shown = []
    for i in range(len(rows)):
        texts = [files[i]]
        for c in columns[1:]:
            text = cells[c][i]
            if _width(text) > widths[c]:
                text = gpus[text] if c == "gpu" else _cut(text, widths[c])
                cut = True
            texts.append(text)
        if i in spill:
            texts[1] = _spilled(spill[i], texts, columns, widths)
        shown.append(texts)

    def line(texts: list[str]) -> str:
        # Each cell at its column's start; a spilled one covers the empty cells after it.
        out, used, at = "", 0, 0
        for x, c in zip(texts, columns):
            if x:
                out += " " * max(at - used, 0) + x
                used = max(at, used) + _width(x)
            at += widths[c] + len(_SEP)
        return out.rstrip()

    out = [line([titles[c] for c in columns]), line(["-" * widths[c] for c in columns])]
    out += [line(r) for r in shown]
    out.append("")
    out += _wrap_to(total_line(rows, lang), width)
    for text in _legend(rows, columns, titles, lang):
        out += _wrap_to(text, width)
    if dropped:
        # Named as in the full table's header, so the TA can find them in the CSV's.
        full = {c: t("report.summarize.vram" if c == "vram_gb" else f"report.summarize.{c}", lang)
                for c in dropped}
        names = t("roster.list-sep", lang).join(full[c] for c in TABLE_COLUMNS if c in full)
        notes.append(t("roster.hidden", lang, columns=names))
    elif cut:
        notes.append(t("roster.shortened", lang))
    for note in notes:
        out += _wrap_to(note, width)
    return "\n".join(out) + "\n"


def _spilled(text: str, row: list[str], columns: list[str], widths: dict[str, int]) -> str:
    """`text` in the Ready cell of `row` and the empty cells that follow it, cut if longer."""
    room = widths[columns[1]]
    for c, x in zip(columns[2:], row[2:]):
        if x:
            break
        room += len(_SEP) + widths[c]
    return text if _width(text) <= room else _cut(text, room)


def _tag(row: dict[str, str], lang: str) -> str:
    """What follows a file's name in the roster when it is no other student: replay, duplicate."""
    if row.get("replay") == "yes":
        tag = t("roster.tag.replay", lang)
    elif row.get("duplicate_of"):
        tag = t("roster.tag.copy", lang)
    else:
        return ""
    return tag if tag[:1] in "（【" else " " + tag


def total_line(rows: list[dict[str, str]], lang: str) -> str:
    """"4 of 10 ready.", or, with rows that are no student of their own, how many were left out:
    "4 of 10 students ready (1 replay not counted)."."""
    students = [row for row in rows if counted(row)]
    ready = sum(1 for row in students if row["ready"] == "yes")
    replays = sum(1 for row in rows if row.get("replay") == "yes")
    copies = len(rows) - len(students) - replays
    if not replays and not copies:
        return t("report.summarize.total", lang, ready=ready, total=len(students))
    left_out = ([t("roster.uncounted.replay", lang, count=replays)] if replays else []) \
        + ([t("roster.uncounted.copy", lang, count=copies)] if copies else [])
    return t("roster.total", lang, ready=ready, total=len(students),
             uncounted=t("roster.uncounted.sep", lang).join(left_out))


def _legend(rows: list[dict[str, str]], columns: list[str], titles: dict[str, str],
            lang: str) -> list[str]:
    """One line for each status word the table shows: what "Ready" means, and the others."""
    value = {v: t(f"report.value.{v}", lang) for v in ("yes", "unreadable", "invalid")}
    lines = [t("roster.legend.ready", lang, title=titles["ready"], yes=value["yes"])]
    for column in ("torch_gpu", "errors"):
        if column in columns:
            lines.append(t(f"roster.legend.{column}", lang, title=titles[column],
                           yes=value["yes"]))
    if any(row["ready"] in ("unreadable", "invalid") for row in rows):
        lines.append(t("roster.legend.unusable", lang, **value))
    if any(row.get("replay") == "yes" for row in rows):
        lines.append(t("roster.legend.replay", lang, tag=t("roster.tag.replay", lang)))
    if any(row.get("duplicate_of") and row.get("replay") != "yes" for row in rows):
        lines.append(t("roster.legend.copy", lang, tag=t("roster.tag.copy", lang)))
    return lines


def _note_with_path(key: str, name: str, path: str, lang: str, width: int, **values: str) -> str:
    """A note under the table that names a folder or a start of names; one longer than a line
    is cut in its middle."""
    room = max(width - 1, 20) - 4   # a line of its own, with the quotes and the full stop
    if _width(path) > room:
        path = _cut(path, room, middle=True)
    return t(key, lang, **{name: path}, **values)


_LINE_BREAK = re.compile(r"[\t\n\r\x0b\x0c\x85\u2028\u2029]")


def _one_line(value: str) -> str:
    return _LINE_BREAK.sub(" ", value)


def _layout(columns: list[str], titles: dict[str, str], cells: dict[str, list[str]],
            width: int, min_width: dict[str, int] | None = None,
            ) -> tuple[list[str], dict[str, int], list[str]]:
    """Which columns to show and how wide: leave out the least important ones until the rest fit
    at their floors, then narrow the widest of what may be cut, one cell at a time."""
    natural = _natural(titles, cells)
    min_width = _MIN_WIDTH if min_width is None else min_width
    floor = {c: min(natural[c], max(min_width.get(c, natural[c]), _width(titles[c])))
             for c in columns}
    order = list(columns)
    columns = list(columns)
    dropped = []
    for column in _DROP_ORDER:
        if _table_width(columns, floor) <= width:
            break
        columns.remove(column)
        dropped.append(column)
    # A narrow column left out before a wide one may fit again once that one is gone: the error
    # count (3 cells) when PyTorch's (13) made room.
    for column in reversed(dropped[:-1]):
        if _table_width(columns + [column], floor) <= width:
            columns = [c for c in order if c in columns or c == column]
            dropped.remove(column)
    widths = {c: natural[c] for c in columns}
    while _table_width(columns, widths) > width:
        shrinkable = [c for c in columns if widths[c] > floor[c]]
        if not shrinkable:
            break
        widths[max(shrinkable, key=lambda c: widths[c])] -= 1
    return columns, widths, dropped


def _wrap_to(text: str, width: int, indent: int = 0) -> list[str]:
    """Wrapped into `width` cells, each line `indent` cells in: Chinese closing punctuation may
    not start a line, so it can hang past the wrap width; wrap narrower until it does not (a
    path or a command too long for any line stays whole)."""
    limit = max(width - 1, 20)
    for narrower in range(limit, max(limit - 8, 10), -1):
        lines = wrap(text, narrower, indent=indent)
        if all(_width(line) <= limit for line in lines):
            return lines
    return wrap(text, limit, indent=indent)


def _natural(titles: dict[str, str], cells: dict[str, list[str]]) -> dict[str, int]:
    return {c: max([_width(titles[c])] + [_width(x) for x in cells[c]]) for c in titles}


def _table_width(columns: list[str], widths: dict[str, int]) -> int:
    return sum(widths[c] for c in columns) + len(_SEP) * (len(columns) - 1)


def _short_files(names: list[str]) -> tuple[list[str], str]:
    """Names relative to the folder they all share, and that folder ("" when none)."""
    folder = ""
    dirs = [os.path.dirname(name) for name in names]
    if names and all(dirs):
        try:
            common = os.path.commonpath(dirs)
        except ValueError:  # absolute and relative paths mixed, or different drives
            common = ""
        prefixes = [common + os.sep, common + "/"] if common else []
        if prefixes and all(any(n.startswith(p) for p in prefixes) for n in names):
            folder = common + os.sep
            names = [n[len(common) + 1:] for n in names]
    return names, folder


_NAME_BREAKS = "-_. /\\"


def _shared_start(names: list[str]) -> str:
    """The start every file name shares, up to a separator ("student-" of student-01, -02…)."""
    if len(names) < 2:
        return ""
    common = os.path.commonprefix(names)
    while common and common[-1] not in _NAME_BREAKS:
        common = common[:-1]
    return common if len(common) >= 3 else ""


def _fit_names(names: list[str], width: int, tags: list[str], lead: str = "",
               exact: bool = True) -> list[str]:
    """Each file name in `width` cells: `lead` (the mark for the start every name shares) first,
    its tag last. A name too long loses ".toml", then its middle. With `exact`, a row whose cut
    could be read as another student's file (or reads the same as another row) is cut
    elsewhere: its start and end in other proportions, else a window on the part that tells it
    apart ("…t-07-gpu-re…"), so no two students look alike at any width."""
    mark = _ellipsis()
    bases = [n[:-5] if n.lower().endswith(".toml") and len(n) > 5 else n for n in names]
    rooms = [width - _width(lead) - _width(tag) for tag in tags]
    texts: list[str] = []
    patterns: list[tuple[str, ...] | None] = []
    for name, base, room, tag in zip(names, bases, rooms, tags):
        if _width(name) <= room:
            texts.append(name)
            patterns.append(("full", name))
        elif _width(base) <= room:
            texts.append(base)
            patterns.append(("full", base))
        elif room <= _width(mark) + 1:   # no room for a name at all: cut what there is
            texts.append(_cut(lead + name + tag, width))
            patterns.append(None)
        else:
            head = _take(base, (room - _width(mark)) // 2)
            tail = _take_end(base, room - _width(mark) - _width(head))
            texts.append(head + mark + tail)
            patterns.append(("ends", head, tail))
    shown = [(lead + text + tag) if pattern else text
             for text, pattern, tag in zip(texts, patterns, tags)]
    if not exact:
        return shown

    def matches(pattern: tuple[str, ...], j: int) -> bool:
        """Whether the cut `pattern` could be read as row j's file."""
        kind, base = pattern[0], bases[j]
        if kind == "full":
            return pattern[1] in (names[j], base)
        if kind == "ends":
            return (len(base) > len(pattern[1]) + len(pattern[2]) and base.startswith(pattern[1])
                    and base.endswith(pattern[2]))
        return pattern[1] in base

    # Indexes, so that checking a row against the others does not look at all 200 of them: the
    # rows a "full" or "ends" cut may match, and the rows showing each text.
    by_name: dict[str, list[int]] = {}
    for j, (name, base) in enumerate(zip(names, bases)):
        for key in {name, base}:
            by_name.setdefault(key, []).append(j)
    by_base = sorted(range(len(bases)), key=bases.__getitem__)
    sorted_bases = [bases[j] for j in by_base]
    showing: dict[str, set[int]] = {}
    for j, text in enumerate(shown):
        showing.setdefault(text, set()).add(j)

    def may_match(pattern: tuple[str, ...]) -> Iterable[int]:
        """Every row `pattern` matches (and maybe a few more)."""
        if pattern[0] == "full":
            return by_name.get(pattern[1], ())
        if pattern[0] == "ends":   # the bases that start with the head sort together
            start = bisect.bisect_left(sorted_bases, pattern[1])
            return itertools.takewhile(lambda j: bases[j].startswith(pattern[1]), by_base[start:])
        return range(len(names))

    def clear(i: int, pattern: tuple[str, ...], text: str) -> bool:
        others = (j for j in itertools.chain(may_match(pattern), showing.get(text, ()))
                  if j != i and names[j] != names[i])
        return not any(matches(pattern, j) or shown[j] == text for j in others)

    for i, pattern in enumerate(patterns):
        if pattern is None or clear(i, pattern, shown[i]):
            continue
        for candidate in _other_cuts(bases[i], rooms[i], mark, lead):
            text = lead + candidate[0] + tags[i]
            if clear(i, candidate[1], text):
                showing[shown[i]].discard(i)
                showing.setdefault(text, set()).add(i)
                shown[i] = text
                break
    return shown


def _other_cuts(base: str, room: int, mark: str, lead: str):
    """Cuts of `base` into `room` cells, nearest the middle first: (text, pattern)."""
    keep = room - _width(mark)
    middle = keep // 2
    for step in range(1, keep + 1):
        for h in (middle - step, middle + step):
            if 0 <= h <= keep and (h > 0 or not lead):
                head = _take(base, h)
                tail = _take_end(base, keep - _width(head))
                if len(head) + len(tail) < len(base):
                    yield head + mark + tail, ("ends", head, tail)
    inner = room - 2 * _width(mark)
    if inner < 1:
        return
    for start in range(1, len(base)):
        mid = _take(base[start:], inner)
        if not mid or start + len(mid) >= len(base):
            return
        yield mark + mid + mark, ("window", mid)


def _distinct_cuts(values: list[str], width: int) -> dict[str, str]:
    """Each distinct value wider than `width`, cut to fit: at its end ("RTX 4070 SU…"), unless
    that reads as another value, then where it differs ("RX 67…0 XT")."""
    mark = _ellipsis()
    every = sorted(set(values))
    shown = {v: v if _width(v) <= width else _cut(v, width) for v in every}
    users: dict[str, set[str]] = {}
    for value, text in shown.items():
        users.setdefault(text, set()).add(value)
    for value in every:
        if len(users[shown[value]]) < 2:
            continue
        for text, _pattern in _other_cuts(value, width, mark, ""):
            if text not in users:
                users[shown[value]].discard(value)
                users[text] = {value}
                shown[value] = text
                break
    return shown


def _width(text: str) -> int:
    """cell_width, at once for ASCII (one cell a character): a roster measures every cell often
    while it fits the columns (thousands of times for 200 rows)."""
    return len(text) if text.isascii() else _wide_width(text)


@functools.cache
def _wide_width(text: str) -> int:
    return cell_width(text)


def _take(text: str, cells: int) -> str:
    """The start of `text` that fits in `cells`."""
    if text.isascii():   # one cell a character: most file names, at once
        return text[:max(cells, 0)]
    kept, used = [], 0
    for ch in text:
        used += _width(ch)
        if used > cells:
            break
        kept.append(ch)
    return "".join(kept)


def _take_end(text: str, cells: int) -> str:
    return _take(text[::-1], cells)[::-1]


def _compact_cell(column: str, value: str, lang: str) -> str:
    if column == "gpu":
        # "NVIDIA GeForce RTX 4060 Laptop GPU" -> "RTX 4060 Laptop": the words every name repeats.
        # "Radeon RX 6700 XT" -> "RX 6700 XT", "Intel Arc A770" -> "Arc A770": RX and Arc say whose.
        short = re.sub(r"\b(?:NVIDIA|GeForce|AMD)\s+|\b(?:Radeon\s+(?=RX\b)|Intel\s+(?=Arc\b))"
                       r"|\((?:R|TM)\)|[®™]|\s+GPU$", "", value).strip()
        return re.sub(r"\s{2,}", " ", short) or value
    if column == "torch":
        # "2.13.0+cu130 (cuda)" -> "2.13.0+cu130": the local version already names the build.
        match = re.fullmatch(r"(\S+\+\S+) \(\w+\)", value)
        return match.group(1) if match else _cell(column, value, lang)
    if column == "verdict" and has(f"roster.verdict.{value}", lang):
        return t(f"roster.verdict.{value}", lang)
    return _cell(column, value, lang)


def _cut(text: str, width: int, middle: bool = False) -> str:
    """`text` in at most `width` cells, the cut marked with an ellipsis (in the middle: file names
    differ at their start and their end)."""
    mark = _ellipsis()
    room = width - _width(mark)
    if room <= 0:
        return mark[:width]

    if not middle:
        return _take(text, room) + mark
    head = _take(text, room // 2)
    return head + mark + _take_end(text, room - _width(head))


def _ellipsis() -> str:
    """One cell on a UTF-8 terminal; legacy code pages (GBK) draw "…" two cells wide."""
    encoding = getattr(sys.stdout, "encoding", None) or "ascii"
    try:
        return "…" if codecs.lookup(encoding).name == "utf-8" else "~"
    except LookupError:
        return "~"


def _cell(column: str, value: str, lang: str) -> str:
    if column in ("ready", "torch_gpu"):
        return t(f"report.value.{value}", lang) if value else ""
    if column == "verdict" and value:
        return t(f"advice.verdict.{value}", lang)
    if column == "torch" and has(f"report.torch-status.{value}", lang):
        return t(f"report.torch-status.{value}", lang)
    return value


# ------------------------------------------------------------------- by problem ---

def render_groups(groups: Any, lang: str, width: int | None = None) -> str:
    """Under the table: each problem with how many students have it, their files and the fix
    to send them (one per kind of computer where the fix differs); then how many are ready,
    and the files that could not be used. `groups`: wizard.report.roster.by_problem's.

    A command is never wrapped (a command split over two lines gets pasted half): on a line of
    its own when it does not fit, even past the width."""
    if width is None:
        width = shutil.get_terminal_size((80, 24)).columns
    every = [f for group in groups.groups for f in group.files] + list(groups.unusable)
    short = dict(zip(every, _short_files(every)[0]))
    sep = t("roster.groups.file-sep", lang)
    out = ["", *_wrap_to(t("roster.groups.heading", lang), width)]
    if not groups.groups:
        out += _wrap_to(t("roster.groups.none", lang), width)
    for group in groups.groups:
        if group.problem:
            problem = t("roster.groups.problem", lang, title=_one_line(group.title), id=group.problem) \
                if group.title != group.problem else group.problem
        else:
            problem = t("roster.groups.next-step", lang, verdict=_verdict(group.verdict, lang))
        out += _wrap_to(t("roster.groups.count", lang, count=len(group.files), problem=problem), width)
        for fix in group.fixes:
            files = sep.join(short[f] for f in fix.files)
            if len(group.fixes) > 1:
                files = t("roster.groups.where", lang, files=files, systems=_systems(fix.systems, lang))
            out += _wrap_to(files, width, indent=2)
            if not fix.text:   # a finding without a fix, and no command: its title says it all
                continue
            send = t("roster.groups.send", lang, fix=_one_line(fix.text))
            if fix.command and _width(send) + 2 > max(width - 1, 20):
                out += _wrap_to(t("roster.groups.send", lang, fix="").rstrip(), width, indent=2)
                out.append("    " + _one_line(fix.text))
            else:
                out += _wrap_to(send, width, indent=2)
    if groups.ready:
        out += _wrap_to(t("roster.groups.ready", lang, count=groups.ready), width)
    if groups.unusable:
        out += _wrap_to(t("roster.groups.unusable", lang, count=len(groups.unusable),
                          files=sep.join(short[f] for f in groups.unusable)), width)
    return "\n".join(out) + "\n"


def _verdict(verdict: str, lang: str) -> str:
    return t(f"advice.verdict.{verdict}", lang) if has(f"advice.verdict.{verdict}", lang) else verdict


def _systems(systems: Iterable[tuple[str, str]], lang: str) -> str:
    """"Linux, Python 3.11; Windows, Python 3.12": whose computers a fix is for."""
    said = []
    for os_name, python in systems:
        shown = t(f"roster.os.{os_name}", lang) if os_name and has(f"roster.os.{os_name}", lang) else os_name
        minor = ".".join(python.split(".")[:2])
        said.append(t("roster.groups.system", lang, os=_one_line(shown) or "?", python=_one_line(minor) or "?"))
    return t("roster.groups.system-sep", lang).join(dict.fromkeys(said))
