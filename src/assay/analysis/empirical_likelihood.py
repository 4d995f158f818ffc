"""Owen's empirical likelihood for a mean: a test that reads the sample's shape, not a formula's.

The empirical likelihood of a mean mu (Owen 1988, Biometrika 75:237) is the
most probability n cases can give their own values while averaging mu:

    R(mu) = max { prod(n w_i) : w_i >= 0, sum w_i = 1, sum w_i x_i = mu }

and -2 log R(mu) is chi-square with one degree of freedom in the limit, as
the t statistic squared is, but with no assumption about the shape of the
differences: a sample with a long right tail keeps means far into that tail
and few on the other side, as the data say. The maximising weights are
w_i = 1 / (n (1 + lambda (x_i - mu))), lambda the one root of

    sum (x_i - mu) / (1 + lambda (x_i - mu)) = 0

in the range where every weight is positive, found here by Newton steps
kept inside that range by bisection. A mean outside the sample's range
cannot be reached by any weights: its likelihood is 0 and it is rejected.

The interval is every mu whose statistic stays below the chi-square
critical value. As -2 log R falls towards the sample mean on either side
(its slope in mu is -2 n lambda), each bound is one root, found by Newton
steps on the statistic's square root, which is nearly straight in mu.

Pure Python over the distinct values and their counts: a comparison needs
one test and two bounds, and judge scores take few distinct values; numpy's
import would cost more than the sums. From `_VECTORISED_FROM` distinct
values (continuous scores over thousands of cases) numpy takes the sums.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from assay.analysis.distributions import chi2_1_ppf, chi2_1_sf
from assay.analysis.moments import scaled

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

_CLOSE = 1e-13
"""A step this small (relative to lambda; to the largest value, for a mean) ends a search:
Newton's last step is about the square of the one before, so the root is closer still."""
_VECTORISED_FROM = 1000
"""Distinct values from which numpy's sums beat Python's loop (by 10 times at 10,000)."""
_STEPS = 200
"""More Newton or bisection steps than any root needs (bisection alone halves a float
range to its last bit in about 1,100; Newton steps from the start used here take 5-10)."""


@dataclass(frozen=True, slots=True)
class MeanLikelihood:
    """The empirical likelihood of the mean of one sample, held as its distinct values
    (divided by `unit`, a power of two, so sums of any size a float holds stay finite)
    and how many cases took each."""

    values: tuple[float, ...]
    counts: tuple[int, ...]
    unit: float
    mean: float
    """The sample mean, in the scaled units."""
    arrays: tuple[NDArray[np.float64], NDArray[np.float64]] | None = field(
        default=None, repr=False, compare=False)
    """The values and counts as numpy arrays, from `_VECTORISED_FROM` distinct values."""

    @classmethod
    def of(cls, data: Iterable[float]) -> MeanLikelihood:
        small, unit = scaled([float(x) for x in data])
        tally = Counter(small)
        if len(tally) < 2:
            raise ValueError("the empirical likelihood of a mean needs two distinct values")
        values, counts = tuple(tally), tuple(tally.values())
        mean = math.fsum(v * c for v, c in zip(values, counts)) / sum(counts)
        if len(values) < _VECTORISED_FROM:
            return cls(values, counts, unit, mean)
        import numpy as np

        arrays = (np.array(values), np.array(counts, dtype=float))
        return cls(values, counts, unit, mean, arrays)

    def statistic(self, mu: float) -> float:
        """-2 log R(mu); infinite where no weights on the sample reach mean mu."""
        return self._scaled_statistic(mu / self.unit)[0]

    def p_value(self, mu: float) -> float:
        return chi2_1_sf(self.statistic(mu))

    def bounds(self, level: float) -> tuple[float, float]:
        """The interval at confidence 1 - level: the means whose statistic is at most the
        chi-square critical value."""
        return self.lower_bound(level), self.upper_bound(level)

    def lower_bound(self, level: float, *, below: float | None = None) -> float:
        """The lower end of the interval; `below`, if given, a mean already known to be
        kept (a bound found between the sample's lowest value and it)."""
        start = self.mean if below is None else below / self.unit
        return self._bound(chi2_1_ppf(level), start, -1.0) * self.unit

    def upper_bound(self, level: float, *, above: float | None = None) -> float:
        start = self.mean if above is None else above / self.unit
        return self._bound(chi2_1_ppf(level), start, 1.0) * self.unit

    def _scaled_statistic(self, mu: float, start: float = 0.0) -> tuple[float, float]:
        """-2 log R and lambda at a mean in the scaled units; `start`, a lambda to begin
        the search from (the one at a nearby mean)."""
        if self.arrays is not None:
            return _statistic_by_numpy(self.arrays[0] - mu, self.arrays[1], start)
        z = [v - mu for v in self.values]
        top, bottom = max(z), min(z)
        if top <= 0 or bottom >= 0:
            return math.inf, math.nan
        lam = _lagrange_multiplier(z, self.counts, -1 / top, -1 / bottom, start)
        statistic = 2 * sum(c * math.log1p(lam * d) for d, c in zip(z, self.counts))
        return max(0.0, statistic), lam

    def _bound(self, critical: float, kept: float, side: float) -> float:
        """The mean on `side` (-1: below, +1: above) of `kept` where the statistic reaches
        `critical`, in scaled units: Newton steps on sqrt(statistic), bisection as a guard."""
        edge = min(self.values) if side < 0 else max(self.values)
        target = math.sqrt(critical)
        inner, outer = kept, edge  # statistic <= critical at inner; infinite at the edge
        n = sum(self.counts)
        if kept != self.mean:  # a kept mean near the bound: Newton steps from it go straight
            mu = kept
        else:  # where the bound would be were the statistic the z test's square
            spread = math.sqrt(math.fsum(c * (v - self.mean) ** 2
                                         for v, c in zip(self.values, self.counts)) / n)
            guess = self.mean + side * target * spread / math.sqrt(n)
            mu = guess if _between(guess, inner, outer) else (inner + outer) / 2
        lam = 0.0
        for _ in range(_STEPS):
            statistic, lam = self._scaled_statistic(mu, lam if math.isfinite(lam) else 0.0)
            root = math.sqrt(statistic)
            if root == target:
                return mu
            if root > target:
                outer = mu
            else:
                inner = mu
            if not math.isfinite(root) or root == 0:
                step = math.nan
            else:
                step = (root - target) / (-n * lam / root)  # d root / d mu = -n lambda / root
            following = mu - step
            if not _between(following, inner, outer) and not abs(step) <= _CLOSE:
                following = (inner + outer) / 2  # as in `_lagrange_multiplier`
            if abs(following - mu) <= _CLOSE:
                return following
            mu = following
        return mu


