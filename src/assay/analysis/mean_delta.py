"""B's mean minus A's over the same cases: a test of the mean and the interval that inverts it.

The per-case differences d = B - A are tested as a mean: is E[d] = 0? The
paired t test asks exactly that, but judge scores make skewed differences
(most cases +1, a few -4), and skew makes the t test call noise
"significant" too often at 20 or 30 cases. Hall's skewness correction
(Hall 1992, J. R. Statist. Soc. B 54:221) answers that:

    T = (mean - mu) / (sd / sqrt(n)),  a = g / (3 sqrt(n)),  c = g / (6 sqrt(n))
    h(T) = T + a T^2 + a^2 T^3 / 3 + c          (monotone in T)

with g the sample skewness (scipy's `skew(d, bias=False)`), referred to
Student's t with n - 1 degrees of freedom.

But the correction leans on g, and g is itself an estimate, wild when few
cases moved: 2 cases of 30 up by a point and none down read as a skewness
near 4, and h then calls that gain significant where the sign test gives
p = 0.5. With differences mostly 0 and 5% each way +-1 (no true difference),
Hall's test alone said "significant" in 21% of 30-case runs, and 7-8% with
symmetric heavy tails. So the correction may make a verdict more cautious,
never bolder: the test rejects mu only when both the plain t test and
Hall's reject it, and its p-value is the larger of the two (an
intersection-union test, valid whichever of the two is right). The interval
is every mu that either test would keep, the union of the t-interval and
Hall's (both hold the sample mean, so the union is one interval), and
leaves out 0 exactly when the test rejects 0. With symmetric differences (g
= 0) both are exactly the paired t test and the t-interval (scipy's
`ttest_rel` and its `confidence_interval`).

When every case moved by the same amount the spread is 0 and neither
exists; then the interval bounds the mean difference by the share of cases
that could still differ (the exact binomial bound for "none of n seen",
the rule of three in general form), each by at most the width of the
scale, and the p-value is the level at which that bound reaches 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from assay.analysis.distributions import t_cdf, t_ppf
from assay.analysis.interval import ZERO_SPREAD, Interval, zero_spread_bound
from assay.analysis.moments import mean_and_sd, skewness
from assay.analysis.significance import PairedTest, snap
from assay.errors import UserError
from assay.shown_numbers import fixed, significant

SKEW_T = "paired t, skew-checked (Hall)"
"""The paired t test, with Hall's skew correction allowed to make it more cautious only."""


@dataclass(frozen=True, slots=True)
class Differences:
    """The moments of the per-case differences B - A that the test and interval use."""

    n: int
    mean: float
    sd: float
    """Sample standard deviation (n - 1); 0 when every difference is the same or n < 2."""
    skewness: float
    """Adjusted sample skewness G1 (0 below three cases or without spread)."""
    span: float
    """How far one case's difference can go: the width of the scale."""

    @classmethod
    def of(cls, diffs: Iterable[float], span: float) -> Differences:
        d = snap(diffs)
        n = len(d)
        if n == 0:
            raise UserError("cannot compare zero cases")
        if not span > 0:
            raise UserError(f"the scale's width must be positive, got {span}")
        too_far = next((v for v in d if not math.isfinite(v)), None)
        if too_far is not None:
            raise UserError(f"a case's difference B - A is {too_far}: its scores are too far "
                            "apart for a float (past 1.8e308)")
        mean, sd = mean_and_sd(d)
        mean = _without_dust(mean, n)
        if not math.isfinite(sd):
            raise UserError("the differences B - A spread past what a float holds (their "
                            "standard deviation passes 1.8e308)")
        spread = n > 1 and any(v != d[0] for v in d)
        return cls(n, mean, sd if spread else 0.0, skewness(d) if spread else 0.0, float(span))

    @property
    def estimate(self) -> float:
        return self.mean

    @property
    def zero_spread(self) -> bool:
        return self.sd == 0.0

    def test(self) -> PairedTest:
        if self.zero_spread:
            p = min(1.0, 2 * (self.span / (self.span + abs(self.mean))) ** self.n)
            return PairedTest(ZERO_SPREAD, None, p, self.n,
                              "every case moved by the same amount")
        t = self.mean / self._se
        plain = 2 * t_cdf(-abs(t), self.n - 1)
        corrected = 2 * t_cdf(-abs(_corrected(t, *_hall_terms(self.n, self.skewness))), self.n - 1)
        return PairedTest(SKEW_T, t, max(plain, corrected), self.n,
                          f"skewness {fixed(self.skewness, 2, signed=True)}; p is the larger of the "
                          f"plain t test's ({significant(plain, 3)}) and Hall's "
                          f"({significant(corrected, 3)})")

    def interval(self, level: float, test: PairedTest) -> Interval:
        if self.zero_spread:
            # a difference lies in -span..span
            low, high = zero_spread_bound(self.mean, self.n, (-self.span, self.span), level)
            method = ZERO_SPREAD
        else:
            lowest, highest = kept_statistics(self.n, self.skewness, level)
            low, high = self.mean - self._se * highest, self.mean - self._se * lowest
            method = SKEW_T
        if test.p_value >= level:  # the same decision, safe from rounding at the edge
            low, high = min(low, 0.0), max(high, 0.0)
        return Interval(max(-self.span, low), min(self.span, high), 1 - level, method=method)

    @property
    def _se(self) -> float:
        return self.sd / math.sqrt(self.n)

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "mean": self.mean, "sd": self.sd, "skewness": self.skewness,
                "span": self.span}


def _without_dust(mean: float, n: int) -> float:
    """The mean of differences already rounded to 9 decimals (`snap`), with the float dust
    of their sum rounded away as each difference's was: +0.1, +0.2 and -0.3 sum to 2.8e-17,
    and three such cases read `0.10000000 → 0.10000000, +0.00000000`, "not clearly
    better", where the two means are one number and the difference is 0. The sum is divided
    as written, so ten cases that each moved by -0.338 have a mean of -0.338, not the
    -0.33799999999999997 of a float division."""
    total = mean * n
    return float(Decimal(repr(snap([total])[0])) / n) if math.isfinite(total) else mean


def kept_statistics(n: int, skewness: float, level: float) -> tuple[float, float]:
    """The lowest and highest t statistic, (mean - mu) / se, at which the test keeps mu at
    this level: every T the plain t test or Hall's keeps, around 0 (Hall's shift c is at most
    1/6, as |skewness| <= sqrt(n)). The interval is mean - se * highest .. mean - se * lowest,
    and the test rejects exactly outside these bounds (the power of `power` reads them)."""
    critical = t_ppf(1 - level / 2, n - 1)
    a, c = _hall_terms(n, skewness)
    return min(-critical, _uncorrected(-critical, a, c)), max(critical, _uncorrected(critical, a, c))


def _hall_terms(n: int, skewness: float) -> tuple[float, float]:
    """Hall's a = g / (3 sqrt(n)) and c = g / (6 sqrt(n))."""
    return skewness / (3 * math.sqrt(n)), skewness / (6 * math.sqrt(n))


def _corrected(t: float, a: float, c: float) -> float:
    """Hall's h(T) = T + a T^2 + a^2 T^3 / 3 + c = ((1 + aT)^3 - 1) / (3a) + c."""
    return t + a * t * t + a * a * t**3 / 3 + c


def _uncorrected(h: float, a: float, c: float) -> float:
    """The T with h(T) = h (h is a monotone cubic, so there is exactly one)."""
    if abs(a) < 1e-12:
        return h - c
    return (math.cbrt(1 + 3 * a * (h - c)) - 1) / a
