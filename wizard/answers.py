"""The user's five answers, and the checks that keep a hand-written answers file honest.

The same table is the report's `[answers]` (the report format in README.md), so a saved report works as an
answers file. Every problem names the key and the reason, because the person reading the
message is often a TA fixing a student's file, not the student.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from wizard.schema import SHARED, check_record, rule, shown, type_name
from wizard.text.i18n import t

NEED_GPU = ("yes", "no", "unsure")
HAS_NVIDIA = ("yes", "no", "unsure")
# "laptop-only": a laptop, and only a laptop will do (no room for a desktop, carried to class):
# the advice names a laptop to buy instead of a desktop.
FORM_FACTORS = ("desktop", "laptop", "laptop-only", "server", "unsure")
CURRENCIES = ("CNY", "USD")
DEFAULT_GOAL = "learning"

# Sanity bounds, not prices: a student's budget above these is a typo (or a hostile file),
# and would otherwise flow into price comparisons. The knowledge data's per-currency
# `max_budget` wins when it is loaded; these cover the case where it is not.
_FALLBACK_MAX_BUDGET = {"USD": 1_000_000, "CNY": 7_100_000}


@dataclass(frozen=True)
class Answers:
    """The answers, and the `[answers]` table's rules (wizard.schema). Which currencies and
    goals exist, and so how large a budget may be, is the content's to say: answers_problems."""

    need_gpu: str = field(default="unsure", metadata=rule(choices=NEED_GPU))
    has_nvidia: str = field(default="unsure", metadata=rule(choices=HAS_NVIDIA))
    form_factor: str = field(default="unsure", metadata=rule(choices=FORM_FACTORS))
    # None: the user did not say ("unsure"); 0: nothing to spend. Checked by _budget_problems:
    # its limit depends on the currency.
    budget_amount: float | int | None = field(default=None, metadata=rule(read=False))
    budget_currency: str = "USD"
    goal: str = DEFAULT_GOAL

    def unsure_fields(self) -> tuple[str, ...]:
        """Answers left open, which the advice fills with defaults it must admit to."""
        out = [name for name in ("need_gpu", "has_nvidia", "form_factor")
               if getattr(self, name) == "unsure"]
        if self.budget_amount is None:
            out.append("budget_amount")
        return tuple(out)


def answers_to_dict(answers: Answers) -> dict[str, Any]:
    data: dict[str, Any] = {
        "need_gpu": answers.need_gpu,
        "has_nvidia": answers.has_nvidia,
        "form_factor": answers.form_factor,
        "budget_currency": answers.budget_currency,
        "goal": answers.goal,
    }
    if answers.budget_amount is not None:
        data["budget_amount"] = answers.budget_amount
    return data


class AnswersError(ValueError):
    """Answers that cannot be used; `problems` holds one "key: reason" line each."""

    def __init__(self, problems: list[str], source_name: str = ""):
        self.problems = problems
        self.source_name = source_name
        prefix = f"{source_name}: " if source_name else ""
        super().__init__("; ".join(prefix + p for p in problems))


def goal_ids(knowledge: Any) -> tuple[str, ...] | None:
    """The goal ids the knowledge offers; None when no knowledge is loaded (ids unchecked)."""
    return None if knowledge is None else tuple(knowledge.goal_ids)


def currencies(knowledge: Any = None) -> tuple[str, ...]:
    return CURRENCIES if knowledge is None else tuple(knowledge.currency_codes)


def max_budget(currency: str, knowledge: Any = None) -> float | None:
    """The largest believable budget in `currency`; None for a currency we do not know."""
    if knowledge is not None:
        try:
            return float(knowledge.currency(currency).max_budget)
        except KeyError:
            return None
    return _FALLBACK_MAX_BUDGET.get(currency)


