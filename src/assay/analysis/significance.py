"""The result type of a paired test, and the test of shift shown beside a mean's verdict.

The verdict on a mean comes from a test of the mean (`mean_delta`), on a
pass rate from exact McNemar (`pass_rate_delta`). The Wilcoxon signed-rank
test answers another question: do B's scores tend to sit above A's (is the
distribution of differences symmetric about 0)? With skewed differences a
zero mean and a clear shift go together, so its p-value is reported beside
the mean's, named as a test of shift, and never decides a verdict. It is the
exact sign test when few cases differ and their magnitudes tie.

Zeros are dropped before testing (Wilcoxon's own "wilcox" zero method): a
case where A and B are equal says nothing about which tends to be higher.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

SIGNED_RANK_MIN_TIED = 20
"""Below this many differing cases, tied magnitudes switch the test to the exact sign test.

The signed-rank test has two ways to get a p-value. Its exact null
distribution assumes no ties among the |differences|, and scipy tabulates it
up to 50 cases; judge scores are small integers, so ties are the rule. The
other way, the normal approximation with tie correction, is the textbook
choice from about 20 non-zero differences (Siegel & Castellan; Conover), and
noticeably off below that. The sign test uses only the direction of each
difference, so ties cannot hurt it and its binomial p-value is exact at any n.
"""

EXACT_SIGNED_RANK_MAX = 50
"""Without ties, scipy's exact signed-rank distribution is used up to this many differing cases."""

_DECIMALS = 9
"""(7+8+9)/3 on one side and 8 on the other is a tie, not a win by 1e-16."""


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


def signed_rank_test(diffs: np.ndarray) -> PairedTest:
    """Wilcoxon signed-rank on B - A, zeros dropped; the exact sign test for few tied differences."""
    d = snap(diffs)
    d = d[d != 0]
    m = int(d.size)
    if m == 0:
        return PairedTest("none", None, 1.0, 0, "every case scored the same on both sides")
    has_ties = np.unique(np.abs(d)).size < m
    if not has_ties and m <= EXACT_SIGNED_RANK_MAX:
        res = stats.wilcoxon(d, zero_method="wilcox", method="exact")
        return PairedTest("Wilcoxon signed-rank (exact)", float(res.statistic),
                          float(res.pvalue), m, "zeros dropped (zero_method='wilcox')")
    if has_ties and m < SIGNED_RANK_MIN_TIED:
        return sign_test(d)
    res = stats.wilcoxon(d, zero_method="wilcox", correction=False, method="approx")
    return PairedTest("Wilcoxon signed-rank (normal approximation)", float(res.statistic),
                      float(res.pvalue), m, "zeros dropped (zero_method='wilcox'), ties corrected")


def sign_test(diffs: np.ndarray) -> PairedTest:
    """Exact sign test: how many cases B improved, against a fair coin over the differing cases."""
    d = snap(diffs)
    ups = int(np.sum(d > 0))
    downs = int(np.sum(d < 0))
    m = ups + downs
    note = f"{ups} cases better with B, {downs} worse; zeros dropped"
    if m == 0:
        return PairedTest("exact sign test", 0.0, 1.0, 0, note)
    p = stats.binomtest(ups, m, 0.5).pvalue
    return PairedTest("exact sign test", float(min(ups, downs)), float(p), m, note)


def snap(diffs: np.ndarray) -> np.ndarray:
    """Round away floating-point dust so equal per-case means tie and equal gaps rank as ties."""
    return np.round(np.asarray(diffs, dtype=float), _DECIMALS)

