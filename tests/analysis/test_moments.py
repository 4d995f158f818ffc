"""Moments of values of any size: the plain formulas' figures to the last bit for ordinary
values, and no overflow for values near the float limit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from assay.analysis.interval import t_interval
from assay.analysis.moments import mean, mean_and_sd, mean_and_stderr
from assay.analysis.paired import compare_paired
from assay.analysis.summary import summarize
from assay.errors import UserError
from assay.records import ScoreRow, TrialRow


def _plain(d: list[float]) -> tuple[float, float, float]:
    """The formulas the moments were read with before: mean, sd, standard error."""
    n = len(d)
    centre = math.fsum(d) / n
    variance = math.fsum((v - centre) ** 2 for v in d) / (n - 1)
    return centre, math.sqrt(variance), math.sqrt(variance / n)


_ORDINARY = [
    [1.0, 1.0, 1.0, -4.0, 1.0, 1.0, 2.0, 0.0, 1.0],                      # judge-score deltas
    np.random.default_rng(3).normal(0.4, 1.3, 30).tolist(),
    np.random.default_rng(4).integers(0, 11, 50).astype(float).tolist(),
    np.random.default_rng(5).exponential(2.0, 200).tolist(),
    [0.001, 0.002, -0.0005, 0.0],
    [1e-9, 3e-9, 2e-9],
    [1e6, 2e6, 4e6, -3e6],
]


@pytest.mark.parametrize("d", _ORDINARY)
def test_ordinary_values_get_the_plain_formulas_figures_to_the_last_bit(d: list[float]) -> None:
    centre, sd, stderr = _plain(d)
    assert mean(d) == centre
    assert mean_and_sd(d) == (centre, sd)
    assert mean_and_stderr(d) == (centre, stderr)


def test_scores_near_the_float_limit_are_compared_without_an_overflow() -> None:
    """Regression: differences of 1e300, 0, -1e300 on a scale of -1e300..1e300 raised a bare
    OverflowError from squaring them."""
    comparison = compare_paired({"a": 0.0, "b": 0.0, "c": 0.0},
                                {"a": 1e300, "b": 0.0, "c": -1e300},
                                kind="score", scale=(-1e300, 1e300))
    assert comparison.mean.estimate == 0.0
    assert comparison.mean.test.p_value == pytest.approx(1.0)
    assert comparison.mean.interval.contains(0.0)


def test_a_difference_past_the_float_limit_is_a_clear_error() -> None:
    with pytest.raises(UserError, match="too far apart for a float"):
        compare_paired({"a": -1e308, "b": 0.0}, {"a": 1e308, "b": 1.0}, kind="score",
                       scale=(-1e308, 1e308))


def test_the_mean_of_scores_near_the_float_limit_has_an_interval() -> None:
    values = [1e300, 0.0, -1e300]
    interval = t_interval(values, (-1e300, 1e300))
    assert interval is not None and interval.contains(0.0) and interval.low == -1e300
    assert mean([1e308, 1e308]) == 1e308  # fsum of the two overflowed
    data = [ScoreRow(case_id=f"c{i}", condition="a", epoch=0, scorer="s", value=v,
                     passed=None, error=None, scale=(-1e300, 1e300))
            for i, v in enumerate(values)]
    (row,) = summarize(data, [TrialRow(r.case_id, "a", 0) for r in data]).scores
    assert row.mean == 0.0 and row.stderr == pytest.approx(1e300 / math.sqrt(3))
