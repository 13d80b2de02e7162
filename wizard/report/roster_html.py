"""The class roster as one web page (`gpu-wizard report summarize --html OUT`): the table, sortable
and filterable, the students grouped by problem with the fix to send, each student's findings a
click away; readable on a phone, in the reader's language.

One self-contained file: the style and the script are in the page, nothing is fetched (a TA
opens it from a folder, offline, or mails it on). Every text from a report is someone else's:
it is escaped wherever it goes, never put in the script or in an event handler, and the page's
Content-Security-Policy lets only its own style and script run (by their hashes), so even a
text that got past the escaping could not run or load anything.
"""

from __future__ import annotations

import base64
import hashlib
import html
from collections.abc import Iterable, Sequence
from typing import Any

from wizard import __version__
from wizard.report.roster import UNUSABLE, by_problem, counted
from wizard.report.roster_table import _cell, _short_files, _systems, _tag, _verdict, total_line
from wizard.text.i18n import has, t

# The roster's columns on the page: the terminal table's, then what a teacher filters by.
PAGE_COLUMNS = ("file", "ready", "gpu", "vram_gb", "torch", "torch_gpu", "verdict", "errors",
                "goal", "os", "python", "problem")
_NUMERIC = frozenset({"vram_gb", "errors"})

_STYLE = """
:root { color-scheme: light dark; --line: #c8ccd2; --soft: #f2f4f7; --ink: #1d2330; --dim: #5a6272;
  --bad: #b3261e; --warn: #8a5a00; --good: #1e6b34; }
@media (prefers-color-scheme: dark) {
  :root { --line: #3b4250; --soft: #20252e; --ink: #e6e8ec; --dim: #a3aab8;
    --bad: #ff8a80; --warn: #ffcc66; --good: #8bd59d; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 80rem; padding: 1rem; color: var(--ink);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", "PingFang SC", "Microsoft YaHei",
  "Noto Sans CJK SC", sans-serif; overflow-wrap: break-word; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
h2 { font-size: 1.2rem; margin: 1.5rem 0 .5rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1rem; margin: 0 0 .25rem; }
.note, .made { color: var(--dim); font-size: .9rem; margin: .25rem 0; }
.total { font-weight: 600; margin: .25rem 0; }
.group { border: 1px solid var(--line); border-radius: .5rem; padding: .75rem; margin: .75rem 0; }
.group ul.files { margin: .25rem 0; padding-left: 1.25rem; }
.id { color: var(--dim); font-size: .85rem; }
pre { background: var(--soft); padding: .5rem; border-radius: .25rem; margin: .25rem 0;
  white-space: pre-wrap; word-break: break-all; user-select: all; }
code, pre { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: .9rem; }
.controls { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; margin: .5rem 0; }
.controls input, .controls select { font: inherit; padding: .25rem .5rem; max-width: 100%; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .35rem .5rem; border-bottom: 1px solid var(--line); }
th button { font: inherit; font-weight: 600; background: none; border: 0; padding: 0; color: inherit;
  cursor: pointer; text-align: left; }
th[aria-sort=ascending] button::after { content: " \\25B2"; }
th[aria-sort=descending] button::after { content: " \\25BC"; }
td.num { text-align: right; }
td.num, td.os, td.python, td.ready, td.torch_gpu { white-space: nowrap; }
.scroll { overflow-x: auto; }
tr[data-state=ready] td.ready { color: var(--good); font-weight: 600; }
tr[data-state=unusable] td.ready { color: var(--bad); font-weight: 600; }
tr[data-state=uncounted] { color: var(--dim); }
summary { cursor: pointer; }
details[open] { min-width: 16rem; }
ul.findings { list-style: none; padding: 0; margin: .5rem 0; }
ul.findings li { margin: 0 0 .5rem; }
ul.findings p { margin: .1rem 0; }
.sev { font-size: .8rem; font-weight: 600; text-transform: uppercase; margin-right: .35rem; }
.sev-error .sev { color: var(--bad); }
.sev-warning .sev { color: var(--warn); }
.sev-ok .sev { color: var(--good); }
.tag { color: var(--dim); }
[hidden] { display: none !important; }
@media (max-width: 44rem) {
  body { padding: .5rem; }
  table, tbody, tr, td { display: block; width: 100%; }
  thead tr { display: flex; flex-wrap: wrap; gap: .25rem; }
  thead th { border: 1px solid var(--line); border-radius: 1rem; padding: .1rem .6rem; font-size: .85rem; }
  tbody tr { border: 1px solid var(--line); border-radius: .5rem; margin: .5rem 0; padding: .25rem 0; }
  td { border: 0; padding: .15rem .6rem; display: flex; gap: .5rem; }
  td::before { content: attr(data-label); flex: 0 0 7.5rem; color: var(--dim); font-size: .85rem; }
  td.num { text-align: left; }
  td:empty, td.blank { display: none; }
  td.file { display: block; }
  td.file::before { display: none; }
  td.file summary { font-weight: 600; }
}
"""

