"""`gpu-wizard report show FILE | validate FILE | summarize FILE... [--csv]`: saved reports.

A TA's tools: open what a student saw, check a file before trusting it, and see a whole
class at a glance. Exit codes are part of CONTRACTS.md.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

HELP = "open, check or summarize saved reports (a class roster)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="report_action", metavar="ACTION", required=True)
    show = actions.add_parser("show", help="a saved report, readable in the terminal",
                              description="Show a saved report, readable in the terminal.")
    show.add_argument("file", metavar="FILE")
    validate = actions.add_parser("validate", help="check a report against the schema",
                                  description="Check a report against the schema; names every problem.")
    validate.add_argument("file", metavar="FILE")
    summarize = actions.add_parser(
        "summarize", help="one row per report: who is ready, GPU, torch, verdict",
        description="One row per report (a class roster): who is ready, GPU, torch status, verdict.")
    summarize.add_argument("files", metavar="FILE", nargs="+")
    summarize.add_argument("--csv", action="store_true", help="print comma-separated values")
    for sub in (show, validate, summarize):
        # SUPPRESS keeps a `--lang` given before `report` from being reset to None here.
        sub.add_argument("--lang", choices=("en", "zh"), default=argparse.SUPPRESS,
                         help="language of the labels (default: the report's, or the locale's)")


def run(args: argparse.Namespace) -> int:
    action = {"show": _show, "validate": _validate, "summarize": _summarize}[args.report_action]
    return action(args)


# ------------------------------------------------------------------------------ actions ---

def _show(args: argparse.Namespace) -> int:
    from wizard.report import ReportError, load_report

    knowledge = _knowledge()
    try:
        report = load_report(args.file, knowledge)
    except ReportError as exc:
        lang = getattr(args, "lang", None) or _locale_lang()
        _err(exc.message(lang))
        for problem in getattr(exc, "problems", [])[:20]:
            _err(f"  - {problem}")
        return 2
    lang = getattr(args, "lang", None) or report["language"]
    _out(render_report(report, lang, knowledge))
    return 0


def _validate(args: argparse.Namespace) -> int:
    from wizard.i18n import t
    from wizard.report import SCHEMA, ReportError, read_report, validate_report

    lang = getattr(args, "lang", None) or _locale_lang()
    try:
        data = read_report(args.file)
    except ReportError as exc:
        _err(exc.message(lang))
        return 2
    problems = validate_report(data, _knowledge())
    if not problems:
        _out(t("report.validate.valid", lang, path=args.file, schema=SCHEMA) + "\n")
        return 0
    lines = [t("report.validate.invalid", lang, path=args.file, count=len(problems))]
    lines += [f"  - {p}" for p in problems]
    _out("\n".join(lines) + "\n")
    return 1


def _summarize(args: argparse.Namespace) -> int:
    from wizard.i18n import t
    from wizard.report import ReportError, load_report, summarize

    lang = getattr(args, "lang", None) or _locale_lang()
    knowledge = _knowledge()
    loaded: list[tuple[str, dict[str, Any]]] = []
    failed = False
    for name in args.files:
        try:
            loaded.append((name, load_report(name, knowledge)))
        except ReportError as exc:
            failed = True
            reason = exc.detail(lang) if not getattr(exc, "problems", None) else exc.message(lang)
            _err(t("report.summarize.skipped", lang, path=name, reason=reason))
    rows = summarize(loaded)
    if args.csv:
        _out(render_csv(rows))
    elif rows:
        _out(render_table(rows, lang))
    else:
        _err(t("report.summarize.none", lang))
    return 2 if failed else 0


# ---------------------------------------------------------------------------- rendering ---

def render_report(report: dict[str, Any], lang: str, knowledge: Any = None) -> str:
    """A valid report as terminal text, in `lang` (labels; the saved texts stay as saved)."""
    from wizard.i18n import t
    from wizard.textout import mark

    out: list[str] = []
    out.append(t("report.show.title", lang))
    created = report["created"].strftime("%Y-%m-%d %H:%M UTC")
    out.append(t("report.show.created", lang, created=created, version=report["tool_version"]))
    out.append(t("report.show.redacted" if report["redacted"] else "report.show.not-redacted", lang))
    out.append("")
    out += _answers_lines(report["answers"], lang, knowledge)
    out.append("")
    out += _machine_lines(report["machine"], lang)
    out.append("")
    out.append(t("report.show.findings", lang))
    if not report["findings"]:
        out.append("  " + t("report.show.no-findings", lang))
    for finding in report["findings"]:
        out.append(f"  {mark(finding['severity'])} {finding['title']}")
        out.append(f"      {finding['detail']}")
        if finding.get("fix"):
            out.append(f"      {t('report.show.fix', lang)}{t('report.show.sep', lang)}{finding['fix']}")
    out.append("")
    out += _recommendation_lines(report["recommendation"], lang, knowledge)
    return _wrap_all(out)


def render_recommendation(rec: dict[str, Any], lang: str, knowledge: Any = None) -> str:
    """The `[recommendation]` table as terminal text (also what a headless run prints)."""
    return _wrap_all(_recommendation_lines(rec, lang, knowledge))


# A line that must not be wrapped (a command to copy) starts with this marker.
_RAW = "\0"


def _recommendation_lines(rec: dict[str, Any], lang: str, knowledge: Any) -> list[str]:
    from wizard.i18n import t
    from wizard.textout import mark

    sep = t("report.show.sep", lang)
    out = [f"{t('report.show.recommendation', lang)}{sep}{t('advice.verdict.' + rec['verdict'], lang)}",
           f"  {rec['headline']}"]
    if rec.get("reasons"):
        out.append("")
        out.append(t("report.show.reasons", lang))
        out += [f"  - {reason}" for reason in rec["reasons"]]
    out.append("")
    if rec.get("torch_command"):
        out.append(t("report.show.torch-command", lang) + sep)
        out.append(f"{_RAW}    {rec['torch_command']}")
    else:
        out.append(f"{mark('info')} {t('report.show.no-torch-command', lang)}")
    if rec.get("gpus"):
        out.append("")
        out.append(t("report.show.gpus", lang))
        for gpu in rec["gpus"]:
            out.append(f"  - {gpu['name']}, {gpu['vram_gb']:g} GB{_price(gpu, lang, knowledge)}")
            out.append(f"      {gpu['why']}")
    if rec.get("platforms"):
        out.append("")
        out.append(t("report.show.platforms", lang))
        for platform in rec["platforms"]:
            out.append(f"  - {platform['name']} <{platform['url']}>")
            out.append(f"      {platform['why']}")
    return out


def _answers_lines(answers: dict[str, Any], lang: str, knowledge: Any) -> list[str]:
    from wizard.i18n import t

    sep = t("report.show.sep", lang)
    lines = [t("report.show.answers", lang)]
    for key in ("need_gpu", "has_nvidia", "form_factor"):
        if key in answers:
            lines.append(f"  {t('report.show.' + key, lang)}{sep}{t('report.value.' + answers[key], lang)}")
    amount = answers.get("budget_amount")
    if amount is None:
        budget = t("report.show.budget-unset", lang)
    elif amount == 0:
        budget = t("report.show.budget-zero", lang)
    else:
        budget = _money(amount, answers.get("budget_currency", "USD"), knowledge)
    lines.append(f"  {t('report.show.budget', lang)}{sep}{budget}")
    if "goal" in answers:
        lines.append(f"  {t('report.show.goal', lang)}{sep}{_goal_label(answers['goal'], lang, knowledge)}")
    return lines


def _machine_lines(machine: dict[str, Any], lang: str) -> list[str]:
    from wizard.i18n import t
    from wizard.textout import mark

    sep = t("report.show.sep", lang)
    unknown = t("report.show.unknown", lang)

    def gb(value: Any) -> str:
        return t("report.show.gb", lang, value=f"{value:g}") if value is not None else unknown

    lines = [t("report.show.machine", lang),
             f"  {t('report.show.os', lang)}{sep}{machine['os_version']} ({machine['arch']}), "
             f"Python {machine['python_version']}",
             f"  {t('report.show.cpu', lang)}{sep}{machine['cpu_model']}",
             f"  {t('report.show.ram', lang)}{sep}{gb(machine.get('ram_gb'))}"]
    nvidia = machine["nvidia"]
    if nvidia.get("driver_version"):
        status = t("report.show.driver", lang, driver=nvidia["driver_version"],
                   cuda=nvidia.get("cuda_driver_version", unknown))
    else:
        status = nvidia.get("message") or nvidia["status"]
    severity = "ok" if nvidia["status"] == "ok" else "info" if nvidia["status"] == "no-library" else "warning"
    lines.append(f"  {mark(severity)} {t('report.show.nvidia', lang)}{sep}{status}")
    gpus = machine.get("gpus", [])
    lines.append(f"  {t('report.show.gpu-list', lang)}{sep}" + ("" if gpus else t("report.show.no-gpus", lang)))
    for gpu in gpus:
        size = f", {gb(gpu['vram_gb'])}" if gpu.get("vram_gb") is not None else ""
        lines.append(f"    - {gpu['name']}{size}")
    torch = machine.get("torch")
    if torch is not None:
        if torch["status"] == "ok":
            on_gpu = bool(torch.get("cuda_available") or torch.get("mps_available"))
            text = t("report.show.torch-gpu", lang, version=torch.get("version", unknown),
                     build=torch.get("build", unknown),
                     gpu=t("report.value.yes" if on_gpu else "report.value.no", lang))
            severity = "ok" if on_gpu else "warning"
        else:
            text, severity = t(f"report.torch-status.{torch['status']}", lang), "warning"
        lines.append(f"  {mark(severity)} {t('report.show.torch', lang)}{sep}{text}")
    return lines


def _price(gpu: dict[str, Any], lang: str, knowledge: Any) -> str:
    from wizard.i18n import t

    if gpu.get("price") is None:
        return ""
    price = _money(gpu["price"], gpu.get("currency", ""), knowledge)
    if gpu.get("price_approximate"):
        price = t("advice.pick.price-about", lang, amount=price)
    kind = gpu.get("price_kind")
    if not kind:
        return f", {price}"
    return ", " + t("report.show.price", lang, price=price,
                    kind=t(f"report.show.price-kind-{kind}", lang), date=gpu.get("price_date", "?"))


def _money(amount: float, currency: str, knowledge: Any) -> str:
    if knowledge is not None:
        from wizard.advise import format_money

        return format_money(amount, currency, knowledge)
    return f"{amount:,.0f} {currency}"


def _goal_label(goal_id: str, lang: str, knowledge: Any) -> str:
    if knowledge is not None:
        try:
            return knowledge.goal(goal_id).label(lang)
        except KeyError:
            pass
    return goal_id


def render_table(rows: list[dict[str, str]], lang: str) -> str:
    from wizard.i18n import t
    from wizard.report import SUMMARY_COLUMNS
    from wizard.textout import cell_width

    headers = {"vram_gb": t("report.summarize.vram", lang)}
    titles = [headers.get(c) or t(f"report.summarize.{c}", lang) for c in SUMMARY_COLUMNS]
    shown = [[_cell(c, row[c], lang) for c in SUMMARY_COLUMNS] for row in rows]
    widths = [max(cell_width(x) for x in [title] + [r[i] for r in shown]) for i, title in enumerate(titles)]

    def line(cells: list[str]) -> str:
        return "  ".join(c + " " * (w - cell_width(c)) for c, w in zip(cells, widths)).rstrip()

    out = [line(titles), line(["-" * w for w in widths])] + [line(r) for r in shown]
    ready = sum(1 for row in rows if row["ready"] == "yes")
    out += ["", t("report.summarize.total", lang, ready=ready, total=len(rows))]
    return "\n".join(out) + "\n"


def _cell(column: str, value: str, lang: str) -> str:
    from wizard.i18n import has, t

    if column in ("ready", "torch_gpu"):
        return t(f"report.value.{value}", lang)
    if column == "verdict" and value:
        return t(f"advice.verdict.{value}", lang)
    if column == "torch" and has(f"report.torch-status.{value}", lang):
        return t(f"report.torch-status.{value}", lang)
    return value


def render_csv(rows: list[dict[str, str]]) -> str:
    import csv
    import io

    from wizard.report import SUMMARY_COLUMNS

    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=SUMMARY_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows({key: _csv_text(value) for key, value in row.items()} for row in rows)
    return buffer.getvalue()


def _csv_text(value: Any) -> Any:
    """A spreadsheet must show a student's text, not run it as a formula (CSV injection)."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


