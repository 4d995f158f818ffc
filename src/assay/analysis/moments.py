"""The mean and standard deviation of values of any size a float holds.

A square overflows past 1.3e154 and a cube past 5.6e102, so the plain formulas raised
OverflowError (or summed inf - inf to nan) on scores near the float limit. Each sum here
is taken over the values scaled by a power of two near the largest: scaling by a power
of two is exact, so ordinary values get the plain formulas' figures to the last bit and
only a result past the float limit itself (a spread of 1e308s) comes out infinite.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def mean(values: Sequence[float]) -> float:
    """The arithmetic mean (fsum's exactly rounded sum, safe from overflow); nan when empty."""
    small, unit = scaled(values)
    return math.fsum(small) / len(small) * unit if small else math.nan


def mean_and_sd(values: Sequence[float]) -> tuple[float, float]:
    """The mean and the sample standard deviation (n - 1); the sd is 0 below two values."""
    centre, variance, unit = _scaled_moments(values)
    return centre * unit, math.sqrt(variance) * unit


def mean_and_stderr(values: Sequence[float]) -> tuple[float, float]:
    """The mean and its standard error, sqrt(s^2 / n); the error is 0 below two values."""
    centre, variance, unit = _scaled_moments(values)
    return centre * unit, math.sqrt(variance / max(len(values), 1)) * unit


def _scaled_moments(values: Sequence[float]) -> tuple[float, float, float]:
    """The scaled values' mean and sample variance (0 below two), and the scale's unit."""
    small, unit = scaled(values)
    n = len(small)
    if n == 0:
        return math.nan, 0.0, unit
    centre = math.fsum(small) / n
    if n < 2:
        return centre, 0.0, unit
    return centre, math.fsum((v - centre) ** 2 for v in small) / (n - 1), unit


def scaled(values: Sequence[float]) -> tuple[list[float], float]:
    """`values` divided by a power of two at most the largest magnitude, so each lies within
    -2..2, and that power; the values as they are when none is finite and nonzero."""
    # max() keeps its first item past a nan (nan compares false), so a finite largest
    # magnitude is the finite values' own; an inf or a leading nan asks for the filter.
    largest = max(map(abs, values), default=0.0)
    if not math.isfinite(largest):
        largest = max((abs(v) for v in values if math.isfinite(v)), default=0.0)
    if largest == 0.0:
        return [float(v) for v in values], 1.0
    exponent = math.frexp(largest)[1] - 1
    if -1000 < exponent < 1000:  # a product by a normal power of two rounds as ldexp does
        factor = math.ldexp(1.0, -exponent)
        return list(map(factor.__mul__, values)), math.ldexp(1.0, exponent)
    return [math.ldexp(v, -exponent) for v in values], math.ldexp(1.0, exponent)
