"""A number printed beside the bound it is held to reads on the side of the bound it is on."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.shown_numbers import (
    adding_up,
    beside_bound,
    bound_percent,
    dollars,
    fixed,
    fixed_beside,
    percent,
    percent_beside,
    points,
    significant,
)

shares = st.floats(min_value=0.0, max_value=1.0)


@settings(max_examples=500, deadline=None)
@given(share=shares, bar=st.integers(min_value=0, max_value=100),
       decimals=st.integers(min_value=0, max_value=2))
def test_a_share_beside_a_whole_percent_bar_compares_as_the_true_share_does(
        share: float, bar: int, decimals: int) -> None:
    shown = float(percent_beside(share, bar / 100, decimals)[:-1])
    assert (shown >= bar) == (share >= bar / 100)


@settings(max_examples=500, deadline=None)
@given(value=st.floats(min_value=-1.0, max_value=1.0),
       bar=st.integers(min_value=-100, max_value=100))
def test_a_value_beside_a_two_decimal_bar_compares_as_the_true_value_does(
        value: float, bar: int) -> None:
    assert (float(fixed_beside(value, bar / 100)) >= bar / 100) == (value >= bar / 100)


def test_without_a_bar_the_usual_digits_are_kept_and_a_bar_reads_as_it_was_set() -> None:
    assert percent_beside(0.5, None) == percent(0.5) == "50.0%"
    assert fixed_beside(0.4123, None) == "0.41"
    assert bound_percent(0.85) == "85%" and bound_percent(0.855) == "85.5%"


def test_a_share_beside_its_bound_never_gets_fewer_decimals_than_the_bound_was_set_with() -> None:
    """Regression: 94.96% beside a bar of 0.9495 read `95.0%` beside `95.0%`."""
    assert beside_bound(0.9496, 0.9495, share=True) == ("94.96%", "94.95%")
    assert beside_bound(0.9, 0.85, share=True) == ("90.0%", "85.0%")
    assert (bound_percent(0.9, 1), bound_percent(0.9495, 1), bound_percent(0.0004, 1)) == (
        "90.0%", "94.95%", "0.04%")


def test_a_tie_rounds_away_from_zero_as_people_round_it() -> None:
    """Python's format rounds a tie to even: 9 of 16 read `56.2%`. Every figure rounds by
    one rule, the number as it is written, a tie away from zero."""
    assert percent(9 / 16) == "56.3%" and percent(7 / 16) == "43.8%"
    assert percent(57 / 200, 0) == "29%"  # 0.285 as written, not the float a hair below it
    assert points(6.25) == "+6.3pp" and points(-6.25) == "-6.3pp" and points(0.0) == "+0.0pp"
    assert fixed(0.5625, 3) == "0.563" and fixed(-0.125, 2) == "-0.13"
    assert fixed(2.5, 0) == "3" and fixed(0.05, 1, signed=True) == "+0.1"
    assert significant(0.00125, 2) == "0.0013" and significant(12.35, 3) == "12.4"
    assert significant(1234567.0, 3) == "1.23e+06"
    assert fixed(float("inf"), 1) == "inf" and percent(1.0) == "100.0%"


def test_a_tie_that_arithmetic_left_a_hair_under_still_rounds_away_from_zero() -> None:
    """Regression: a mean score of 0.2, 0.7 and six zeros (0.1125, computed as
    0.11249999999999999) read `0.112`, where 0.1, 0.2, 0.3, 0.3 and four zeros, the same
    mean, read `0.113`; as a pass rate, `11.2%` beside `11.3%`."""
    noisy, clean = math.fsum([0.2, 0.7]) / 8, math.fsum([0.1, 0.2, 0.3, 0.3]) / 8
    assert noisy != clean
    assert fixed(noisy, 3) == fixed(clean, 3) == "0.113"
    assert fixed(-noisy, 3) == "-0.113" and significant(noisy, 3) == "0.113"
    assert percent(noisy) == percent(clean) == "11.3%"
    assert fixed(0.1 + 0.2, 17) == "0.30000000000000000"


def test_a_delta_between_two_shown_sides_that_is_itself_a_tie_is_spelled_out() -> None:
    """`99.95% → 100.00%` beside `+0.1pp` would ask the reader to round 0.05 themselves."""
    assert adding_up(lambda d: percent(0.9995, d), lambda d: percent(1.0, d), 0.05, 1) == (
        "99.95%", "100.00%", "+0.05", 2)
    assert adding_up(lambda d: percent(0.5, d), lambda d: percent(9 / 16, d), 6.25, 1) == (
        "50.0%", "56.3%", "+6.3", 1)


def test_a_cost_past_decimals_precision_reads_in_whole_not_as_an_internal_error() -> None:
    """Regression: a session log's cost of 1e308 (or any of $1e16 and up) stopped `assay
    traces` with 'internal error: InvalidOperation', rounding past decimal's 28 digits."""
    assert dollars(1e16) == "$10000000000000000.0000"
    assert dollars(1e308).startswith("$1000000000000000010979063629440455417404923096773118")
    assert dollars(1e308).endswith(".0000")


def _by_decimal(value: float, decimals: int, signed: bool) -> str:
    """`fixed` as it reads every float: written to 15 digits, a tie away from zero."""
    from decimal import ROUND_HALF_UP, Decimal

    number = Decimal(f"{value:.15g}").quantize(Decimal(1).scaleb(-decimals),
                                               rounding=ROUND_HALF_UP)
    return f"{number:{'+' if signed else ''}.{decimals}f}"


@settings(max_examples=3000, deadline=None)
@given(st.one_of(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12,
                           max_value=1e12),
                 st.integers(-10**6, 10**6).map(lambda k: k / 1000),  # ties at 2 places
                 st.integers(-10**6, 10**6).map(lambda k: k / 8)),
       st.integers(0, 9), st.booleans())
def test_a_float_off_a_tie_is_written_as_one_at_a_tie_is_by_the_one_rule(
        value: float, decimals: int, signed: bool) -> None:
    """`fixed` writes a float clearly off a tie with Python's format, which rounds it the same
    way; at or near a tie (0.285, 0.11249999999999999, -0.5625) by the written decimal."""
    assert fixed(value, decimals, signed=signed) == _by_decimal(value, decimals, signed)
