"""The jackknife interval of an agreement coefficient (a weighted kappa, Krippendorff's alpha).

The coefficient is recomputed with each item left out; the spread of those
values gives the standard error, and a critical value (Student's t with items
- 1 degrees of freedom) the width. An agreement coefficient is a correlation,
whose spread is skewed toward 0 near the ends of -1..1, so the jackknife is
taken of Fisher's z = atanh(value) and carried back with tanh: the interval
then leans away from the end it is near and never leaves -1..1. Where the
coefficient or a left-out value is -1 or 1, z does not exist, and the
jackknife is of the coefficient itself, clipped to -1..1.
"""

from __future__ import annotations

import math

import numpy as np

from assay.analysis.interval import Interval

FISHER_EDGE = 1.0 - 1e-9
"""How close to -1 or 1 a coefficient may come and still be carried to Fisher's z."""


def jackknife_interval(estimate: float, left_out: np.ndarray, weights: np.ndarray,
                       critical: float, method: str) -> Interval | None:
    """`estimate` +- `critical` jackknife standard errors, from the values with one item
    left out (`left_out[i]` for `weights[i]` items alike, which leave the same value out);
    None when every item left out gives the same value, a certainty no sample gives."""
    n = float(weights.sum())
    fisher = bool(np.all(np.abs(left_out) < FISHER_EDGE) and abs(estimate) < FISHER_EDGE)
    values = np.arctanh(left_out) if fisher else left_out
    mean = float((weights * values).sum() / n)
    se = math.sqrt((n - 1) / n * float((weights * (values - mean) ** 2).sum()))
    if se < 1e-12:
        return None
    half = critical * se
    if fisher:
        centre = math.atanh(estimate)
        return Interval(math.tanh(centre - half), math.tanh(centre + half), method=method)
    return Interval(max(-1.0, estimate - half), min(1.0, estimate + half), method=method)