_SCRIPT = """
(function () {
  "use strict";
  var table = document.getElementById("roster");
  var body = table.tBodies[0];
  var filter = document.getElementById("filter");
  var show = document.getElementById("show");
  var shown = document.getElementById("shown");
  var collator = new Intl.Collator(document.documentElement.lang, {numeric: true, sensitivity: "base"});
  var items = Array.prototype.map.call(body.rows, function (row) {
    return {row: row, text: row.textContent.toLowerCase(), state: row.getAttribute("data-state")};
  });
  function apply() {
    var words = filter.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var wanted = show.value, count = 0;
    items.forEach(function (item) {
      var keep = (wanted === "all" || item.state === wanted) &&
        words.every(function (word) { return item.text.indexOf(word) !== -1; });
      item.row.hidden = !keep;
      if (keep) { count += 1; }
    });
    shown.textContent = shown.getAttribute("data-template")
      .replace("{shown}", String(count)).replace("{total}", String(items.length));
  }
  function key(item, column, numeric) {
    var cell = item.row.cells[column];
    var value = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent;
    return numeric ? (value === "" ? NaN : Number(value)) : value;
  }
  var heads = table.tHead.rows[0].cells;
  Array.prototype.forEach.call(heads, function (head, column) {
    var button = head.querySelector("button");
    button.addEventListener("click", function () {
      var up = head.getAttribute("aria-sort") !== "ascending";
      var numeric = button.getAttribute("data-type") === "number";
      Array.prototype.forEach.call(heads, function (other) { other.setAttribute("aria-sort", "none"); });
      head.setAttribute("aria-sort", up ? "ascending" : "descending");
      var keyed = items.map(function (item, at) { return {item: item, at: at, value: key(item, column, numeric)}; });
      keyed.sort(function (a, b) {
        var order;
        if (numeric) {
          var x = isNaN(a.value), y = isNaN(b.value);
          // Empty cells last, whichever way.
          order = x || y ? (x === y ? 0 : (x ? 1 : -1)) : (up ? a.value - b.value : b.value - a.value);
        } else {
          order = up ? collator.compare(a.value, b.value) : collator.compare(b.value, a.value);
        }
        return order || a.at - b.at;
      });
      items = keyed.map(function (entry) { return entry.item; });
      items.forEach(function (item) { body.appendChild(item.row); });
    });
  });
  filter.addEventListener("input", apply);
  show.addEventListener("change", apply);
  apply();
}());
"""


def render_html(rows: Sequence[dict[str, str]], students: Sequence[Any], lang: str,
                goals: dict[str, str] | None = None, skipped: Sequence[str] = ()) -> str:
    """The page for `rows` (wizard.report.roster's, copies already marked) and each row's
    Student (None for a file that could not be used). `goals`: goal id -> its name in `lang`;
    `skipped`: why each file could not be used ("" for the others), in `lang`."""
    goals = goals or {}
    reasons = list(skipped) + [""] * (len(rows) - len(skipped))
    students = list(students) + [None] * (len(rows) - len(students))
    # Names relative to the folder they share, said once at the top, as the table does.
    names, folder = _short_files([row["file"] for row in rows])
    short = dict(zip((row["file"] for row in rows), names))
    rows = [{**row, "file": short[row["file"]],
             "duplicate_of": short.get(row.get("duplicate_of", ""), row.get("duplicate_of", ""))}
            for row in rows]

    def digest(text: str) -> str:
        return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")

    policy = (f"default-src 'none'; style-src '{digest(_STYLE)}'; script-src '{digest(_SCRIPT)}'; "
              "img-src 'none'; base-uri 'none'; form-action 'none'")
    out = [
        "<!DOCTYPE html>",
        f'<html lang="{"zh-CN" if lang == "zh" else "en"}">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_e(policy)}">',
        '<meta name="referrer" content="no-referrer">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(t('roster.html.title', lang))}</title>",
        f"<style>{_STYLE}</style>",
        "</head>",
        "<body>",
        "<header>",
        f"<h1>{_e(t('roster.html.title', lang))}</h1>",
        f'<p class="total">{_e(total_line(list(rows), lang))}</p>',
        f'<p class="made">{_e(t("roster.html.made", lang, version=__version__, count=len(rows)))}</p>',
        f'<p class="made">{_e(t("roster.folder", lang, folder=folder))}</p>' if folder else "",
        "</header>",
        "<main>",
    ]
    out += _problems(by_problem(zip(rows, students), lang), lang)
    out += _roster(rows, students, reasons, lang, goals)
    out += ["</main>", f"<script>{_SCRIPT}</script>", "</body>", "</html>", ""]
    return "\n".join(out)


