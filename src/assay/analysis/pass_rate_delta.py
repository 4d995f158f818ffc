"""B's pass rate minus A's over the same cases: McNemar's score test and the interval inverting it.

Only the discordant cases (passed on one side only) carry evidence: with
`b_only` cases passing only with B and `a_only` only with A out of `n`, the
delta is (b_only - a_only) / n.

- The interval is Tango's score interval (Tango 1998, Statistics in
  Medicine 17:891): every delta d0 whose score test, with the discordant
  probabilities re-estimated under d0, does not reject. It keeps close to
  its nominal coverage down to a handful of cases and never collapses to a
  point.
- The test is that same score test at d0 = 0, which is McNemar's test
  without continuity correction: z = (b_only - a_only) / sqrt(b_only +
  a_only), two-sided against the normal, as statsmodels'
  `mcnemar(table, exact=False, correction=False)`. So the interval leaves
  out 0 exactly when the test rejects: one test, read two ways.
- Why not the exact (conditional binomial) McNemar test: with few
  discordant cases it can only reach a handful of p-values, so at a nominal
  5% it calls a true no-difference "significant" 0-3% of the time (see
  tests/analysis/calibration.py) and misses real differences. Fagerland,
  Lydersen & Laake (2013, BMC Medical Research Methodology 13:91) compare
  the McNemar tests over 9,595 scenarios: the exact conditional test is too
  conservative throughout, the asymptotic test close to the nominal level
  with small but frequent excursions above it. The mid-p test never went
  above it there, but it is more conservative still at 20-30 cases and has
  no interval of the difference that inverts it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from assay.analysis.distributions import binom_two_sided_half, normal_cdf, normal_ppf
from assay.analysis.interval import Interval
from assay.analysis.significance import PairedTest
from assay.wording import plural

METHOD = "Tango score"
SCORE_TEST = "asymptotic McNemar"
"""McNemar's chi-square test without continuity correction, as Fagerland et al. name it."""
_EDGE = 1e-12
"""How close to +-1 the interval's search goes: at +-1 the variance under the null is 0."""


@dataclass(frozen=True, slots=True)
class DiscordantPairs:
    """The counts a paired pass-rate comparison rests on."""

    n: int
    b_only: int
    """Cases passing with B only."""
    a_only: int
    """Cases passing with A only."""

    @property
    def estimate(self) -> float:
        return (self.b_only - self.a_only) / self.n

    @property
    def gain(self) -> float:
        """Share of cases passing only with B."""
        return self.b_only / self.n

    @property
    def loss(self) -> float:
        return self.a_only / self.n

    def test(self) -> PairedTest:
        return mcnemar_score(self.b_only, self.a_only)

    def interval(self, level: float, test: PairedTest) -> Interval:
        """Tango's interval at 1 - level: it leaves out 0 exactly when `test` rejects at level.

        The bounds are roots found to 1e-13; a p-value within that of the level could land a
        bound on the wrong side of 0, so the decision the p-value makes sets that bound."""
        low, high = tango_interval(self.n, self.b_only, self.a_only, 1 - level)
        if test.p_value >= level:
            low, high = min(low, 0.0), max(high, 0.0)
        elif low <= 0.0 <= high:
            if self.b_only > self.a_only:
                low = math.ulp(0.0)
            else:
                high = -math.ulp(0.0)
        return Interval(low, high, 1 - level, method=METHOD)

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "b_only": self.b_only, "a_only": self.a_only}


def mcnemar_score(b_only: int, a_only: int) -> PairedTest:
    """McNemar's test without continuity correction: Tango's score test at a delta of 0.

    The statistic is the chi-square (b_only - a_only)^2 / (b_only + a_only), as statsmodels
    reports it; the p-value is two-sided from z = (b_only - a_only) / sqrt(b_only + a_only)."""
    discordant = b_only + a_only
    note = f"{plural(b_only, 'case')} passing only with B, {a_only:,} only with A"
    if discordant == 0:
        return PairedTest(SCORE_TEST, 0.0, 1.0, 0, note + "; no discordant pairs")
    z = (b_only - a_only) / math.sqrt(discordant)
    return PairedTest(SCORE_TEST, z * z, min(1.0, 2 * normal_cdf(-abs(z))), discordant, note)


def mcnemar_exact(b_only: int, a_only: int) -> PairedTest:
    """Exact McNemar (the sign test over the discordant cases); the statistic is the smaller
    discordant count, as in statsmodels. Used where every decided pair is one vote."""
    discordant = b_only + a_only
    note = f"{plural(b_only, 'case')} passing only with B, {a_only:,} only with A"
    if discordant == 0:
        return PairedTest("exact McNemar", 0.0, 1.0, 0, note + "; no discordant pairs")
    smaller = min(a_only, b_only)
    return PairedTest("exact McNemar", float(smaller), binom_two_sided_half(smaller, discordant),
                      discordant, note)


def tango_interval(n: int, b_only: int, a_only: int, confidence: float) -> tuple[float, float]:
    """Tango's score interval for (b_only - a_only) / n, as fractions."""
    critical = normal_ppf(0.5 + confidence / 2)
    estimate = (b_only - a_only) / n

    def score(d0: float) -> float:
        return tango_score(n, b_only, a_only, d0)

    high = 1.0
    if score(1 - _EDGE) < -critical:
        high = _root(lambda d: score(d) + critical, estimate, 1 - _EDGE)
    low = -1.0
    if score(-1 + _EDGE) > critical:
        low = _root(lambda d: score(d) - critical, -1 + _EDGE, estimate)
    return float(low), float(high)


def _root(f: Callable[[float], float], low: float, high: float) -> float:
    """The root of f between low and high (where f changes sign), by bisection to 1e-13."""
    f_low = f(low)
    while high - low > 1e-13:
        middle = (low + high) / 2
        f_middle = f(middle)
        if f_middle == 0:
            return middle
        if (f_middle < 0) == (f_low < 0):
            low, f_low = middle, f_middle
        else:
            high = middle
    return (low + high) / 2


def tango_score(n: int, b_only: int, a_only: int, d0: float) -> float:
    """The score statistic of H0: delta = d0, with the discordant probabilities fitted under H0.

    Under H0 the A-only probability q and the B-only probability q + d0 maximise the
    multinomial likelihood where 2n q^2 + B q + C = 0 (its larger root), and
    Var(b_only - a_only) = n (2q + d0 - d0^2).
    """
    concordant = n - b_only - a_only
    slope = -(b_only * (1 - d0) + a_only * (1 - 3 * d0) - 2 * concordant * d0)
    constant = -a_only * d0 * (1 - d0)
    root = math.sqrt(max(0.0, slope * slope - 8 * n * constant))
    q = (-slope + root) / (4 * n)
    variance = n * (2 * q + d0 - d0 * d0)
    gap = b_only - a_only - n * d0
    if variance <= 0:
        return math.copysign(math.inf, gap) if gap else 0.0
    return gap / math.sqrt(variance)
