"""The Markdown of the guide pages, drawn with Rich's basic renderables.

The guide pages (content/<lang>/*.md) use a small part of Markdown: headings, paragraphs,
bullet and numbered lists (one level of nesting), tables, fenced code, **bold**, *italic*,
`code` and [links](url). Textual's Markdown widget builds a widget per paragraph, and Rich's
Markdown pulls in markdown-it and Pygments: together about a third of the wizard's start-up
time and 3 MB, measured by benchmarks/tui_bench.py. This draws the same pages from
rich.text / rich.table, which Textual has loaded anyway. Anything outside the subset is shown
as plain text, never dropped, and nothing is ever read as Textual or Rich markup.

Chinese lines joined inside a paragraph get no space between them (CommonMark would insert
one), and bold next to full-width punctuation works (CommonMark's flanking rules refuse it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.padding import Padding
from rich.style import Style
from rich.table import Table
from rich.text import Text

from wizard.text.output import break_offsets, break_units, is_cjk

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^(\s*)([-*+])\s+(.*)$")
_NUMBER = re.compile(r"^(\s*)(\d{1,3})[.)]\s+(.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")
# A paragraph wholly in italics, such as a page's "*As of 2026-11.*" and its sources.
_NOTE = re.compile(r"^(\*[^*\s][^*]*(?<!\s)\*|_[^_\s][^_]*(?<!\s)_)$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_INLINE = re.compile(
    r"(?P<code>`+)(?P<code_text>.+?)(?P=code)"
    r"|\*\*(?P<bold>.+?)\*\*|__(?P<bold2>.+?)__"
    r"|(?<!\*)\*(?P<italic>[^*\s](?:.*?[^*\s])?)\*(?!\*)"
    r"|(?<![\w_])_(?P<italic2>[^_\s](?:.*?[^_\s])?)_(?![\w])"
    r"|\[(?P<link>[^\]]+)\]\((?P<url>[^)\s]+)\)"
    r"|\\(?P<escaped>[\\`*_\[\]#|-])"
)
class Wrapped:
    """Styled text that wraps Chinese between any two characters, and Latin between words.

    Rich breaks lines only at spaces, so a long run of Chinese after an English word jumps
    to the next line whole and leaves a ragged gap; this wraps as a Chinese reader expects.
    """

    def __init__(self, text: Text) -> None:
        self.text = text

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        units = [u.rstrip() for u in break_units(self.text.plain)]
        longest = max((cell_len(u) for u in units), default=0)
        widest = max((cell_len(part) for part in self.text.plain.split("\n")), default=0)
        return Measurement(min(longest, options.max_width), widest)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(1, options.max_width)
        for part in self.text.split("\n", allow_blank=True):   # explicit line breaks first
            for line in part.divide(wrap_offsets(part.plain, width)):
                line.rstrip()
                line.end = "\n"
                yield line

    def __str__(self) -> str:
        return self.text.plain


def wrap_offsets(plain: str, width: int) -> list[int]:
    """Where to break `plain` so that no line is wider than `width` cells, as Rich counts them."""
    return break_offsets(plain, width, cell_len)


@dataclass
class Styles:
    code: Style = field(default_factory=lambda: Style(bold=True))
    heading: Style = field(default_factory=lambda: Style(bold=True))
    link: Style = field(default_factory=lambda: Style(underline=True))
    ascii_only: bool = False   # LANG=C: "*" bullets and ASCII table lines
    # Called on the text of each paragraph and list item, in page order (not on headings,
    # tables or code): screens.widgets.Guide links the glossary's terms with it.
    prose: Callable[[Text], None] | None = None

    def body(self, text: Text) -> Text:
        if self.prose is not None:
            self.prose(text)
        return text


@dataclass
class _Item:
    mark: str
    indent: int
    lines: list[str]


def render(markdown: str, styles: Styles | None = None) -> RenderableType:
    """One Rich renderable for a whole page; blocks are separated by a blank line."""
    styles = styles or Styles()
    blocks = [block for _, block in _blocks(markdown.splitlines(), styles)]
    out: list[RenderableType] = []
    for block in blocks:
        if out:
            out.append(Text(""))
        out.append(block)
    return Group(*out)


@dataclass(frozen=True)
class Block:
    """Where one block of a page is drawn: its first row and how many rows it takes."""

    kind: str   # "heading"; "note" (a paragraph in italics: the date, the sources); "text"
    top: int
    height: int


def layout(markdown: str, width: int, console: Console, styles: Styles | None = None) -> list[Block]:
    """The blocks of a page as `render` draws it `width` cells wide (one blank row between)."""
    styles = styles or Styles()
    options = console.options.update_width(max(1, width))
    blocks: list[Block] = []
    top = 0
    for kind, renderable in _blocks(markdown.splitlines(), styles):
        height = len(console.render_lines(renderable, options, pad=False))
        blocks.append(Block(kind, top, height))
        top += height + 1
    return blocks


def text_start(blocks: list[Block], rows: int) -> int:
    """The first row to show in a pane `rows` high so that it shows the page's text.

    A page starts with its date and often a heading; in a short pane they would fill it, and
    the reader would see a heading with nothing under it. The pane starts at the top when it
    shows two rows of the first text block from there, else at the latest block start that
    still does (the heading over the text), else at the text itself.
    """
    lead = next((block for block in blocks if block.kind == "text"), None)
    if lead is None:
        return 0
    needed = lead.top + min(2, lead.height)
    for block in blocks:
        if block.top > lead.top:
            break
        if needed - block.top <= rows:
            return block.top
    return lead.top


def inline(text: str, styles: Styles, base: Style | None = None) -> Text:
    """Bold, italic, code and links of one paragraph, as styled plain text."""
    out = Text(style=base or "")
    pos = 0
    for match in _INLINE.finditer(text):
        out.append(text[pos:match.start()])
        pos = match.end()
        kind = match.lastgroup
        if match.group("code"):
            out.append(match.group("code_text").strip(), style=styles.code)
        elif match.group("bold") or match.group("bold2"):
            out.append_text(inline(match.group("bold") or match.group("bold2"), styles,
                                   Style(bold=True)))
        elif match.group("italic") or match.group("italic2"):
            out.append_text(inline(match.group("italic") or match.group("italic2"), styles,
                                   Style(italic=True)))
        elif match.group("link"):
            out.append(match.group("link"), style=styles.link)
            if match.group("url") != match.group("link"):
                out.append(f" ({match.group('url')})")
        elif kind == "escaped":
            out.append(match.group("escaped"))
    out.append(text[pos:])
    return out


def join_lines(lines: list[str]) -> str:
    """A paragraph's lines as one: a space between words, none between Chinese characters."""
    text = ""
    for line in (line.strip() for line in lines):
        if not line:
            continue
        if text and not (is_cjk(text[-1]) and is_cjk(line[0])):
            text += " "
        text += line
    return text


