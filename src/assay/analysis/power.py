"""Sample-size advice from the data: how precise is this comparison, and how many cases would do?

Two figures per metric: the half-width of the CI now (what "+6pp" could
really be), and roughly how many cases would detect the observed effect at
the chosen power with a two-sided test at alpha. The observed effect is
itself an estimate, so read the count as an order of magnitude, not a quote.

- Pass rates (paired proportions): Connor (1987), from the discordant rates,
  n = (z_a sqrt(psi) + z_b sqrt(psi - delta^2))^2 / delta^2, where psi is the
  share of cases passing on one side only and delta = B-only minus A-only.
- Mean scores (paired means): the normal formula on the SD of the per-case
  differences, n = ((z_a + z_b) sd / delta)^2 + z_a^2 / 2, the last term
  (Guenther, 1981) allowing for estimating the SD from the sample.

Both are normal approximations. The exact McNemar test is conservative, so
at the advised count it reaches a little less than the asked power (about
75% for 80% in simulation); add a tenth or so when it matters.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from scipy import stats

from assay.analysis.paired import PairedComparison
from assay.errors import UserError


class UndefinedEffect(ValueError):
    """The data give no effect to size a study for (zero effect, no spread, too few cases)."""


@dataclass(frozen=True, slots=True)
class SampleSizeAdvice:
    """Precision now and cases needed, for one metric of one comparison."""

    metric: Literal["pass_rate", "mean"]
    n: int
    ci_half_width: float
    """Half the CI width: in percentage points for pass_rate, in score units for mean."""
    confidence: float
    effect: float
    """The observed delta the count is sized for, in the same units."""
    power: float
    alpha: float
    cases_needed: int | None
    reason: str | None = None
    """Why cases_needed is None."""

    def summary(self) -> str:
        unit, digits = ("pp", 1) if self.metric == "pass_rate" else ("", 2)
        now = (f"{self.confidence:.0%} CI ±{self.ci_half_width:.{digits}f}{unit} "
               f"with {self.n} cases")
        if self.cases_needed is None:
            return f"{now}; no case count advised: {self.reason}"
        return (f"{now}; about {self.cases_needed} cases would detect "
                f"{self.effect:+.{digits}f}{unit} at {self.power:.0%} power (alpha {self.alpha:g})")

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "n": self.n, "ci_half_width": self.ci_half_width,
                "confidence": self.confidence, "effect": self.effect, "power": self.power,
                "alpha": self.alpha, "cases_needed": self.cases_needed, "reason": self.reason,
                "summary": self.summary()}


def advise_sample_size(comparison: PairedComparison, *, power: float = 0.8,
                       alpha: float | None = None) -> list[SampleSizeAdvice]:
    """Advice for the pass rate (when the scorer has verdicts) and for the mean, in that order."""
    alpha = comparison.alpha if alpha is None else alpha
    advice: list[SampleSizeAdvice] = []
    c = comparison
    if c.delta_pp is not None and c.ci_pp is not None:
        gain, loss = c.pass_gain or 0.0, c.pass_loss or 0.0
        needed = _attempt(lambda: cases_for_paired_proportions(
            gain, loss, alpha=alpha, power=power))
        advice.append(SampleSizeAdvice("pass_rate", c.n, c.ci_pp.half_width, c.ci_pp.confidence,
                                       c.delta_pp, power, alpha, *needed))
    needed = _attempt(lambda: cases_for_paired_means(
        c.delta_mean, c.sd_diff, alpha=alpha, power=power))
    advice.append(SampleSizeAdvice("mean", c.n, c.ci_mean.half_width, c.ci_mean.confidence,
                                   c.delta_mean, power, alpha, *needed))
    return advice


def cases_for_paired_proportions(gain: float, loss: float, *, alpha: float = 0.05,
                                 power: float = 0.8) -> int:
    """Cases for a paired pass-rate difference: `gain`/`loss` are the B-only and A-only pass shares."""
    z_a, z_b = _z(alpha, power)
    if not (0 <= gain <= 1 and 0 <= loss <= 1 and gain + loss <= 1):
        raise UserError(f"discordant shares must lie in [0, 1] and sum to at most 1: {gain}, {loss}")
    delta = gain - loss
    if _is_zero(delta):
        raise UndefinedEffect("the observed pass-rate difference is 0; there is no effect to detect")
    psi = gain + loss
    n = (z_a * math.sqrt(psi) + z_b * math.sqrt(psi - delta**2)) ** 2 / delta**2
    return math.ceil(n)


def cases_for_paired_means(delta: float, sd_diff: float | None, *, alpha: float = 0.05,
                           power: float = 0.8) -> int:
    """Cases for a paired difference of means `delta`, given the SD of per-case differences."""
    z_a, z_b = _z(alpha, power)
    if _is_zero(delta):
        raise UndefinedEffect("the observed mean difference is 0; there is no effect to detect")
    if sd_diff is None:
        raise UndefinedEffect("the spread of differences needs at least two cases")
    if _is_zero(sd_diff):
        raise UndefinedEffect(
            "every case moved by the same amount, so the spread of differences is 0 "
            "and the formula does not apply")
    n = ((z_a + z_b) * sd_diff / delta) ** 2 + z_a**2 / 2
    return math.ceil(n)


def _attempt(size: Callable[[], int]) -> tuple[int | None, str | None]:
    """The count, or None and the reason it is undefined."""
    try:
        return size(), None
    except UndefinedEffect as exc:
        return None, str(exc)


def _z(alpha: float, power: float) -> tuple[float, float]:
    if not 0 < alpha < 1:
        raise UserError(f"alpha must be between 0 and 1, got {alpha}")
    if not 0 < power < 1:
        raise UserError(f"power must be between 0 and 1, got {power}")
    return float(stats.norm.ppf(1 - alpha / 2)), float(stats.norm.ppf(power))


def _is_zero(x: float) -> bool:
    return abs(x) < 1e-12
