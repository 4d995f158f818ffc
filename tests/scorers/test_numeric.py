"""numeric: reading the number out of an answer and comparing it within tolerance."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from assay.case import Case
from assay.output import Output
from assay.scorers.numeric import numbers_in


def case(expected: Any = None) -> Case:
    return Case(id="n1", input="How many?", expected=expected)


def out(text: str) -> Output:
    return Output(text=text)


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("The total is 1,234.5 dollars.", [1234.5]),
        ("It fell to -3 degrees", [-3.0]),
        ("Unicode minus: \u22122.5", [-2.5]),
        ("Avogadro: 6.02e23", [6.02e23]),
        ("tiny: 1.5E-3", [1.5e-3]),
        ("a range 3-5", [3.0, 5.0]),
        ("between .5 and 0.25", [0.5, 0.25]),
        ("$1,000,000", [1_000_000.0]),
        ("version 1.2.3", [1.2]),
        ("H2O is not a number here", []),
        ("no numbers at all", []),
    ],
)
def test_numbers_are_read_as_people_write_them(text, numbers):
    assert numbers_in(text) == numbers


def test_the_last_number_is_the_answer_by_default(make_scorer):
    score = make_scorer("numeric").check(case(42), out("Of 7 boxes with 6 each, total: 42."))
    assert (score.value, score.passed) == (1.0, True)
    assert score.details["actual"] == 42.0
    assert score.details["numbers_found"] == 3


def test_pick_first(make_scorer):
    scorer = make_scorer("numeric", pick="first")
    assert scorer.check(case(7), out("7 boxes, 42 items")).passed is True


def test_a_pattern_names_where_the_number_is(make_scorer):
    scorer = make_scorer("numeric", pattern=r"answer:\s*(\S+)")
    assert scorer.check(case(12), out("Step 1: 5+7. answer: 12 (checked 3 times)")).passed
    named = make_scorer("numeric", pattern=r"total (?P<value>[\d,.]+)")
    assert named.check(case(1234.5), out("5 items, total 1,234.5")).passed is True


def test_comparison_is_exact_up_to_float_noise_by_default(make_scorer):
    scorer = make_scorer("numeric")
    assert scorer.check(case(0.3), out(str(0.1 + 0.2))).passed is True
    failed = scorer.check(case(100), out("101"))
    assert failed.passed is False
    assert failed.reason == "101 differs from expected 100 by 1"
    assert failed.details["difference"] == 1.0


def test_absolute_and_relative_tolerance(make_scorer):
    assert make_scorer("numeric", abs_tol=0.5).check(case(10), out("10.4")).passed is True
    assert make_scorer("numeric", abs_tol=0.5).check(case(10), out("10.6")).passed is False
    assert make_scorer("numeric", rel_tol=0.01).check(case(1000), out("1,009")).passed is True
    assert make_scorer("numeric", rel_tol=0.01).check(case(1000), out("1,011")).passed is False


def test_negative_and_scientific_answers(make_scorer):
    scorer = make_scorer("numeric")
    assert scorer.check(case(-40), out("It is -40 degrees")).passed is True
    assert scorer.check(case(6.02e23), out("about 6.02e23 molecules")).passed is True


def test_expected_may_be_text_holding_one_number_or_a_list(make_scorer):
    scorer = make_scorer("numeric")
    assert scorer.check(case("1,234 km"), out("1234")).passed is True
    listed = scorer.check(case([3, 4]), out("4"))
    assert listed.passed is True and listed.details["expected"] == 4.0


def test_value_overrides_expected(make_scorer):
    assert make_scorer("numeric", value=9.81).check(case(None), out("g = 9.81")).passed is True


def test_no_number_in_the_output_is_a_failed_check_not_an_error(make_scorer):
    score = make_scorer("numeric").check(case(42), out("I don't know."))
    assert (score.value, score.passed, score.error) == (0.0, False, None)
    assert "no number found" in score.reason


def test_empty_output_is_a_failed_check(make_scorer):
    score = make_scorer("numeric").check(case(42), out(""))
    assert (score.value, score.passed) == (0.0, False)


def test_missing_or_non_numeric_expected_is_an_error(make_scorer):
    scorer = make_scorer("numeric")
    missing = scorer.check(case(None), out("42"))
    assert missing.value is None and "has no expected number" in (missing.error or "")
    for bad in ("about three", "3 or 4", True, {"n": 3}, 10**400):  # 10**400: OverflowError
        score = scorer.check(case(bad), out("3"))
        assert score.value is None and "is not one number" in (score.error or ""), bad


def test_invalid_params_fail_validation(make_scorer):
    with pytest.raises(ValidationError, match="invalid regular expression"):
        make_scorer("numeric", pattern="(")
    with pytest.raises(ValidationError):
        make_scorer("numeric", abs_tol=-1)