# ------------------------------------------------------------------------- blocks ---

def _blocks(lines: list[str], styles: Styles):
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if heading := _HEADING.match(line):
            level = len(heading.group(1))
            base = styles.heading + Style(underline=level == 1, italic=level > 2)
            yield "heading", Wrapped(inline(heading.group(2), styles, base))
            i += 1
        elif opening := _FENCE.match(line):
            fence = opening.group(1)
            body = []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(fence):
                body.append(lines[i])
                i += 1
            i += 1  # the closing fence (or the end of the page)
            yield "text", Padding(Text("\n".join(body), style=styles.code), (0, 0, 0, 2))
        elif _is_table(lines, i):
            rows = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                rows.append(lines[i])
                i += 1
            yield "text", _table(rows, styles)
        elif _BULLET.match(line) or _NUMBER.match(line):
            numbered = bool(_NUMBER.match(line))
            items: list[_Item] = []
            while i < len(lines):
                current = lines[i]
                start = _item_start(current, numbered)
                if start and (not items or len(start.group(1)) <= items[0].indent + 1
                              or not _item_start(current, not numbered)):
                    mark = start.group(2) + ("." if numbered else "")
                    items.append(_Item(mark, len(start.group(1)), [start.group(3)]))
                elif (start := _item_start(current, not numbered)) and items \
                        and len(start.group(1)) >= items[0].indent + 2:
                    # a nested list of the other kind: one level deeper
                    mark = start.group(2) + ("." if not numbered else "")
                    items.append(_Item(mark, len(start.group(1)), [start.group(3)]))
                elif current.strip() and items and not _starts_block(current):
                    items[-1].lines.append(current)   # a continuation, indented or lazy
                elif not current.strip() and _list_continues(lines, i + 1, numbered):
                    pass                                # a loose list: the blank line is inside
                else:
                    break
                i += 1
            yield "text", _list(items, styles)
        else:
            para = []
            while i < len(lines) and lines[i].strip() and not _starts_block(lines[i]):
                para.append(lines[i])
                i += 1
            if not para:  # a line that only looked like a block start: keep it as text
                para, i = [line], i + 1
            text = join_lines([p.removeprefix(">").strip() if p.lstrip().startswith(">") else p
                               for p in para])
            if _NOTE.match(text):
                yield "note", Wrapped(inline(text, styles))
            else:
                yield "text", Wrapped(styles.body(inline(text, styles)))


