"""One saved report as terminal text (`gpu-wizard report show`), and its recommendation alone
(what a headless run prints). Labels in the reader's language; the saved texts stay as saved."""

from __future__ import annotations

import re
import shutil
from typing import Any

from wizard.advise.money import format_money, money_range
from wizard.presentation import findings_of, present, recorded_advice
from wizard.probe.facts import INTERPRETER_SOURCES, NOT_RUN_REASONS, GpuTest, NotRunPython, TorchInfo, machine_from_dict
from wizard.pytorch.wording import gpu_test_line, interpreter_line, not_run_lines
from wizard.report.reading import created_text
from wizard.text.i18n import t
from wizard.text.output import gb_text, mark, wrap


def render_report(report: dict[str, Any], lang: str, knowledge: Any = None) -> str:
    """A valid report as terminal text, in `lang` (labels; the saved texts stay as saved)."""
    out: list[str] = []
    out.append(t("report.show.title", lang))
    created = created_text(report["created"])
    out.append(t("report.show.created", lang, created=created, version=report["tool_version"]))
    out.append(t("report.show.redacted" if report["redacted"] else "report.show.not-redacted", lang))
    replay = report.get("replay")
    if isinstance(replay, dict):  # saved from `gpu-wizard --machine`: not a fresh check
        recorded = replay.get("recorded")
        if replay.get("of_report") is False:
            out.append(t("report.show.replay-machine", lang))
        elif isinstance(recorded, str) and recorded and recorded != "unknown":
            out.append(t("report.show.replay", lang, recorded=recorded))
        else:
            out.append(t("report.show.replay-undated", lang))
    out.append("")
    out += _answers_lines(report["answers"], lang, knowledge)
    out.append("")
    shown = presentation_of(report, lang)
    out += _machine_lines(report["machine"], lang, shown)
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
    out += _recommendation_lines(report["recommendation"], lang, knowledge, shown)
    return _wrap_all(out)


def render_recommendation(report: dict[str, Any], lang: str, knowledge: Any = None) -> str:
    """A valid report's `[recommendation]` as terminal text (what a headless run prints)."""
    return _wrap_all(_recommendation_lines(report["recommendation"], lang, knowledge,
                                           presentation_of(report, lang)))


def presentation_of(report: dict[str, Any], lang: str) -> Any:
    """The presentation of a valid report: its machine rebuilt, its findings as saved, the
    same rules as on the machine it was saved on (wizard.presentation)."""
    machine = machine_from_dict(report["machine"])
    return present(machine, findings_of(report.get("findings")), recorded_advice(report["recommendation"]), lang)


# A line that must not be wrapped (a command to copy) starts with this marker.
_RAW = "\0"


def _recommendation_lines(rec: dict[str, Any], lang: str, knowledge: Any, shown: Any) -> list[str]:
    sep = t("report.show.sep", lang)
    out = [f"{t('report.show.recommendation', lang)}{sep}{t('advice.verdict.' + rec['verdict'], lang)}",
           f"  {rec['headline']}", "",
           f"{t('present.action.heading', lang)}{sep}{shown.action_text}"]
    if shown.command:
        out.append(t("report.show.torch-command", lang) + sep)
        out.append(f"{_RAW}    {shown.command}")
    elif shown.action.kind == "install":   # installing is the fix, but nothing fits
        out.append(f"{mark('info')} {t('report.show.no-torch-command', lang)}")
    if shown.upgrade_text:
        out.append(shown.upgrade_text)
    if shown.verify:
        out.append(shown.verify[0])
        out.append(f"{_RAW}    {shown.verify[1]}")
        out += list(shown.verify[2:])
    if rec.get("reasons"):
        out.append("")
        out.append(t("report.show.reasons", lang))
        out += [f"  - {reason}" for reason in rec["reasons"]]
    # Picks and platforms alike: a heading, then each one's name line and why.
    sections = [("gpus", lambda gpu: f"{gpu['name']}, {gpu['vram_gb']:g} GB{_price(gpu, lang, knowledge)}"),
                ("platforms", lambda platform: f"{platform['name']} <{platform['url']}>")]
    for key, named in sections:
        if rec.get(key):
            out += ["", t(f"report.show.{key}", lang)]
            for item in rec[key]:
                out += [f"  - {named(item)}", f"      {item['why']}"]
    return out


def _answers_lines(answers: dict[str, Any], lang: str, knowledge: Any) -> list[str]:
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


