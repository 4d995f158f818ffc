"""The confidence interval: one type for every interval assay prints.

A mean's t-interval, a pass rate's Wilson interval, a paired difference's
Tango score or checked t interval and an agreement's jackknife interval
are all an `Interval`, which says its level and how it was computed, so a
report can name the method beside it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from assay.analysis.moments import mean_and_stderr

Z_95 = 1.959963984540054
"""The 97.5% quantile of the standard normal: the 95% two-sided critical value."""


@dataclass(frozen=True, slots=True)
class Interval:
    """A confidence interval [low, high] at `confidence` (0.95 for a 95% CI)."""

    low: float
    high: float
    confidence: float = 0.95
    method: str = ""
    """How it was computed, as a report names it: `t`, `Wilson`, `Tango score`,
    `paired t, checked by empirical likelihood`, `zero-spread bound`, a jackknife, ..."""

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high

    def scaled(self, factor: float) -> Interval:
        """The same interval in other units (fractions -> percentage points)."""
        return Interval(self.low * factor, self.high * factor, self.confidence, self.method)

    def to_dict(self) -> dict[str, Any]:
        return {"low": self.low, "high": self.high, "confidence": self.confidence,
                "method": self.method}


def hull(first: Interval, second: Interval | None) -> Interval:
    """The smallest interval holding both, with `first`'s level and method."""
    if second is None:
        return first
    return Interval(min(first.low, second.low), max(first.high, second.high),
                    first.confidence, first.method)


def scale_hull(scale: tuple[float, float], other: tuple[float, float]) -> tuple[float, float]:
    """The smallest scale holding both: a scorer whose function returns a 0-10 Score for an
    answer and False (a 0-1 verdict) for an empty one has every value within 0..10, and
    its intervals are bounded by that, never by the scale of whichever value came last
    (which read `6.350 [4.503–1.000]`)."""
    return (min(scale[0], other[0]), max(scale[1], other[1]))


def wilson(successes: float, n: float, z: float = Z_95) -> Interval:
    """Wilson score interval for a proportion: sane at 0%, 100% and small n."""
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return Interval(max(0.0, centre - half), min(1.0, centre + half), method="Wilson")


def wilson_of_shares(shares: Sequence[float], epochs: Sequence[int]) -> Interval:
    """Wilson interval of a pass rate read per case first: the mean of each case's share of
    passed epochs, `epochs[i]` verdicts behind `shares[i]`.

    Epochs of one case are not independent trials, nor is a case's share one trial: the
    Wilson interval of the cases alone (each a share of a success) covered the pass rate
    98-100% of the time with 3 epochs at 20-50 cases, as wide as if the epochs told
    nothing. It is the Wilson interval at the effective number of cases (Kish's design
    effect, as Korn & Graubard 1998 use it for clustered proportions): the count whose
    binomial variance p(1 - p) / n_eff is the variance the shares show, s^2 / n, kept
    between the cases (epochs that always agree) and `shares_cap` (epochs as independent
    as cases). That variance rests on n - 1 degrees of freedom, so the critical value is
    Student's t at n - 1: with the normal's 1.96, cases from Beta(2, 2) with 20 epochs were
    covered 81%, 85%, 89%, 92% of the time at 2, 3, 5, 10 cases (two cases of 10 in 20
    read 35-65%, now 5-95%); with t, 100%, 98.5%, 95.5%, 95.1% (wide below 4 cases, the
    right side to err on). Equal shares between 0 and 1 show no spread: the cap, with t.
    With one epoch a case (the cap is n) or every case at 0 or at 1, it is the Wilson
    interval of the n cases, a run without epochs' interval, and keeps 1.96: no spread
    was read. In the seeded simulations of `tests/analysis/test_summary.py` it covers
    95.3-97.9% at 20-50 cases."""
    n = len(shares)
    p = math.fsum(shares) / n
    if p * (1 - p) == 0:  # every case passed every epoch, or none passed any
        return wilson(p * n, n)
    cap = shares_cap(epochs)
    variance = math.fsum((v - p) ** 2 for v in shares) / (n - 1) if n > 1 else 0.0
    effective = cap if variance == 0 else min(max(n * p * (1 - p) / variance, n), cap)
    z = t975(n - 1) if n > 1 and cap > n else Z_95
    return wilson(p * effective, effective, z)


def shares_cap(epochs: Sequence[int]) -> float:
    """The largest effective number of cases a mean of shares can honestly have: n^2 /
    sum(1 / m_i), the count whose binomial variance is the mean's when every verdict is
    independent (each share's variance p(1 - p) / m_i, averaged one per case). The total
    of verdicts, sum(m_i), is the same only with equal epochs; half the cases on 1 epoch
    and half on 20 at a pass rate of 80% were covered 81%, 87%, 93% of the time at 10, 20,
    40 cases with it as the cap, and 99%, 98.5%, 97% with this one."""
    return len(epochs) ** 2 / math.fsum(1 / m for m in epochs)


ZERO_SPREAD = "zero-spread bound"


def t_interval(values: Sequence[float], scale: tuple[float, float] | None = None
               ) -> Interval | None:
    """Student's t interval of the mean (95%), clipped to `scale`; None below two values.

    When every value is the same the t interval has no width, a certainty n cases cannot
    give ("1.67 [1.67–1.67]"): then it is the `zero_spread_bound` on the scale, and None
    without a scale to bound it by."""
    n = len(values)
    if n < 2:
        return None
    mean, stderr = mean_and_stderr(values)
    if stderr == 0:
        if scale is None:
            return None
        low, high = zero_spread_bound(mean, n, scale)
        return Interval(low, high, method=ZERO_SPREAD)
    half = t975(n - 1) * stderr
    low, high = scale if scale is not None else (-math.inf, math.inf)
    return Interval(max(low, mean - half), min(high, mean + half), method="t")


def zero_spread_bound(common: float, n: int, scale: tuple[float, float],
                      level: float = 0.05) -> tuple[float, float]:
    """n values all equal to `common` on `scale`: at most a share p of all cases could
    differ (the exact binomial upper bound for none of n seen, the rule of three in
    general form), each at most as far as the scale's end on its side."""
    share = 1 - (level / 2) ** (1 / n)
    return common - share * (common - scale[0]), common + share * (scale[1] - common)


@cache  # a report asks for the same few df once per scorer and condition
def t975(df: int) -> float:
    """The 97.5% quantile of Student's t (the 95% two-sided critical value), exact at every
    df: the normal's 1.96 in its place above 1,000 degrees of freedom made the
    interval up to 0.12% too narrow."""
    from assay.analysis.distributions import t_ppf

    return t_ppf(0.975, df)


def is_binary(x: Iterable[float]) -> bool:
    """True when every value is 0 or 1: pass/fail data, which gets proportion methods."""
    return all(v == 0 or v == 1 for v in x)