def answers_problems(data: Any, path: str = "answers", knowledge: Any = None) -> list[str]:
    """Every problem with an `[answers]` table, each prefixed with its key path."""
    if not isinstance(data, dict):
        return [f"{path}: expected a table, got {type_name(data)}"]
    declared: dict[str, list[str]] = {}
    for problem in check_record(Answers, data, SHARED, (path,)):
        declared.setdefault(problem.path[-1], []).append(problem.dotted())
    problems: list[str] = []
    for key in ("need_gpu", "has_nvidia", "form_factor"):
        problems += declared.get(key, [])
    known_currencies = currencies(knowledge)
    currency = data.get("budget_currency", "USD")
    currency_ok = currency in known_currencies
    if "budget_currency" in declared:
        problems += declared["budget_currency"]
    elif "budget_currency" in data and not currency_ok:
        problems.append(f"{path}.budget_currency: {shown(currency)} is not one of {', '.join(known_currencies)}")
    if "budget_amount" in data:
        problems += _budget_problems(data["budget_amount"], currency if currency_ok else "USD",
                                     f"{path}.budget_amount", knowledge)
    if "budget" in data:
        if "budget_amount" in data:
            problems.append(f"{path}.budget: give the budget once, as budget (\"5k\", \"1.2万\") "
                            "or as budget_amount, not both")
        else:
            problems += _budget_text_problems(data, currency if currency_ok else "USD", path, knowledge)
    if "goal" in declared:
        problems += declared["goal"]
    elif "goal" in data:
        goal = data["goal"]
        ids = goal_ids(knowledge)
        if ids is not None and goal not in ids:
            problems.append(f"{path}.goal: {shown(goal)} is not a known goal; use one of {', '.join(ids)}")
        elif ids is None and not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,63}", goal):
            problems.append(f"{path}.goal: {shown(goal)} is not a goal id (lower-case words joined by -)")
    return problems


def parse_answers(data: Any, source_name: str = "", knowledge: Any = None) -> Answers:
    """An `[answers]` table → Answers. Missing keys count as "unsure"; bad values raise."""
    problems = answers_problems(data, "answers", knowledge)
    if problems:
        raise AnswersError(problems, source_name)
    amount = data.get("budget_amount")
    currency = data.get("budget_currency", "USD")
    reading = budget_reading(data, knowledge)
    if reading is not None:
        amount, currency = reading.amount, reading.currency
    if isinstance(amount, float) and amount.is_integer():
        amount = int(amount)
    return Answers(
        need_gpu=data.get("need_gpu", "unsure"),
        has_nvidia=data.get("has_nvidia", "unsure"),
        form_factor=data.get("form_factor", "unsure"),
        budget_amount=amount,
        budget_currency=currency,
        goal=data.get("goal", DEFAULT_GOAL),
    )


def unknown_answer_keys(data: Any) -> list[str]:
    """Keys a reader of this version ignores; worth a note, since they are often typos."""
    if not isinstance(data, dict):
        return []
    known = {"need_gpu", "has_nvidia", "form_factor", "budget", "budget_amount", "budget_currency", "goal"}
    return sorted(k for k in data if k not in known)


def _budget_problems(value: Any, currency: str, path: str, knowledge: Any) -> list[str]:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return [f"{path}: expected a number, got {type_name(value)}"]
    if isinstance(value, float) and not math.isfinite(value):
        return [f"{path}: {value} is not a number of money"]
    if value < 0:
        return [f"{path}: {value} is negative; use 0 for nothing to spend"]
    cap = max_budget(currency, knowledge)
    if cap is not None and value > cap:
        # A whole number with hundreds of digits cannot become a float: name its size instead.
        shown = "more than 1e300" if value >= 10**300 else f"{value:.3g}" if value >= 1e12 else f"{value:,}"
        return [f"{path}: {shown} {currency} is implausibly large (at most {cap:,.0f} {currency})"]
    return []


def budget_reading(data: dict[str, Any], knowledge: Any = None) -> BudgetReading | None:
    """The `budget` key of a valid answers table read the way the wizard's box reads it
    ("5k", "1.2万", "3000-5000"); None when the table gives budget_amount (or nothing)."""
    value = data.get("budget")
    if value is None or "budget_amount" in data:
        return None
    currency = data.get("budget_currency", "USD")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return BudgetReading(value, currency)
    reading = read_budget(str(value), currency, knowledge)
    return None if isinstance(reading, str) else reading


def _budget_text_problems(data: dict[str, Any], currency: str, path: str, knowledge: Any) -> list[str]:
    value = data["budget"]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _budget_problems(value, currency, f"{path}.budget", knowledge)
    if not isinstance(value, str):
        return [f"{path}.budget: expected text such as \"5k\" or a number, got {type_name(value)}"]
    reading = read_budget(value, currency, knowledge)
    if isinstance(reading, str):
        return [f"{path}.budget: {shown(value)}: {t(reading, 'en')}"]
    if "budget_currency" in data and reading.currency != currency:
        return [f"{path}.budget: {shown(value)} is in {reading.currency}, but budget_currency "
                f"says {currency}"]
    return []


# ---------------------------------------------------------------- budget typed in the UI ---