def _e(text: Any) -> str:
    """Any text as HTML text or an attribute's value: nothing in it is markup."""
    return html.escape(text if isinstance(text, str) else str(text), quote=True)


def _t(key: str, lang: str, **values: Any) -> str:
    """Our sentence with report text in it, as HTML: the sentence's words and the report's
    text both escaped (a report's text is put in after the template is worded)."""
    slots = {name: f"\ue000{name}\ue001" for name, value in values.items() if isinstance(value, str)}
    text = _e(t(key, lang, **{**values, **slots}))
    for name, slot in slots.items():
        text = text.replace(slot, _e(values[name]))
    return text


def _problems(groups: Any, lang: str) -> list[str]:
    out = ['<section id="problems">', f"<h2>{_e(t('roster.html.by-problem', lang))}</h2>",
           f'<p class="note">{_e(t("roster.html.by-problem-note", lang))}</p>']
    if not groups.groups:
        out.append(f"<p>{_e(t('roster.groups.none', lang))}</p>")
    for group in groups.groups:
        if group.problem:
            heading = _t("roster.groups.count", lang, count=len(group.files), problem=group.title)
            if group.title != group.problem:
                heading += f' <code class="id">{_e(group.problem)}</code>'
        else:
            heading = _t("roster.groups.count", lang, count=len(group.files),
                         problem=t("roster.groups.next-step", lang, verdict=_verdict(group.verdict, lang)))
        out.append(f'<article class="group" data-problem="{_e(group.problem)}">')
        out.append(f"<h3>{heading}</h3>")
        for fix in group.fixes:
            if len(group.fixes) > 1:
                out.append(f'<p class="where">{_e(_systems(fix.systems, lang))}</p>')
            out.append('<ul class="files">' + "".join(f"<li>{_e(name)}</li>" for name in fix.files) + "</ul>")
            send = _e(t("roster.groups.send", lang, fix="").rstrip())
            if not fix.text:
                continue
            if fix.command:
                out.append(f'<p class="send">{send}</p><pre class="fix"><code>{_e(fix.text)}</code></pre>')
            else:
                out.append(f'<p class="send">{_t("roster.groups.send", lang, fix=fix.text)}</p>')
        out.append("</article>")
    if groups.ready:
        out.append(f'<p class="ready">{_e(t("roster.groups.ready", lang, count=groups.ready))}</p>')
    if groups.unusable:
        sep = t("roster.groups.file-sep", lang)
        out.append("<p>" + _t("roster.groups.unusable", lang, count=len(groups.unusable),
                                files=sep.join(groups.unusable)) + "</p>")
    out.append("</section>")
    return out


def _roster(rows: Sequence[dict[str, str]], students: Sequence[Any], reasons: Sequence[str],
            lang: str, goals: dict[str, str]) -> list[str]:
    titles = {c: _title(c, lang) for c in PAGE_COLUMNS}
    template = t("roster.html.shown", lang, shown="{shown}", total="{total}")
    states = (("all", "show-all"), ("not-ready", "show-not-ready"), ("ready", "show-ready"),
              ("unusable", "show-unusable"))
    out = ['<section id="students">', f"<h2>{_e(t('roster.html.students', lang))}</h2>",
           '<div class="controls">',
           f'<label>{_e(t("roster.html.filter", lang))} <input id="filter" type="search" '
           f'placeholder="{_e(t("roster.html.filter-hint", lang))}"></label>',
           f'<label>{_e(t("roster.html.show", lang))} <select id="show">'
           + "".join(f'<option value="{v}">{_e(t("roster.html." + k, lang))}</option>' for v, k in states)
           + "</select></label>",
           f'<span id="shown" role="status" data-template="{_e(template)}"></span>',
           "</div>",
           f'<p class="note">{_e(t("roster.html.sort-note", lang))}</p>',
           '<div class="scroll"><table id="roster">', "<thead><tr>"]
    for column in PAGE_COLUMNS:
        kind = "number" if column in _NUMERIC else "text"
        out.append(f'<th aria-sort="none"><button type="button" data-type="{kind}">'
                   f"{_e(titles[column])}</button></th>")
    out.append("</tr></thead>")
    out.append("<tbody>")
    words = _Words(lang, goals)
    for row, student, reason in zip(rows, students, reasons):
        out.append(_row(row, student, reason, titles, words, lang))
    out += ["</tbody>", "</table></div>", "</section>"]
    return out


