"""The result type of a paired test, and the test of shift shown beside a mean's verdict.

The verdict on a mean comes from a test of the mean (`mean_delta`), on a
pass rate from McNemar's score test (`pass_rate_delta`). The Wilcoxon
signed-rank test answers another question: do B's scores tend to sit above
A's (is the distribution of differences symmetric about 0)? With skewed differences a
zero mean and a clear shift go together, so its p-value is reported beside
the mean's, named as a test of shift, and never decides a verdict. It is the
exact sign test when few cases differ and their magnitudes tie.

Zeros are dropped before testing (Wilcoxon's own "wilcox" zero method): a
case where A and B are equal says nothing about which tends to be higher.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from assay.analysis.distributions import (
    average_ranks,
    binom_two_sided_half,
    normal_cdf,
    signed_rank_exact_p,
)
from assay.wording import plural

SIGNED_RANK_MIN_TIED = 20
"""Below this many differing cases, tied magnitudes switch the test to the exact sign test.

The signed-rank test has two ways to get a p-value. Its exact null
distribution assumes no ties among the |differences| (counted exactly here up
to 50 cases); judge scores are small integers, so ties are the rule. The
other way, the normal approximation with tie correction, is the textbook
choice from about 20 non-zero differences (Siegel & Castellan; Conover), and
noticeably off below that. The sign test uses only the direction of each
difference, so ties cannot hurt it and its binomial p-value is exact at any n.
"""

EXACT_SIGNED_RANK_MAX = 50
"""Without ties, the exact signed-rank distribution is used up to this many differing cases."""

_DECIMALS = 9
"""(7+8+9)/3 on one side and 8 on the other is a tie, not a win by 1e-16."""
_SCALE = 10.0 ** _DECIMALS


@dataclass(frozen=True, slots=True)
class PairedTest:
    """One paired test's result. `p_value` is two-sided."""

    name: str
    statistic: float | None
    p_value: float
    n_used: int
    """Cases that entered the test: those where A and B differ."""
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "statistic": self.statistic, "p_value": self.p_value,
                "n_used": self.n_used, "note": self.note}


def signed_rank_test(diffs: Iterable[float]) -> PairedTest:
    """Wilcoxon signed-rank on B - A, zeros dropped; the exact sign test for few tied differences."""
    d = [v for v in snap(diffs) if v != 0]
    m = len(d)
    if m == 0:
        return PairedTest("none", None, 1.0, 0, "every case scored the same on both sides")
    ranks, groups = average_ranks([abs(v) for v in d])
    r_plus = sum(rank for rank, value in zip(ranks, d) if value > 0)
    statistic = min(r_plus, m * (m + 1) / 2 - r_plus)
    has_ties = len(groups) < m
    if not has_ties and m <= EXACT_SIGNED_RANK_MAX:
        return PairedTest("Wilcoxon signed-rank (exact)", float(statistic),
                          signed_rank_exact_p(r_plus, m), m,
                          "zeros dropped (zero_method='wilcox')")
    if has_ties and m < SIGNED_RANK_MIN_TIED:
        return sign_test(d)
    return PairedTest("Wilcoxon signed-rank (normal approximation)", float(statistic),
                      _signed_rank_normal_p(r_plus, m, groups), m,
                      "zeros dropped (zero_method='wilcox'), ties corrected")


def _signed_rank_normal_p(r_plus: float, m: int, groups: list[int]) -> float:
    """Two-sided p of the signed-rank sum by the normal approximation, ties corrected, no
    continuity correction (scipy's `wilcoxon(correction=False, method="asymptotic")`)."""
    mean = m * (m + 1) / 4
    ties = sum(t ** 3 - t for t in groups)
    se = math.sqrt((m * (m + 1) * (2 * m + 1) - ties / 2) / 24)
    return 2 * normal_cdf(-abs(r_plus - mean) / se)


def sign_test(diffs: Iterable[float]) -> PairedTest:
    """Exact sign test: how many cases B improved, against a fair coin over the differing cases."""
    d = snap(diffs)
    ups = sum(1 for v in d if v > 0)
    downs = sum(1 for v in d if v < 0)
    m = ups + downs
    note = f"{plural(ups, 'case')} better with B, {downs:,} worse; zeros dropped"
    if m == 0:
        return PairedTest("exact sign test", 0.0, 1.0, 0, note)
    return PairedTest("exact sign test", float(min(ups, downs)), binom_two_sided_half(ups, m),
                      m, note)


def snap(diffs: Iterable[float]) -> list[float]:
    """Round away floating-point dust so equal per-case means tie and equal gaps rank as ties."""
    return [_snap_one(float(v)) for v in diffs]


def _snap_one(value: float) -> float:
    """`value` to 9 decimals as numpy's `round` does it: scale, round half to even, unscale."""
    scaled = value * _SCALE
    return round(scaled) / _SCALE if math.isfinite(scaled) else value

