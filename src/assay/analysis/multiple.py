"""Holm-Bonferroni correction: many comparisons at once should not find "significant" noise.

Compare five scorers across three conditions and, at alpha 0.05, one of the
fifteen p-values will likely fall under 0.05 by luck alone. Holm's step-down
method keeps the chance of any false alarm in the family under alpha, and is
uniformly more powerful than plain Bonferroni.

Holm tests step by step: the smallest p-value against alpha/m, the next
against alpha/(m-1), and so on, stopping at the first that fails. A verdict
must agree with the interval printed beside it, so each comparison's
interval is set at the level of the step at which Holm tested it:

- a hypothesis Holm rejected at step j (from 0) gets the 1 - alpha/(m-j)
  interval, which leaves out 0 because its p-value passed that step;
- a hypothesis Holm did not reject gets the interval of the step where Holm
  stopped, 1 - alpha/(m-k) with k the number rejected: its p-value is at
  least the one that failed there, so that interval holds 0.

Equal p-values are one quantity measured twice (two scorers that agree on
every case): Holm always decides them alike, and they get the level of the
first of their steps, the strictest, so they print one interval, not two.

So "significant" is exactly "Holm rejects", and exactly "the printed
interval leaves out 0". The level of each interval is printed with it. They
are not simultaneous intervals for the whole family (the intervals that are,
for Holm, say little more than the sign of a rejected difference); each is
the interval of the one test that decided its line.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

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
    p = [float(v) for v in p_values]
    bad = [v for v in p if not (math.isfinite(v) and 0 <= v <= 1)]
    if bad:
        raise UserError(f"p-values must lie in [0, 1]; got {bad[:3]}")
    m = len(p)
    adjusted = [0.0] * m
    running = 0.0
    for step, index in enumerate(_ascending(p)):
        running = max(running, min(1.0, p[index] * (m - step)))
        adjusted[index] = running
    return HolmResult(
        p_values=tuple(p),
        adjusted=tuple(adjusted),
        rejected=tuple(bool(v < alpha) for v in adjusted),
        alpha=alpha,
    )


def step_levels(p_values: Sequence[float], *, alpha: float = 0.05) -> tuple[float, ...]:
    """The alpha of the Holm step each hypothesis was decided at (see the module notes)."""
    p = [float(v) for v in p_values]
    m = len(p)
    order = _ascending(p)
    rejected = 0
    while rejected < m and p[order[rejected]] * (m - rejected) < alpha:  # as in `holm`
        rejected += 1
    levels = [alpha / (m - rejected) if rejected < m else alpha] * m
    first = 0  # the first step of the run of equal p-values the current step belongs to
    for step in range(rejected):
        if p[order[step]] != p[order[first]]:
            first = step
        levels[order[step]] = alpha / (m - first)
    return _decided(p, order, rejected, levels)


def _decided(p: list[float], order: list[int], rejected: int,
             levels: list[float]) -> tuple[float, ...]:
    """Each level nudged to the side of its p-value that Holm decided. Holm compares
    p * (m - k) with alpha, the interval p with alpha / (m - k), and in floats the two can
    disagree (p = 0.05/19 as a float is rejected by the first and kept by the second), which
    would print "significant" beside an interval holding 0. The nudge is a float's last
    digit, so no printed level changes."""
    decided = list(levels)
    for step, index in enumerate(order):
        if step < rejected and not p[index] < decided[index]:
            decided[index] = math.nextafter(p[index], math.inf)
        elif step >= rejected and p[index] < decided[index]:
            decided[index] = p[index]
    return tuple(decided)


def _ascending(p: Sequence[float]) -> list[int]:
    """Indices of `p` from the smallest value up; ties keep their order (a stable sort)."""
    return sorted(range(len(p)), key=p.__getitem__)


def adjust_comparisons(comparisons: Sequence[PairedComparison]) -> list[PairedComparison]:
    """The same comparisons as one Holm family: adjusted p-values, and each headline
    interval set at the level of its Holm step, so verdict and interval agree.

    The family must share one alpha, since a family-wise error rate only means
    something at one level.
    """
    if not comparisons:
        return []
    alphas = {c.alpha for c in comparisons}
    if len(alphas) > 1:
        raise UserError(f"comparisons in one family must share alpha; got {sorted(alphas)}")
    alpha = alphas.pop()
    raw = [c.test.p_value for c in comparisons]
    result = holm(raw, alpha=alpha)
    return [_at_step(c, adjusted, level, len(comparisons))
            for c, adjusted, level in zip(comparisons, result.adjusted,
                                          step_levels(raw, alpha=alpha))]


def _at_step(c: PairedComparison, adjusted: float, level: float,
             family: int) -> PairedComparison:
    headline = c.headline.at(level)
    if c.kind == "pass_fail":
        # The mean is only described beside a pass rate's verdict; held at the same step, it
        # never reads significant (nor gets "already significant" advice) where the verdict,
        # on what is often the very same share, says within noise.
        mean = c.mean.at(level) if c.mean is not None else None
        return dataclasses.replace(c, pass_rate=headline, mean=mean, p_adjusted=adjusted,
                                   family_size=family)
    return dataclasses.replace(c, mean=headline, p_adjusted=adjusted, family_size=family)