_CNY_WORDS = ("¥", "￥", "元", "块", "rmb", "cny", "人民币", "yuan")
_USD_WORDS = ("us$", "$", "usd", "美元", "美金", "dollars", "dollar")
_MULTIPLIERS = {"k": 1_000, "千": 1_000, "w": 10_000, "万": 10_000}
# Chinese units: "1.2万", "5千", "1.2w" are yuan, whatever the currency buttons say.
_CNY_MULTIPLIERS = frozenset("千w万")
_NUMBER = re.compile(r"(\d+(?:\.\d+)?|\.\d+)")
# "3000-5000", "3000~5000", "3k–5k", "3000到5000", "3000 to 5000": a range, read as its top.
_RANGE = re.compile(r"^(?P<low>[^-~–—]+?)\s*(?:-|~|–|—|到|至|\bto\b)\s*(?P<high>[^-~–—]+)$")
# Thousands separators only in threes: "5,000" and "12,000,000" are numbers, "1,2" (one point
# two in much of Europe, twelve elsewhere) is a question.
_GROUPED = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")

BUDGET_ERRORS = ("empty", "not-a-number", "negative", "too-large", "unknown-currency", "ambiguous")


@dataclass(frozen=True)
class BudgetReading:
    """A budget as typed, understood: `low` is set when a range was typed (amount is its top)."""

    amount: int | float
    currency: str
    low: int | float | None = None


def parse_budget(text: str, default_currency: str = "USD",
                 knowledge: Any = None) -> tuple[int | float, str] | str:
    """What the user typed → (amount, currency), or an i18n key `advice.budget.<error>`.

    Accepts "5000", "5,000", "5000 CNY", "¥5000", "$800", "800 usd", "５０００", "5k", "1.2万",
    "1.2w", "5千", and ranges ("3000-5000", "3000~5000": the top)."""
    reading = read_budget(text, default_currency, knowledge)
    return reading if isinstance(reading, str) else (reading.amount, reading.currency)


def read_budget(text: str, default_currency: str = "USD", knowledge: Any = None) -> BudgetReading | str:
    """parse_budget, saying also whether a range was typed."""
    s = unicodedata.normalize("NFKC", text or "").strip().lower()
    if not s:
        return _budget_error("empty")
    currency = None
    for word in sorted(_CNY_WORDS + _USD_WORDS, key=len, reverse=True):
        if word in s:
            found = "CNY" if word in _CNY_WORDS else "USD"
            if currency not in (None, found):
                return _budget_error("unknown-currency")
            currency = found
            s = s.replace(word, " ")
    for code in currencies(knowledge):
        if code.lower() in s:
            currency = currency or code
            s = s.replace(code.lower(), " ")
    s = s.strip()
    if not s:
        return _budget_error("empty")
    if s[0] in "-−":
        return _budget_error("negative")
    parts = _RANGE.match(s)
    texts = [parts.group("low"), parts.group("high")] if parts else [s]
    # "3-5千", "3~5k": the unit written once covers both ends.
    unit = texts[-1].strip()[-1:] if len(texts) == 2 and texts[-1].strip()[-1:] in _MULTIPLIERS else ""
    if unit and texts[0].strip()[-1:] not in _MULTIPLIERS:
        texts[0] = texts[0].strip() + unit
    numbers = []
    for part in texts:
        value = _one_amount(part)
        if isinstance(value, str):
            return value
        numbers.append(value)
    if any(part.strip()[-1:] in _CNY_MULTIPLIERS for part in texts):
        currency = currency or "CNY"
    currency = currency or default_currency
    cap = max_budget(currency, knowledge)
    if cap is None:
        return _budget_error("unknown-currency")
    top = max(numbers)
    if not math.isfinite(top) or top > cap:
        return _budget_error("too-large")
    amounts = [_tidy(n) for n in numbers]
    return BudgetReading(max(amounts), currency, min(amounts) if len(amounts) == 2 else None)


def _one_amount(part: str) -> float | str:
    s = part.strip().replace("_", "").replace(" ", "")
    if not s:
        return _budget_error("not-a-number")
    if "," in s and not _GROUPED.fullmatch(s.rstrip("".join(_MULTIPLIERS))):
        return _budget_error("ambiguous")
    s = s.replace(",", "")
    if s[0] in "-−":
        return _budget_error("negative")
    multiplier = 1
    if s[-1] in _MULTIPLIERS:
        multiplier = _MULTIPLIERS[s[-1]]
        s = s[:-1]
    match = _NUMBER.fullmatch(s)
    if not match:
        return _budget_error("unknown-currency" if re.fullmatch(r"[\d.]+[a-z]+", s) else "not-a-number")
    return float(match.group(1)) * multiplier


def _tidy(amount: float) -> int | float:
    amount = round(amount, 2)
    return int(amount) if amount.is_integer() else amount


def _budget_error(name: str) -> str:
    return f"advice.budget.{name}"