def _machine_lines(machine: dict[str, Any], lang: str, shown: Any) -> list[str]:
    sep = t("report.show.sep", lang)
    unknown = t("report.show.unknown", lang)

    def gb(value: Any) -> str:
        return t("report.show.gb", lang, value=gb_text(value)) if value is not None else unknown

    lines = [t("report.show.machine", lang),
             f"  {t('report.show.os', lang)}{sep}{machine['os_version']} ({machine['arch']}), "
             f"Python {machine['python_version']}",
             f"  {t('report.show.cpu', lang)}{sep}{machine['cpu_model']}",
             f"  {t('report.show.ram', lang)}{sep}{gb(machine.get('ram_gb'))}"]
    nvidia = machine["nvidia"]
    if nvidia.get("driver_version"):
        status = t("report.show.driver", lang, driver=nvidia["driver_version"],
                   cuda=nvidia.get("cuda_driver_version", unknown))
        if nvidia["status"] != "ok" and nvidia.get("message"):
            status += f" — {nvidia['message']}"   # a driver that is there, but not reachable
    else:
        status = nvidia.get("message") or nvidia["status"]
    lines.append(f"  {mark(shown.nvidia)} {t('report.show.nvidia', lang)}{sep}{status}")
    gpus = machine.get("gpus", [])
    lines.append(f"  {t('report.show.gpu-list', lang)}{sep}" + ("" if gpus else t("report.show.no-gpus", lang)))
    for gpu in gpus:
        size = f", {gb(gpu['vram_gb'])}" if gpu.get("vram_gb") is not None else ""
        lines.append(f"    - {gpu['name']}{size}")
    torch = machine.get("torch")
    if torch is not None:
        if torch["status"] == "ok":
            on_gpu = shown.torch_on_gpu
            text = t("report.show.torch-gpu", lang, version=torch.get("version", unknown),
                     build=torch.get("build", unknown),
                     gpu=t("report.value.yes" if on_gpu else "report.value.no", lang))
        else:
            text = t(f"report.torch-status.{torch['status']}", lang)
        lines.append(f"  {mark(shown.torch or 'info')} {t('report.show.torch', lang)}{sep}{text}")
        lines += [f"      {line}" for line in _torch_detail_lines(torch, lang)]
    return lines


def _torch_detail_lines(torch: dict[str, Any], lang: str) -> list[str]:
    """Which Python was checked and why, and the GPU tests: what a TA needs to answer "why"."""
    lines = []
    if torch.get("interpreter"):
        lines.append(interpreter_line(TorchInfo(status=torch["status"], interpreter=torch["interpreter"],
                                                interpreter_source=torch.get("interpreter_source")), lang))
    lines += not_run_lines(TorchInfo(status=torch["status"], not_run=_not_run(torch),
                                     asked=tuple(a for a in torch.get("asked", []) if isinstance(a, str))), lang)
    for test in torch.get("gpu_tests", []):
        lines.append(gpu_test_line(GpuTest(device=test["device"], status=test["status"],
                                           error_line=test.get("error_line"),
                                           seconds=test.get("seconds")), lang))
    return lines


def _not_run(torch: dict[str, Any]) -> tuple[Any, ...]:
    """The report's `not_run` tables that can be worded (a reader of an older or newer report
    skips what it does not know)."""
    out = []
    for item in torch.get("not_run", []):
        if isinstance(item, dict) and isinstance(item.get("interpreter"), str) \
                and item.get("source") in INTERPRETER_SOURCES and item.get("reason") in NOT_RUN_REASONS:
            version = item.get("torch_version")
            out.append(NotRunPython(item["interpreter"], item["source"], item["reason"],
                                    version if isinstance(version, str) else None))
    return tuple(out)


def _price(gpu: dict[str, Any], lang: str, knowledge: Any) -> str:
    if gpu.get("price") is None:
        return ""
    price = _money(gpu["price"], gpu.get("currency", ""), knowledge)
    low = gpu.get("price_low")
    if knowledge is not None and isinstance(low, (int, float)) and not isinstance(low, bool):
        price = money_range(low, gpu["price"], gpu.get("currency", ""), knowledge)
    if gpu.get("price_approximate"):
        price = t("advice.pick.price-about", lang, amount=price)
    kind = gpu.get("price_kind")
    if not kind:
        return f", {price}"
    return ", " + t("report.show.price", lang, price=price,
                    kind=t(f"report.show.price-kind-{kind}", lang), date=gpu.get("price_date", "?"))


def _money(amount: float, currency: str, knowledge: Any) -> str:
    if knowledge is not None:
        return format_money(amount, currency, knowledge)
    return f"{amount:,.0f} {currency}"


def _goal_label(goal_id: str, lang: str, knowledge: Any) -> str:
    if knowledge is not None:
        try:
            return knowledge.goal(goal_id).label(lang)
        except KeyError:
            pass
    return goal_id


# Longer than anything we write (a finding's detail is under 1,000 characters): a terminal
# reader gets the start of it, the file keeps it all.
MAX_LINE_CHARS = 1500


def _wrap_all(lines: list[str]) -> str:
    width = max(40, min(100, shutil.get_terminal_size((80, 24)).columns)) - 2
    out: list[str] = []
    for text in lines:
        if len(text) > MAX_LINE_CHARS:  # a report's own text may run to 10,000 characters
            text = text[:MAX_LINE_CHARS - 1] + "…"
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
