"""Holm-Bonferroni correction: many comparisons at once should not find "significant" noise.

Compare five scorers across three conditions and, at alpha 0.05, one of the
fifteen p-values will likely fall under 0.05 by luck alone. Holm's step-down
method keeps the chance of any false alarm in the family under alpha, and is
uniformly more powerful than plain Bonferroni.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from assay.analysis.paired import PairedComparison
from assay.errors import UserError


@dataclass(frozen=True, slots=True)
class HolmResult:
    """Adjusted p-values and rejections, in the order the p-values were given."""

    p_values: tuple[float, ...]
    adjusted: tuple[float, ...]
    rejected: tuple[bool, ...]
    alpha: float

    def to_dict(self) -> dict[str, Any]:
        return {"p_values": list(self.p_values), "adjusted": list(self.adjusted),
                "rejected": list(self.rejected), "alpha": self.alpha}


def holm(p_values: Sequence[float], *, alpha: float = 0.05) -> HolmResult:
    """Holm's step-down adjustment.

    Sort the m p-values ascending; the k-th smallest (k from 0) is multiplied
    by m - k, capped at 1, and each adjusted value is at least the one before
    it, so the order of evidence is kept. A hypothesis is rejected when its
    adjusted p-value is below alpha.
    """
    if not 0 < alpha < 1:
        raise UserError(f"alpha must be between 0 and 1, got {alpha}")
    p = np.asarray(p_values, dtype=float)
    bad = [v for v in p_values if not (math.isfinite(v) and 0 <= v <= 1)]
    if bad:
        raise UserError(f"p-values must lie in [0, 1]; got {bad[:3]}")
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, p[order] * (m - np.arange(m)))
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(scaled) if m else scaled
    return HolmResult(
        p_values=tuple(float(v) for v in p),
        adjusted=tuple(float(v) for v in adjusted),
        rejected=tuple(bool(v < alpha) for v in adjusted),
        alpha=alpha,
    )


def adjust_comparisons(comparisons: Sequence[PairedComparison]) -> list[PairedComparison]:
    """The same comparisons with Holm-adjusted headline p-values, treated as one family.

    Each comparison keeps its own alpha for the verdict; the family must agree on it,
    since a family-wise error rate only means something at one level.
    """
    if not comparisons:
        return []
    alphas = {c.alpha for c in comparisons}
    if len(alphas) > 1:
        raise UserError(f"comparisons in one family must share alpha; got {sorted(alphas)}")
    result = holm([c.test.p_value for c in comparisons], alpha=alphas.pop())
    return [
        dataclasses.replace(c, p_adjusted=adjusted, family_size=len(comparisons))
        for c, adjusted in zip(comparisons, result.adjusted)
    ]
