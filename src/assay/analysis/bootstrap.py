"""Paired bootstrap confidence intervals: how far a mean difference could move by the luck of the cases.

Resampling whole cases (both sides of a pair together) keeps the pairing, so
the interval reflects the per-case differences, not two independent samples.
Seeded, so the same data and seed give the same interval on every machine.
"""

from __future__ import annotations

import numpy as np

from assay.analysis.interval import Interval
from assay.errors import UserError

DEFAULT_RESAMPLES = 10_000
_CELLS_PER_CHUNK = 2_000_000
"""Bounds memory (~16 MB of indices) when resampling many cases many times."""


def paired_bootstrap_ci(diffs: np.ndarray, *, confidence: float = 0.95,
                        resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> Interval:
    """Percentile bootstrap CI of the mean of per-case differences (B - A).

    Cases are drawn with replacement. When the differences take few distinct
    values (pass/fail, integer judge scores), drawing multinomial counts of
    each value is the same distribution as drawing cases and costs
    resamples x distinct values instead of resamples x cases, so 100k cases
    stay fast. The percentile interval is too narrow for few cases, and a
    point when every difference is the same; comparisons use
    `paired_interval.difference_interval`, which computes the interval there instead.
    """
    if not 0 < confidence < 1:
        raise UserError(f"confidence must be between 0 and 1, got {confidence}")
    if resamples < 100:
        raise UserError(f"bootstrap resamples must be at least 100, got {resamples}")
    d = np.asarray(diffs, dtype=float)
    if d.size == 0:
        raise UserError("cannot bootstrap an interval from zero cases")
    rng = np.random.default_rng(seed)
    values, counts = np.unique(d, return_counts=True)
    if values.size * 8 < d.size:
        means = _means_by_counts(values, counts, resamples, rng)
    else:
        means = _means_by_indices(d, resamples, rng)
    tail = (1 - confidence) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return Interval(float(low), float(high), confidence, method="bootstrap")


def _means_by_counts(values: np.ndarray, counts: np.ndarray, resamples: int,
                     rng: np.random.Generator) -> np.ndarray:
    n = int(counts.sum())
    drawn = rng.multinomial(n, counts / n, size=resamples)
    means: np.ndarray = drawn @ values / n
    return means


def _means_by_indices(d: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    n = d.size
    means = np.empty(resamples)
    rows = max(1, _CELLS_PER_CHUNK // n)
    for start in range(0, resamples, rows):
        stop = min(resamples, start + rows)
        picks = rng.integers(0, n, size=(stop - start, n), dtype=np.int64)
        means[start:stop] = d[picks].mean(axis=1)
    return means