# ------------------------------------------------------------------------------ helpers ---

def _wrap_all(lines: list[str]) -> str:
    import re
    import shutil

    from wizard.textout import wrap

    width = max(40, min(100, shutil.get_terminal_size((80, 24)).columns)) - 2
    out: list[str] = []
    for text in lines:
        if text.startswith(_RAW):
            out.append(text[len(_RAW):])
            continue
        if not text.strip():
            out.append("")
            continue
        indent = len(text) - len(text.lstrip(" "))
        body = text.lstrip(" ")
        bullet = re.match(r"(- |\S{1,4} )", body)
        hang = len(bullet.group(1)) if bullet and body[:1] in "-✓⚠✗•[" else 0
        out.extend(wrap(body, width, indent, hang))
    return "\n".join(out) + "\n"


def _knowledge() -> Any:
    """The content data, or None when it is broken: reading reports must still work then."""
    try:
        from wizard.knowledge import load_knowledge

        return load_knowledge()
    except Exception:  # a damaged install must not stop a TA from reading a report
        return None


def _locale_lang() -> str:
    from wizard.i18n import language_from_env

    return language_from_env()


def _out(text: str) -> None:
    from wizard.textout import safe

    sys.stdout.write(safe(text))


def _err(text: str) -> None:
    from wizard.textout import safe

    sys.stderr.write(safe(text, sys.stderr) + "\n")
