"""The jackknife interval of an agreement coefficient: on Fisher's z inside -1..1, else plain."""

from __future__ import annotations

import numpy as np
import pytest

from assay.analysis.jackknife import jackknife_interval


def test_inside_the_ends_it_is_the_jackknife_of_fishers_z_carried_back() -> None:
    left_out = np.array([0.6, 0.7, 0.65, 0.8])
    weights = np.array([1.0, 2.0, 1.0, 1.0])
    z = np.arctanh(np.repeat(left_out, weights.astype(int)))
    se = np.sqrt((len(z) - 1) / len(z) * ((z - z.mean()) ** 2).sum())
    interval = jackknife_interval(0.7, left_out, weights, 2.0, "m")
    assert interval is not None and interval.method == "m"
    assert (interval.low, interval.high) == pytest.approx(
        (np.tanh(np.arctanh(0.7) - 2 * se), np.tanh(np.arctanh(0.7) + 2 * se)), rel=1e-12)
    assert interval.high - 0.7 < 0.7 - interval.low  # it leans away from the end it is near


def test_at_an_end_it_is_the_jackknife_of_the_value_clipped_to_the_range() -> None:
    left_out = np.array([1.0, 0.9, 0.95])
    interval = jackknife_interval(0.95, left_out, np.ones(3), 2.0, "m")
    se = np.sqrt(2 / 3 * ((left_out - left_out.mean()) ** 2).sum())
    assert interval is not None
    assert (interval.low, interval.high) == pytest.approx((0.95 - 2 * se, 1.0))


def test_no_spread_among_the_left_out_values_gives_no_interval() -> None:
    assert jackknife_interval(0.5, np.array([0.5, 0.5, 0.5]), np.ones(3), 2.0, "m") is None
