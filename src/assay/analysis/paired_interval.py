"""Which confidence interval a paired difference gets, so that few cases never look certain.

The paired bootstrap (`bootstrap`) is the default: it assumes nothing about
the shape of the differences. It is only as good as the cases it resamples,
though. With 4 cases that all moved the same way every resample is the same,
and the percentile interval is a point: "-100.0..-100.0pp" from 4 cases. So
below `SMALL_SAMPLE` cases, or whenever every per-case difference is the same
(a degenerate bootstrap at any n), the interval is computed instead:

- Pass/fail on both sides (0/1 per case): Newcombe's hybrid score interval for
  the difference of paired proportions (Newcombe 1998, Statistics in Medicine
  17:2635, method 10). It combines the Wilson intervals of the two pass rates
  with the correlation of the pairs, never collapses to a point, and keeps
  close to its nominal coverage down to a handful of cases.
- Anything else (scores, pass shares over epochs): Student's t-interval on
  the per-case differences, clipped to the differences the scale allows.
  When every difference is the same, the spread cannot be estimated and the
  t-interval would be a point too; then the interval bounds the mean
  difference by the share of cases that could still differ (the exact
  binomial bound for "0 of n seen", the "rule of three" in general form),
  each by at most the width of the scale.

`SMALL_SAMPLE` is 30 cases: the usual point from which the sample mean's
normal approximation, which the percentile bootstrap leans on, is good
enough for the moderately skewed differences judge scores produce.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from assay.analysis.bootstrap import DEFAULT_RESAMPLES, paired_bootstrap_ci
from assay.analysis.interval import Interval, is_binary, wilson
from assay.errors import UserError

SMALL_SAMPLE = 30
"""Below this many paired cases the interval is computed, not bootstrapped."""

_DECIMALS = 9
"""Per-case means like (7+8+9)/3 differ from 8 by float dust; equal means compare equal."""


def difference_interval(a: np.ndarray, b: np.ndarray, *, span: float | None,
                        confidence: float = 0.95, resamples: int = DEFAULT_RESAMPLES,
                        seed: int = 0) -> Interval:
    """CI of mean(b - a) over paired cases; `span` is how far one case's difference can go
    (max - min of the scale), None to take it from the values seen."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    diffs = np.round(b - a, _DECIMALS)
    if diffs.size == 0:
        raise UserError("cannot estimate an interval from zero cases")
    degenerate = bool(np.all(diffs == diffs[0]))
    if diffs.size >= SMALL_SAMPLE and not degenerate:
        return paired_bootstrap_ci(diffs, confidence=confidence, resamples=resamples, seed=seed)
    if is_binary(a) and is_binary(b):
        return newcombe_paired(a.astype(bool), b.astype(bool), confidence=confidence)
    if span is None:
        span = float(max(a.max(), b.max()) - min(a.min(), b.min()))
        if not span > 0:
            raise UserError(
                f"every value on both sides is {a[0]:g}: with {diffs.size} cases the interval "
                "of the difference has no bound without the scale; give scale=(min, max)")
    return t_interval(diffs, span=span, confidence=confidence)


def newcombe_paired(passed_a: np.ndarray, passed_b: np.ndarray, *,
                    confidence: float = 0.95) -> Interval:
    """Newcombe's hybrid score interval (method 10) for B's pass rate minus A's, paired."""
    _check_confidence(confidence)
    n = int(passed_a.size)
    both = int(np.sum(passed_a & passed_b))
    b_only = int(np.sum(passed_b & ~passed_a))
    a_only = int(np.sum(passed_a & ~passed_b))
    neither = n - both - b_only - a_only
    rate_b, rate_a = (both + b_only) / n, (both + a_only) / n
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    of_b, of_a = wilson(both + b_only, n, z), wilson(both + a_only, n, z)
    low_b, high_b, low_a, high_a = of_b.low, of_b.high, of_a.low, of_a.high
    phi = _pair_correlation(both, b_only, a_only, neither)
    delta = rate_b - rate_a
    down = math.sqrt(max(0.0, (rate_b - low_b) ** 2 - 2 * phi * (rate_b - low_b)
                         * (high_a - rate_a) + (high_a - rate_a) ** 2))
    up = math.sqrt(max(0.0, (high_b - rate_b) ** 2 - 2 * phi * (high_b - rate_b)
                       * (rate_a - low_a) + (rate_a - low_a) ** 2))
    return Interval(max(-1.0, delta - down), min(1.0, delta + up), confidence,
                    method="Newcombe")


def _pair_correlation(both: int, b_only: int, a_only: int, neither: int) -> float:
    """Newcombe's phi: the correlation of the two sides' verdicts, continuity-corrected
    towards 0 when positive; 0 when a margin is empty (no correlation to estimate)."""
    margins = (both + b_only) * (a_only + neither) * (both + a_only) * (b_only + neither)
    if margins == 0:
        return 0.0
    n = both + b_only + a_only + neither
    cross = both * neither - b_only * a_only
    if cross > n / 2:
        cross -= n / 2
    elif cross > 0:
        cross = 0
    return cross / math.sqrt(margins)


def t_interval(diffs: np.ndarray, *, span: float, confidence: float = 0.95) -> Interval:
    """Student's t-interval for the mean difference, within [-span, +span]; for differences
    that are all the same, the zero-spread bound (see the module notes)."""
    _check_confidence(confidence)
    d = np.asarray(diffs, dtype=float)
    n = int(d.size)
    mean = float(d.mean())
    if n < 2 or bool(np.all(d == d[0])):
        return _zero_spread_bound(mean, n, span, confidence)
    half = float(stats.t.ppf(0.5 + confidence / 2, n - 1)) * float(d.std(ddof=1)) / math.sqrt(n)
    return Interval(max(-span, mean - half), min(span, mean + half), confidence,
                    method="t-interval")


def _zero_spread_bound(common: float, n: int, span: float, confidence: float) -> Interval:
    """All n differences equal `common`: at most a share `p` of all cases could differ
    (exact binomial upper bound for 0 of n), each by at most the scale's width."""
    p = 1 - ((1 - confidence) / 2) ** (1 / n)
    return Interval(common - p * (common + span), common + p * (span - common), confidence,
                    method="zero-spread bound")



def _check_confidence(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise UserError(f"confidence must be between 0 and 1, got {confidence}")
