"""Thresholds a test sets become gates, written as `--fail-under` writes them."""

from __future__ import annotations

import pytest

from assay.errors import UserError
from assay.pytest_plugin.thresholds import threshold_gates


def test_a_threshold_is_a_pass_rate_unless_it_names_the_mean() -> None:
    rate, mean = threshold_gates({"contains@docs": 0.8, "judge_score.mean": 7})
    assert (rate.scorer, rate.condition, rate.min_pass_rate, rate.min_mean) == \
        ("contains", "docs", 0.8, None)
    assert (mean.scorer, mean.condition, mean.min_pass_rate, mean.min_mean) == \
        ("judge_score", None, None, 7)


@pytest.mark.parametrize(("thresholds", "message"), [
    ({"contains": 2}, "threshold 'contains=2': 2 is not a pass rate, which is between 0 and 1"),
    ({"contains=": 0.5}, "threshold 'contains==0.5': expected SCORER"),
    ({"contains": True}, "threshold 'contains': True is not a number"),
    ({"contains": "high"}, "threshold 'contains': 'high' is not a number"),
    ({"contains": float("nan")}, "threshold 'contains': nan is not a finite number"),
    ({"judge_score.mean": float("inf")}, "threshold 'judge_score.mean': inf is not a finite"),
    ([("contains", 0.8)], "thresholds must map"),
])
def test_a_bad_threshold_is_a_clear_error(thresholds: object, message: str) -> None:
    with pytest.raises(UserError) as raised:
        threshold_gates(thresholds)  # type: ignore[arg-type]
    assert message in str(raised.value)


def test_no_thresholds_add_no_gates() -> None:
    assert threshold_gates(None) == [] == threshold_gates({})