def _title(column: str, lang: str) -> str:
    if column in ("goal", "os", "python", "problem"):
        return t(f"roster.html.{column}", lang)
    return t("report.summarize.vram" if column == "vram_gb" else f"report.summarize.{column}", lang)


class _Words:
    """Each (column, value) worded once: a class shows few GPUs, builds and verdicts."""

    def __init__(self, lang: str, goals: dict[str, str]) -> None:
        self.lang, self.goals = lang, goals
        self.cache: dict[tuple[str, str], str] = {}

    def __call__(self, column: str, value: str) -> str:
        found = self.cache.get((column, value))
        if found is None:
            found = self.cache[(column, value)] = self._word(column, value)
        return found

    def _word(self, column: str, value: str) -> str:
        if not value:
            return ""
        if column == "goal":
            return self.goals.get(value, value)
        if column == "os":
            return _cell_or(f"roster.os.{value}", value, self.lang, has)
        if column in ("ready", "torch_gpu", "verdict", "torch"):
            return _cell(column, value, self.lang)
        return value


def _cell_or(key: str, value: str, lang: str, has: Any) -> str:
    return t(key, lang) if has(key, lang) else value


def _row(row: dict[str, str], student: Any, reason: str, titles: dict[str, str], words: _Words,
         lang: str) -> str:
    if row.get("ready") in UNUSABLE:
        state = "unusable"
    elif not counted(row):
        state = "uncounted"
    else:
        state = "ready" if row.get("ready") == "yes" else "not-ready"
    cells = [f'<td class="file" data-label="{_e(titles["file"])}" data-sort="{_e(row["file"])}">'
             + _details(row, student, reason, lang) + "</td>"]
    for column in PAGE_COLUMNS[1:]:
        value = row.get(column, "")
        shown = words(column, value)
        classes = [column] + (["num"] if column in _NUMERIC else []) + ([] if shown else ["blank"])
        sort = f' data-sort="{_e(value)}"' if column in _NUMERIC or shown != value else ""
        cells.append(f'<td class="{" ".join(classes)}" data-label="{_e(titles[column])}"{sort}>'
                     f"{_e(shown)}</td>")
    return f'<tr data-state="{state}">' + "".join(cells) + "</tr>"


def _details(row: dict[str, str], student: Any, reason: str, lang: str) -> str:
    """The file's name, and under it (a click away) the student's findings, the fix and what
    the roster knows of the file."""
    tag = _tag(row, lang).strip()
    summary = _e(row["file"]) + (f' <span class="tag">{_e(tag)}</span>' if tag else "")
    inside = []
    if row.get("duplicate_of"):
        inside.append(f'<p class="note">{_t("roster.html.duplicate-of", lang, file=row["duplicate_of"])}</p>')
    if row.get("replay") == "yes":
        inside.append(f'<p class="note">{_e(t("roster.html.replay", lang))}</p>')
    if student is None:
        inside.append(f"<p>{_e(t('roster.html.unusable', lang))}</p>")
        if reason:
            inside.append(f'<p class="note">{_e(reason)}</p>')
    else:
        if row.get("fix"):
            fix = _e(row["fix"])
            shown = f"<pre><code>{fix}</code></pre>" if student.fix_is_command else f"<p>{fix}</p>"
            inside.append(f'<p><b>{_e(t("roster.html.fix", lang))}</b></p>{shown}')
        elif student.next_step:
            inside.append(f"<p>{_e(student.next_step)}</p>")
        inside.append(_findings(student.findings, lang))
    return f"<details><summary>{summary}</summary>{''.join(inside)}</details>"


def _findings(findings: Iterable[tuple[str, str, str, str]], lang: str) -> str:
    items = []
    for severity, title, detail, fix in findings:
        key = f"roster.html.severity.{severity}"
        word = t(key, lang) if has(key, lang) else severity
        text = f'<span class="sev">{_e(word)}</span><b>{_e(title)}</b>'
        if detail:
            text += f"<p>{_e(detail)}</p>"
        if fix:
            label = t("report.show.fix", lang) + t("report.show.sep", lang)
            text += f"<p><i>{_e(label)}</i>{_e(fix)}</p>"
        items.append(f'<li class="sev-{_e(severity)}">{text}</li>')
    if not items:
        return f'<p class="note">{_e(t("roster.html.no-findings", lang))}</p>'
    return f'<p><b>{_e(t("roster.html.findings", lang))}</b></p><ul class="findings">' + "".join(items) + "</ul>"
