"""The five answers: what a hand-written or hostile answers file can get wrong, and the budget box."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wizard.answers import (
    FORM_FACTORS,
    HAS_NVIDIA,
    NEED_GPU,
    Answers,
    AnswersError,
    answers_problems,
    answers_to_dict,
    parse_answers,
    parse_budget,
    read_budget,
    unknown_answer_keys,
)
from wizard.knowledge.load import load_knowledge
from wizard.text.i18n import has

GOOD = {"need_gpu": "yes", "has_nvidia": "no", "form_factor": "laptop", "budget_amount": 5000,
        "budget_currency": "CNY", "goal": "learning"}


@pytest.fixture(scope="module")
def knowledge():
    return load_knowledge()


def test_a_complete_table_is_parsed(knowledge):
    answers = parse_answers(GOOD, "a.toml", knowledge)
    assert answers == Answers("yes", "no", "laptop", 5000, "CNY", "learning")


def test_missing_keys_mean_not_sure():
    answers = parse_answers({"goal": "kaggle"})
    assert (answers.need_gpu, answers.has_nvidia, answers.form_factor) == ("unsure",) * 3
    assert answers.budget_amount is None
    assert answers.unsure_fields() == ("need_gpu", "has_nvidia", "form_factor", "budget_amount")


def test_a_whole_number_float_budget_becomes_an_int():
    assert parse_answers(dict(GOOD, budget_amount=800.0)).budget_amount == 800
    assert isinstance(parse_answers(dict(GOOD, budget_amount=800.0)).budget_amount, int)


@pytest.mark.parametrize("key, value, words", [
    ("need_gpu", 1, ["answers.need_gpu", "expected text"]),
    ("need_gpu", "maybe", ["answers.need_gpu", "'maybe'", "yes, no, unsure"]),
    ("has_nvidia", True, ["answers.has_nvidia", "expected text"]),
    ("form_factor", "tablet", ["answers.form_factor", "'tablet'"]),
    ("form_factor", ["laptop"], ["answers.form_factor", "a list"]),
    ("budget_amount", -1, ["answers.budget_amount", "negative"]),
    ("budget_amount", "5000", ["answers.budget_amount", "expected a number", "text"]),
    ("budget_amount", True, ["answers.budget_amount", "expected a number"]),
    ("budget_amount", math.nan, ["answers.budget_amount", "not a number"]),
    ("budget_amount", math.inf, ["answers.budget_amount", "not a number"]),
    ("budget_amount", 10**30, ["answers.budget_amount", "implausibly large"]),
    ("budget_currency", "EUR", ["answers.budget_currency", "'EUR'"]),
    ("budget_currency", 7, ["answers.budget_currency", "expected text"]),
    ("goal", "world-domination", ["answers.goal", "not a known goal", "learning"]),
    ("goal", {"id": "learning"}, ["answers.goal", "expected text", "a table"]),
])
def test_each_bad_value_is_named_with_its_key_and_reason(knowledge, key, value, words):
    with pytest.raises(AnswersError) as caught:
        parse_answers(dict(GOOD, **{key: value}), "student.toml", knowledge)
    assert len(caught.value.problems) == 1
    message = str(caught.value)
    assert message.startswith("student.toml: ")
    for word in words:
        assert word in message


def test_every_problem_is_reported_at_once(knowledge):
    bad = {"need_gpu": 3, "has_nvidia": "perhaps", "form_factor": None, "budget_amount": -5,
           "goal": "nope"}
    problems = answers_problems(bad, knowledge=knowledge)
    keys = sorted(p.split(":")[0] for p in problems)
    assert keys == ["answers.budget_amount", "answers.form_factor", "answers.goal",
                    "answers.has_nvidia", "answers.need_gpu"]


def test_not_a_table():
    assert answers_problems(["yes"]) == ["answers: expected a table, got a list"]


def test_the_budget_cap_comes_from_the_currency_data(knowledge):
    cap = knowledge.currency("CNY").max_budget
    assert not answers_problems(dict(GOOD, budget_amount=cap), knowledge=knowledge)
    assert answers_problems(dict(GOOD, budget_amount=cap + 1), knowledge=knowledge)


def test_without_knowledge_goal_ids_are_only_checked_for_shape():
    assert not answers_problems(dict(GOOD, goal="some-new-goal"))
    assert answers_problems(dict(GOOD, goal="Not An Id!"))


def test_unknown_keys_are_listed_for_a_note_but_not_an_error():
    data = dict(GOOD, budjet=100)
    assert unknown_answer_keys(data) == ["budjet"]
    parse_answers(data)


@given(st.builds(
    Answers, need_gpu=st.sampled_from(NEED_GPU), has_nvidia=st.sampled_from(HAS_NVIDIA),
    form_factor=st.sampled_from(FORM_FACTORS),
    budget_amount=st.one_of(st.none(), st.integers(0, 1_000_000),
                            st.floats(0, 1_000_000).map(lambda x: round(x, 2))),
    budget_currency=st.sampled_from(("CNY", "USD")), goal=st.sampled_from(("learning", "kaggle"))))
def test_answers_survive_the_report_table(answers):
    back = parse_answers(answers_to_dict(answers))
    assert back == answers


# ----------------------------------------------------------------------- the budget box ---

@pytest.mark.parametrize("text, expected", [
    ("5000", (5000, "CNY")),
    ("5,000", (5000, "CNY")),
    (" 5000 CNY ", (5000, "CNY")),
    ("¥5000", (5000, "CNY")),
    ("￥5000", (5000, "CNY")),
    ("5000元", (5000, "CNY")),
    ("$800", (800, "USD")),
    ("800 usd", (800, "USD")),
    ("800 USD", (800, "USD")),
    ("５０００", (5000, "CNY")),
    ("５，０００元", (5000, "CNY")),
    ("5k", (5000, "CNY")),
    ("$1.5K", (1500, "USD")),
    ("1.2万", (12000, "CNY")),
    ("1.2w", (12000, "CNY")),
    ("5千", (5000, "CNY")),
    ("12,000,000".replace("000,000", "000"), (12000, "CNY")),
    ("0", (0, "CNY")),
    ("99.5", (99.5, "CNY")),
])
def test_budgets_people_type(text, expected):
    assert parse_budget(text, default_currency="CNY") == expected


def test_the_default_currency_is_only_used_when_none_is_typed():
    assert parse_budget("300", default_currency="USD") == (300, "USD")
    assert parse_budget("¥300", default_currency="USD") == (300, "CNY")


@pytest.mark.parametrize("text, error", [
    ("", "empty"), ("   ", "empty"), ("元", "empty"),
    ("-5", "negative"), ("−5000", "negative"), ("$-5", "negative"),
    ("nan", "not-a-number"), ("inf", "not-a-number"), ("abc", "not-a-number"), ("1e9", "not-a-number"),
    ("5.0.1", "not-a-number"),
    ("99999999", "too-large"), ("2000000 USD", "too-large"),
    ("5000 EUR", "unknown-currency"), ("$5000元", "unknown-currency"),
    ("1,2", "ambiguous"), ("1,25", "ambiguous"), ("1,2345", "ambiguous"), ("1,2万", "ambiguous"),
    ("5000-", "not-a-number"), ("3000-abc", "not-a-number"),
])
def test_budgets_that_are_refused(text, error):
    result = parse_budget(text, default_currency="CNY")
    assert result == f"advice.budget.{error}"
    assert has(result, "en") and has(result, "zh")


@pytest.mark.parametrize("text, default, expected", [
    # Chinese units are yuan whatever the buttons say; "k" follows the buttons.
    ("1.2万", "USD", (12000, "CNY", None)),
    ("1.2w", "USD", (12000, "CNY", None)),
    ("5千", "USD", (5000, "CNY", None)),
    ("5k", "USD", (5000, "USD", None)),
    ("$1.2万", "CNY", (12000, "USD", None)),          # written currency wins over the unit
    # Ranges: the top, with the bottom kept to say so.
    ("3000-5000", "CNY", (5000, "CNY", 3000)),
    ("3000~5000", "CNY", (5000, "CNY", 3000)),
    ("３０００～５０００", "CNY", (5000, "CNY", 3000)),
    ("3000–5000", "USD", (5000, "USD", 3000)),
    ("3000 到 5000 元", "USD", (5000, "CNY", 3000)),
    ("3-5千", "USD", (5000, "CNY", 3000)),
    ("3k-5k", "USD", (5000, "USD", 3000)),
    ("2万~3万", "USD", (30000, "CNY", 20000)),
    ("$800 to $1,200", "CNY", (1200, "USD", 800)),
    ("5000-3000", "USD", (5000, "USD", 3000)),
])
def test_budgets_in_the_users_own_words(text, default, expected):
    reading = read_budget(text, default)
    assert (reading.amount, reading.currency, reading.low) == expected


def test_the_budget_box_uses_the_data_caps(knowledge):
    cap = int(knowledge.currency("USD").max_budget)
    assert parse_budget(f"{cap} USD", knowledge=knowledge) == (cap, "USD")
    assert parse_budget(f"{cap + 1} USD", knowledge=knowledge) == "advice.budget.too-large"


# Any text, and text shaped like a budget (where the amount checks are reached).
TYPED = st.one_of(st.text(max_size=40),
                  st.from_regex(r"[-$¥]?[0-9]{1,13}([.,][0-9]{1,3})?\s?(k|w|万|千|usd|cny)?", fullmatch=True))


@given(TYPED)
def test_the_budget_box_never_raises(text):
    """Whatever is typed: an amount the advice can use, or an error the box can show."""
    from wizard.answers import BUDGET_ERRORS, max_budget

    result = parse_budget(text)
    if isinstance(result, str):
        assert result in {f"advice.budget.{name}" for name in BUDGET_ERRORS}
        assert has(result, "en") and has(result, "zh")
    else:
        amount, currency = result
        assert currency in ("CNY", "USD")
        assert math.isfinite(amount) and 0 <= amount <= max_budget(currency)


@pytest.mark.parametrize("budget, currency, expected", [
    ("5k", None, (5000, "USD")),
    ("1.2万", None, (12000, "CNY")),
    ("3000-5000", "CNY", (5000, "CNY")),
    (800, "USD", (800, "USD")),
])
def test_an_answers_file_may_give_the_budget_as_typed(knowledge, budget, currency, expected):
    data = dict(GOOD)
    data.pop("budget_amount", None)
    data.pop("budget_currency", None)
    data["budget"] = budget
    if currency:
        data["budget_currency"] = currency
    answers = parse_answers(data, "a.toml", knowledge)
    assert (answers.budget_amount, answers.budget_currency) == expected
    assert "budget" not in unknown_answer_keys(data)


@pytest.mark.parametrize("extra, words", [
    ({"budget": "1,2"}, ["answers.budget", "'1,2'", "comma"]),
    ({"budget": "lots"}, ["answers.budget", "'lots'", "not an amount"]),
    ({"budget": "¥5000", "budget_currency": "USD"}, ["is in CNY", "budget_currency says USD"]),
    ({"budget": "5k", "budget_amount": 5000}, ["not both"]),
    ({"budget": True}, ["expected text"]),
])
def test_a_budget_as_typed_that_cannot_be_read_says_why(knowledge, extra, words):
    data = {k: v for k, v in GOOD.items() if not k.startswith("budget")}
    data.update(extra)
    with pytest.raises(AnswersError) as caught:
        parse_answers(data, "a.toml", knowledge)
    for word in words:
        assert word in str(caught.value)
