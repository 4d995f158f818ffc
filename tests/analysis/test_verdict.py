"""A verdict line as printed: its rounded interval and p-value tell the verdict's story."""

from __future__ import annotations

import pytest

from assay.analysis.interval import Interval
from assay.analysis.verdict import bounds_text, format_p


def test_regression_a_bound_just_above_zero_never_prints_as_zero():
    # a significant mean delta printed "95% CI +0.00..+0.52, significant"
    interval = Interval(0.004690435198272447, 0.5163265896711656)
    assert bounds_text(interval, 2) == "+0.0047..+0.52"
    assert bounds_text(Interval(-0.70, -0.0015562198), 2) == "-0.70..-0.0016"
    assert bounds_text(Interval(-44.05, -0.0228), 1) == "-44.0..-0.023"


def test_a_bound_at_zero_reads_zero_and_others_keep_their_digits():
    assert bounds_text(Interval(0.0, 54.5), 1) == "0.0..+54.5"
    assert bounds_text(Interval(-6.3, 54.5), 1) == "-6.3..+54.5"


@pytest.mark.parametrize("p, alpha, text", [
    (0.0496, 0.05, "p=0.0496"),  # significant: not "p=0.05"
    (0.0504, 0.05, "p=0.0504"),  # within noise: not "p=0.05" either
    (0.05, 0.05, "p=0.05"),
    (0.049999999, 0.05, "p<0.05"),
    (0.0166, 0.05 / 3, "p=0.0166"),  # a Holm step's level
    (0.22, 0.05, "p=0.22"),
    (0.0004, 0.05, "p<0.001"),
])
def test_a_p_value_beside_a_verdict_shows_which_side_of_alpha_it_is(p, alpha, text):
    assert format_p(p, alpha) == text
    assert format_p(0.0496) == "p=0.05"  # alone, two digits are enough
