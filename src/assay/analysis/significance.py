"""Paired significance tests, chosen by the data: is B's difference from A more than chance?

- Pass/fail per case (0/1 on both sides): the exact McNemar test, a binomial
  test on the discordant pairs (cases one side passed and the other failed).
- Graded scores: the Wilcoxon signed-rank test on the per-case differences, or
  the exact sign test when few cases differ and their magnitudes tie.

Zeros are handled one way everywhere: a case where A and B are equal says
nothing about which is better, so it is dropped before testing (Wilcoxon's own
"wilcox" zero method, which is also what McNemar and the sign test do).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from assay.analysis.interval import is_binary

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


def paired_test(a: np.ndarray, b: np.ndarray) -> PairedTest:
    """The fitting paired test of B against A: McNemar for 0/1 data, else signed-rank or sign test."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired arrays differ in shape: {a.shape} vs {b.shape}")
    if is_binary(a) and is_binary(b):
        return mcnemar_exact(a.astype(bool), b.astype(bool))
    return signed_rank_test(b - a)


def mcnemar_exact(passed_a: np.ndarray, passed_b: np.ndarray) -> PairedTest:
    """Exact McNemar: a two-sided binomial test (p = 1/2) on the discordant pairs.

    Matches statsmodels' `mcnemar(table, exact=True)`; the statistic is the
    smaller discordant count, as there.
    """
    a_only = int(np.sum(passed_a & ~passed_b))
    b_only = int(np.sum(passed_b & ~passed_a))
    discordant = a_only + b_only
    note = f"{b_only} cases pass only with B, {a_only} only with A"
    if discordant == 0:
        return PairedTest("exact McNemar", 0.0, 1.0, 0, note + "; no discordant pairs")
    p = stats.binomtest(min(a_only, b_only), discordant, 0.5).pvalue
    return PairedTest("exact McNemar", float(min(a_only, b_only)), float(p), discordant, note)


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
    res = stats.wilcoxon(d, zero_method="wilcox", correction=False, method="asymptotic")
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