def _statistic_by_numpy(z: NDArray[np.float64], counts: NDArray[np.float64],
                        start: float) -> tuple[float, float]:
    """-2 log R and lambda, the sums taken by numpy: for thousands of distinct values."""
    import numpy as np

    if z.max() <= 0 or z.min() >= 0:
        return math.inf, math.nan
    lam = float(_multipliers(z[None, :], counts[None, :], np.array([start]))[0])
    return max(0.0, 2 * float((counts * np.log1p(lam * z)).sum())), lam


def _between(x: float, a: float, b: float) -> bool:
    """Strictly between a and b, in whichever order they come."""
    return min(a, b) < x < max(a, b)


def _lagrange_multiplier(z: list[float], counts: tuple[int, ...], low: float,
                         high: float, start: float = 0.0) -> float:
    """The root lambda in (low, high) of sum c z / (1 + lambda z), which falls from +inf to
    -inf across that range (every 1 + lambda z stays positive inside it)."""
    lam = start if low < start < high else 0.0
    for _ in range(_STEPS):
        slope = value = 0.0
        for d, c in zip(z, counts):
            ratio = d / (1 + lam * d)
            value += c * ratio
            slope += c * ratio * ratio
        if value > 0:
            low = lam
        elif value < 0:
            high = lam
        else:
            return lam
        step = value / slope
        following = lam + step
        # a step within _CLOSE has found the root even where rounding puts it on an end of
        # the bracket (whose last move was to the root): bisecting would take 50 steps back
        if not low < following < high and abs(step) > _CLOSE * abs(lam):
            following = (low + high) / 2
        if abs(following - lam) <= _CLOSE * abs(lam):
            return following
        lam = following
    return lam


def statistics_at_zero(samples: NDArray[np.float64]) -> NDArray[np.float64]:
    """-2 log R(0) for each row of `samples` at once (infinite where a row's values all
    lie on one side of 0), for power computed over thousands of samples."""
    import numpy as np

    top, bottom = samples.max(axis=1), samples.min(axis=1)
    reachable = (top > 0) & (bottom < 0)
    z = samples[reachable]
    lam = _multipliers(z, np.ones_like(z), np.zeros(len(z)))
    statistics = np.full(len(samples), np.inf)
    statistics[reachable] = np.maximum(0.0, 2 * np.log1p(lam[:, None] * z).sum(axis=1))
    return statistics


def _multipliers(z: NDArray[np.float64], counts: NDArray[np.float64],
                 start: NDArray[np.float64]) -> NDArray[np.float64]:
    """`_lagrange_multiplier` for each row of z (each with values on both sides of 0) at
    once: the same Newton steps and bisection guard, over the rows still moving."""
    import numpy as np

    low, high = -1 / z.max(axis=1), -1 / z.min(axis=1)
    lam = np.where((low < start) & (start < high), start, 0.0)
    moving = np.arange(len(z))
    for _ in range(_STEPS):
        if not len(moving):
            break
        rows, weights, now = z[moving], counts[moving], lam[moving]
        ratio = rows / (1 + now[:, None] * rows)
        value, slope = (weights * ratio).sum(axis=1), (weights * ratio * ratio).sum(axis=1)
        low[moving] = np.where(value > 0, now, low[moving])
        high[moving] = np.where(value < 0, now, high[moving])
        step = value / slope
        following = now + step
        outside = (~((low[moving] < following) & (following < high[moving]))
                   & (np.abs(step) > _CLOSE * np.abs(now)))
        following = np.where(outside, (low[moving] + high[moving]) / 2, following)
        done = (np.abs(following - now) <= _CLOSE * np.abs(now)) | (value == 0)
        lam[moving] = np.where(value == 0, now, following)
        moving = moving[~done]
    return lam