def _starts_block(line: str) -> bool:
    return bool(_HEADING.match(line) or _FENCE.match(line) or _BULLET.match(line)
                or _NUMBER.match(line) or line.strip().startswith("|"))


def _item_start(line: str, numbered: bool):
    return _NUMBER.match(line) if numbered else _BULLET.match(line)


def _list_continues(lines: list[str], i: int, numbered: bool) -> bool:
    return i < len(lines) and bool(_item_start(lines[i], numbered))


def _list(items: list[_Item], styles: Styles) -> Table:
    grid = Table.grid(padding=(0, 1, 0, 0), expand=True)
    base_indent = min(item.indent for item in items)
    marks = [_mark(item, styles) for item in items]
    grid.add_column(width=max(cell_len(m) + 2 * _depth(i, base_indent)
                              for m, i in zip(marks, items)), no_wrap=True)
    grid.add_column(ratio=1)
    for mark, item in zip(marks, items):
        depth = _depth(item, base_indent)
        grid.add_row(Text("  " * depth + mark), Wrapped(styles.body(inline(join_lines(item.lines), styles))))
    return grid


def _depth(item: _Item, base_indent: int) -> int:
    return 1 if item.indent >= base_indent + 2 else 0


def _mark(item: _Item, styles: Styles) -> str:
    if item.mark[0].isdigit():
        return item.mark
    return "*" if styles.ascii_only else "•"



def _is_table(lines: list[str], i: int) -> bool:
    return (lines[i].strip().startswith("|") and i + 1 < len(lines)
            and bool(_TABLE_RULE.match(lines[i + 1])))


def _cells(row: str) -> list[str]:
    row = row.strip()
    row = row[1:] if row.startswith("|") else row
    row = row[:-1] if row.endswith("|") else row
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", row)]


def _table(rows: list[str], styles: Styles) -> Table:
    header, body = _cells(rows[0]), [_cells(r) for r in rows[2:]]
    table = Table(box=box.ASCII if styles.ascii_only else box.SIMPLE_HEAD, show_edge=False,
                  pad_edge=False, header_style=Style(bold=True))
    for title in header:
        table.add_column(inline(title, styles))
    for cells in body:
        cells = (cells + [""] * len(header))[: len(header)]
        table.add_row(*(inline(cell, styles) for cell in cells))
    return table
