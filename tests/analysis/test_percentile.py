"""The percentile the conditions table prints is numpy's default one."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.analysis.percentile import percentile

finite = st.floats(min_value=-1e300, max_value=1e300, allow_nan=False)


@settings(max_examples=400, deadline=None)
@given(values=st.lists(finite, min_size=1, max_size=60),
       q=st.floats(min_value=0.0, max_value=100.0))
def test_a_percentile_is_numpys_linear_one(values: list[float], q: float) -> None:
    ordered = sorted(values)
    expected = float(np.percentile(np.array(ordered), q))
    assert percentile(ordered, q) == pytest.approx(expected, rel=1e-12, abs=1e-300)
    assert ordered[0] <= percentile(ordered, q) <= ordered[-1]


@pytest.mark.parametrize("values", [[7.0], [3.0, 3.0, 3.0], [1.0, 2.0], list(range(20)),
                                    list(range(100)), [0.0] * 19 + [30_000.0]])
@pytest.mark.parametrize("q", [0, 50, 95, 99, 100])
def test_the_edges_one_value_ties_and_whole_positions_match_numpy(
        values: list[float], q: float) -> None:
    assert percentile(values, q) == pytest.approx(float(np.percentile(values, q)), rel=1e-12)


def test_no_values_have_no_percentile_and_a_bad_q_is_refused() -> None:
    assert math.isnan(percentile([], 95))
    with pytest.raises(ValueError, match="in \\[0, 100\\]"):
        percentile([1.0], 101)
