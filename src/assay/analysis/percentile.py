"""A percentile of measured values, by numpy's default definition (linear interpolation).

The q-th percentile of n sorted values sits at position (n - 1) q: between two values it
is read off the line joining them. A nearest-rank rule instead jumps to the next value,
so a 20-trial run's 95th percentile was its slowest trial, one hung call away from the
rest; this one is 95% of the way from the 19th value to the 20th.

Written out rather than imported: `assay run` reviews a run without loading numpy,
and these lines cost less than its import.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def percentile(ordered: Sequence[float], q: float) -> float:
    """The `q` percentile (0-100) of values already sorted ascending, as
    `numpy.percentile(values, q)` gives it; nan when there are none."""
    if not 0.0 <= q <= 100.0:
        raise ValueError(f"a percentile must be in [0, 100], got {q}")
    if not ordered:
        return math.nan
    position = (len(ordered) - 1) * q / 100.0
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    low, high = ordered[below], ordered[above]
    fraction = position - below
    if fraction == 0.0 or low == high:
        return low
    # numpy's lerp: from the nearer end, so the result stays within [low, high]
    if fraction < 0.5:
        return low + (high - low) * fraction
    return high - (high - low) * (1.0 - fraction)
