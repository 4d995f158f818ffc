"""B's mean minus A's over the same cases: a test of the mean and the interval that inverts it.

The per-case differences d = B - A are tested as a mean: is E[d] = 0? The
paired t test asks exactly that, but judge scores make skewed differences
(most cases +1, a few -4), and skew makes the t test call noise
"significant" too often at 20 or 30 cases, and miss on the other side.
Owen's empirical likelihood (`empirical_likelihood`) tests the same mean
without assuming a shape: it reads the skew from the whole sample, so
means towards the long tail stay plausible and means on the short side do
not. It is chi-square only in the limit, and at 20 or 30 cases it is a
little bold where the t test is not (symmetric or heavy-tailed
differences, where a few far values move it more than they move t).

So each checks the other: the test rejects mu only when both the t test
and the empirical likelihood reject it, and its p-value is the larger of
the two (an intersection-union test, valid whichever of the two is right).
The interval is every mu that either test keeps, the union of the
t-interval and the likelihood's (both hold the sample mean, so the union is
one interval), and it leaves out 0 exactly when the test rejects 0. With
symmetric differences it is mostly the paired t test and its interval.

When every case moved by the same amount the spread is 0 and neither
exists; then the interval bounds the mean difference by the share of cases
that could still differ (the exact binomial bound for "none of n seen",
the rule of three in general form), each by at most the width of the
scale, and the p-value is the level at which that bound reaches 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from assay.analysis.distributions import chi2_1_ppf, t_cdf, t_ppf
from assay.analysis.empirical_likelihood import MeanLikelihood
from assay.analysis.interval import ZERO_SPREAD, Interval, zero_spread_bound
from assay.analysis.moments import mean_and_sd
from assay.analysis.significance import PairedTest, snap
from assay.errors import UserError
from assay.shown_numbers import significant

CHECKED_T = "paired t, checked by empirical likelihood"
"""The paired t test and Owen's empirical likelihood, significant only where both are."""


@dataclass(frozen=True, slots=True)
class Differences:
    """The per-case differences B - A: the moments the t test reads, and the whole sample
    the empirical likelihood reads."""

    n: int
    mean: float
    sd: float
    """Sample standard deviation (n - 1); 0 when every difference is the same or n < 2."""
    span: float
    """How far one case's difference can go: the width of the scale."""
    likelihood: MeanLikelihood | None = field(default=None, repr=False)
    """The differences' empirical likelihood (None without spread: the zero-spread bound)."""

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
        if n > 1 and any(v != d[0] for v in d):
            return cls(n, mean, sd, float(span), MeanLikelihood.of(d))
        return cls(n, mean, 0.0, float(span))

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
        assert self.likelihood is not None, "differences with spread are read by `of`"
        t = self.mean / self._se
        plain = 2 * t_cdf(-abs(t), self.n - 1)
        likelihood = self.likelihood.p_value(0.0)
        return PairedTest(CHECKED_T, t, max(plain, likelihood), self.n,
                          _larger_note(plain, likelihood))

    def interval(self, level: float, test: PairedTest) -> Interval:
        if self.zero_spread:
            # a difference lies in -span..span
            low, high = zero_spread_bound(self.mean, self.n, (-self.span, self.span), level)
            method = ZERO_SPREAD
        else:
            assert self.likelihood is not None, "differences with spread are read by `of`"
            low, high = self._kept_by_either(self.likelihood, level)
            method = CHECKED_T
        if test.p_value >= level:  # the same decision, safe from rounding at the edge
            low, high = min(low, 0.0), max(high, 0.0)
        elif low <= 0.0 <= high:  # a bound found to its last bits, on the wrong side of 0
            low, high = (math.ulp(0.0), high) if self.mean > 0 else (low, -math.ulp(0.0))
        return Interval(max(-self.span, low), min(self.span, high), 1 - level, method=method)

    def _kept_by_either(self, likelihood: MeanLikelihood, level: float) -> tuple[float, float]:
        """The union of the t-interval and the likelihood's. Where the likelihood rejects a
        bound of the t-interval, its own bound on that side lies inside and is not needed."""
        half = self._se * t_ppf(1 - level / 2, self.n - 1)
        low, high = self.mean - half, self.mean + half
        critical = chi2_1_ppf(level)
        if likelihood.statistic(low) <= critical:
            low = likelihood.lower_bound(level, below=low)
        if likelihood.statistic(high) <= critical:
            high = likelihood.upper_bound(level, above=high)
        return low, high

    @property
    def _se(self) -> float:
        return self.sd / math.sqrt(self.n)

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "mean": self.mean, "sd": self.sd, "span": self.span}


def _larger_note(plain: float, likelihood: float) -> str:
    """Which test's p-value is p, and the other's, below it in the digits shown. Both
    written to three digits, a likelihood's 0.049985 read `(0.05)` in the note under a
    line that said `p=0.04999`, significant: p itself is printed on the line, at the
    digits that show its side of the level, and is not written again here."""
    if plain == likelihood:
        return "p is the t test's and the empirical likelihood's alike"
    tests = {plain: "the t test's", likelihood: "the empirical likelihood's"}
    larger, smaller = max(plain, likelihood), min(plain, likelihood)
    digits = 3
    while float(significant(smaller, digits)) >= larger and digits < 17:
        digits += 1
    return f"p is {tests[larger]}, the larger; {tests[smaller]} is {significant(smaller, digits)}"


def _without_dust(mean: float, n: int) -> float:
    """The mean of differences already rounded to 9 decimals (`snap`), with the float dust
    of their sum rounded away as each difference's was: +0.1, +0.2 and -0.3 sum to 2.8e-17,
    and three such cases read `0.10000000 → 0.10000000, +0.00000000`, "not clearly
    better", where the two means are one number and the difference is 0. The sum is divided
    as written, so ten cases that each moved by -0.338 have a mean of -0.338, not the
    -0.33799999999999997 of a float division."""
    total = mean * n
    return float(Decimal(repr(snap([total])[0])) / n) if math.isfinite(total) else mean

