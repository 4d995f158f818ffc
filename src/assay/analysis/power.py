"""Sample-size advice from the power of the test that was actually run, at the level it used.

Two figures per effect: the width of its interval now (what "+6pp" could
really be; a width, since a pass rate's interval is seldom centred on the
delta, and "±52pp" beside "+83pp, CI -6..+98pp" would read as 31..135),
and, for a difference not yet significant, how many cases would detect the
observed effect with the asked power. The observed effect
is itself an estimate, so read the count as an order of magnitude.

The power is that of the test the comparison ran, at the level its verdict
used (the Holm step in a family), not a normal approximation:

- McNemar (asymptotic, the test a pass-rate comparison runs): with B-only
  share g and A-only share l, the number of discordant cases m is
  Binomial(n, g + l) and, given m, the B-only count is Binomial(m, g / (g +
  l)); the power is the chance the test's p-value falls below the level,
  summed exactly over every table, not a normal approximation of it. Over
  counts that discrete the power is not monotone in n (it saws up), so the
  advice is the smallest count found above which it reached the target, and
  the power printed is the exact power at that count.
- a mean (and pass shares over epochs): the power of the checked paired t
  test (`mean_delta`) under normal differences with the observed SD. That
  test rejects only where the plain t test and the empirical likelihood
  both do, so its power is the t test's (exact, from the noncentral t) less
  the chance that the t test rejects and the likelihood keeps 0. The
  likelihood reads the whole sample, so that chance has no formula; it is
  counted over seeded normal samples (`SIMULATED_SAMPLES` of them, the same
  ones for every effect and level, so the advice is the same on every
  machine). It is small (at 20 cases and d = 0.5: 55.9% against 56.5%) and
  shrinks with n, but a printed power that ignored it would promise more
  than the test delivers. When every case moved by the same amount, the
  test is the zero-spread bound, which rejects once 2 (w / (w + |d|))^n
  < level.

A comparison that was not significant never gets advice of fewer cases than
it already has: the search starts one case above.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import Any, Literal

from assay.analysis.distributions import binom_pmf, chi2_1_ppf, t_ppf, t_test_power
from assay.analysis.effect import Effect
from assay.analysis.empirical_likelihood import statistics_at_zero
from assay.analysis.interval import Interval
from assay.analysis.mean_delta import CHECKED_T, Differences
from assay.analysis.paired import PairedComparison
from assay.analysis.pass_rate_delta import SCORE_TEST, DiscordantPairs, mcnemar_score
from assay.analysis.verdict import bound_text, level_text, shown_effect
from assay.errors import UserError
from assay.shown_numbers import fixed, percent_at, significant
from assay.wording import plural

MAX_CASES = 20_000
"""Advice stops here: past it, the effect is too small to be worth sizing a dataset for."""

_SCAN_BACK = 50
"""How many counts below the first crossing are checked for an earlier peak of the power."""


class UndefinedEffect(ValueError):
    """The data give no effect to size a study for (zero effect, or already significant)."""


@dataclass(frozen=True, slots=True)
class SampleSizeAdvice:
    """Precision now and cases needed, for one effect of one comparison."""

    metric: Literal["pass_rate", "mean"]
    n: int
    interval: Interval
    """The effect's interval, in percentage points for pass_rate, in score units for mean.
    It need not be centred on the effect (-100.0..+11.3pp for -100pp), so the summary
    gives its whole width, never `±` half of it beside an effect it is not around."""
    effect: float
    """The observed delta the count is sized for, in the same units."""
    target_power: float
    alpha: float
    """The level the test used (the Holm step in a family)."""
    test: str
    """Whose power the count comes from."""
    cases_needed: int | None
    power: float | None
    """The test's power at `cases_needed`, as its formula gives it."""
    reason: str | None = None
    """Why cases_needed is None."""
    digits: int | None = None
    """The decimals the comparison line shows its delta and bounds with, so the advice
    under it reads the same numbers (`+0.05pp`, not `+0.1pp`); None: 1 in pp, 2 for a mean."""

    @property
    def ci_half_width(self) -> float:
        return self.interval.half_width

    @property
    def confidence(self) -> float:
        return self.interval.confidence

    def summary(self) -> str:
        unit, digits = ("pp", 1) if self.metric == "pass_rate" else ("", 2)
        digits = digits if self.digits is None else self.digits
        now = (f"{level_text(self.confidence)} CI {shown_width(self.interval, digits)}{unit} "
               f"wide with {plural(self.n, 'case')}")
        if self.cases_needed is None:
            return f"{now}; no case count advised: {self.reason}"
        assert self.power is not None
        return (f"{now}; about {plural(self.cases_needed, 'case')} would detect "
                f"{fixed(self.effect, digits, signed=True)}{unit} with {power_text(self.power)} power "
                f"({self.test}, alpha {significant(self.alpha, 3)})")

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "n": self.n, "ci_half_width": self.ci_half_width,
                "confidence": self.confidence, "effect": self.effect,
                "target_power": self.target_power, "alpha": self.alpha, "test": self.test,
                "cases_needed": self.cases_needed, "power": self.power,
                "reason": self.reason, "summary": self.summary()}


def shown_width(interval: Interval, digits: int) -> str:
    """The width between the bounds as the comparison line prints them, so a reader who
    subtracts them gets this number: -55.65..+55.65 prints -55.7..+55.7, 111.4 wide."""
    low, high = (Decimal(bound_text(bound, digits)) for bound in (interval.low, interval.high))
    return fixed(high - low, digits)


def power_text(power: float) -> str:
    """`83%`; a power short of 1 that would round to `100%` reads `>99%` (a test that can
    never miss is not what a normal model of the differences promises)."""
    text = percent_at(power, 0)
    return ">99%" if text == "100%" and power < 1 else text


def advise_sample_size(comparison: PairedComparison, *,
                       power: float = 0.8) -> list[SampleSizeAdvice]:
    """Advice on the quantity the verdict is about (the pass rate when the scorer has
    verdicts, else the mean), the only one whose test was run: a pass/fail scorer's mean
    is its pass rate under another test, and advice from that test does not apply."""
    return [advise(comparison.headline, power=power, digits=shown_effect(comparison).digits)]


def advise(effect: Effect, *, power: float = 0.8, digits: int | None = None
           ) -> SampleSizeAdvice:
    """Cases the effect's own test would need, at the effect's level, to reach `power`;
    `digits`: the decimals its comparison line shows (see `SampleSizeAdvice.digits`)."""
    _check_power(power)
    evidence = effect.evidence
    needed: int | None = None
    achieved: float | None = None
    reason: str | None = None
    try:
        if effect.significant:
            raise UndefinedEffect(f"already significant with {plural(evidence.n, 'case')}")
        if _is_zero(effect.estimate):  # named as the metric is, though epochs test it as a mean
            name = "pass-rate" if effect.metric == "pass_rate" else "mean"
            raise UndefinedEffect(f"the observed {name} difference is 0; "
                                  "there is no effect to detect")
        if isinstance(evidence, DiscordantPairs):
            needed, achieved = cases_for_mcnemar(
                evidence.gain, evidence.loss, level=effect.level, power=power,
                start=evidence.n + 1)
        else:
            assert isinstance(evidence, Differences)
            needed, achieved = cases_for_mean(evidence, level=effect.level, power=power,
                                              start=evidence.n + 1)
    except UndefinedEffect as exc:
        reason = str(exc)
    return SampleSizeAdvice(
        effect.metric, evidence.n, effect.interval, effect.estimate, power, effect.level,
        _power_formula(evidence), needed, achieved, reason, digits)


def _power_formula(evidence: object) -> str:
    """Which test's power the count comes from, as the advice names it."""
    if isinstance(evidence, DiscordantPairs):
        return SCORE_TEST
    if isinstance(evidence, Differences) and evidence.zero_spread:
        return "the zero-spread bound"
    return f"{CHECKED_T}, normal differences"


# -- McNemar ---------------------------------------------------------------------------------

def mcnemar_power(n: int, gain: float, loss: float, *, level: float) -> float:
    """Power of the two-sided asymptotic McNemar test with n cases, B-only share `gain`,
    A-only `loss`, summed exactly over the tables it could see."""
    _check_shares(gain, loss)
    discordant = gain + loss
    if n < 1 or discordant == 0:
        return 0.0
    return _power_given(n, discordant, _reject_given_discordant(n, gain / discordant, level))


def _power_given(n: int, discordant: float, rejection: Sequence[float]) -> float:
    """Sum over the number of discordant cases m ~ Binomial(n, discordant)."""
    return math.fsum(binom_pmf(m, n, discordant) * rejection[m] for m in range(n + 1)
                     if rejection[m] > 0.0)


def _reject_given_discordant(top: int, share: float, level: float) -> list[float]:
    """P(McNemar rejects | m discordant) for m = 0..top, B-only share of them `share`:
    P(X <= k_m) + P(X >= m - k_m) for X ~ Binomial(m, share), k_m the critical count."""
    critical = _critical_counts(level, top)
    low_tail = _lower_tails(critical, share)
    high_tail = _lower_tails(critical, 1.0 - share)  # P(X >= m - k) = P(m - X <= k)
    return [low + high for low, high in zip(low_tail, high_tail)]


def _lower_tails(critical: Sequence[int], p: float) -> list[float]:
    """P(X_m <= k_m) for X_m ~ Binomial(m, p), m = 0..len - 1, by one pass over m:
    P(X_{m+1} <= k) = P(X_m <= k) - p P(X_m = k), and k_m grows by at most 1 per step."""
    tails = [0.0] * len(critical)
    k, tail = -1, 0.0
    for m, k_m in enumerate(critical):
        if m > 0 and k >= 0:
            tail -= p * binom_pmf(k, m - 1, p)
        while k < k_m:
            k += 1
            tail += binom_pmf(k, m, p)
        tails[m] = min(1.0, max(0.0, tail)) if k_m >= 0 else 0.0
    return tails


def _critical_counts(level: float, top: int) -> tuple[int, ...]:
    """Per number of discordant cases m (0..top), the largest rejecting count, -1 for none."""
    counts = _critical_counts_to(level, _grown(top))
    return counts[: top + 1]


def _grown(top: int) -> int:
    """`top` rounded up to a power of two (at most MAX_CASES), so one cached table serves a search."""
    return min(MAX_CASES, 1 << max(6, top).bit_length())


@lru_cache(maxsize=16)
def _critical_counts_to(level: float, top: int) -> tuple[int, ...]:
    """The largest smaller count k of m discordant cases at which `mcnemar_score(k, m - k)`
    rejects at `level`, or -1. The rejection region is |m - 2k| > z sqrt(m), so k_m is
    nondecreasing and grows by at most 1 from m to m + 1; each step asks the test itself."""
    counts = [-1]
    k = -1
    for m in range(1, top + 1):
        if k + 1 <= m - (k + 1) and mcnemar_score(k + 1, m - k - 1).p_value < level:
            k += 1
        counts.append(k)
    return tuple(counts)


def cases_for_mcnemar(gain: float, loss: float, *, level: float = 0.05, power: float = 0.8,
                      start: int = 1) -> tuple[int, float]:
    """The smallest count from `start` found at which McNemar reaches `power`, and its power."""
    _check_shares(gain, loss)
    _check_power(power)
    if _is_zero(gain - loss):
        raise UndefinedEffect("the observed pass-rate difference is 0; there is no effect to detect")

    discordant = gain + loss
    rejections: dict[int, list[float]] = {}

    def at(n: int) -> float:
        top = _grown(n)
        if top not in rejections:
            rejections[top] = _reject_given_discordant(top, gain / discordant, level)
        return _power_given(n, discordant, rejections[top])

    return _smallest(at, power, start, scan_back=_SCAN_BACK)


# -- means -----------------------------------------------------------------------------------

def t_power(n: int, delta: float, sd: float, *, level: float) -> float:
    """Power of the plain two-sided paired t test with n cases for a mean difference `delta`:
    an upper bound of `mean_test_power`, whose test rejects only where this one does."""
    if n < 2:
        return 0.0
    df = n - 1
    return t_test_power(t_ppf(1 - level / 2, df), df, delta / sd * math.sqrt(n))


def mean_test_power(n: int, delta: float, sd: float, *, level: float) -> float:
    """Power of the test a mean's comparison runs (the paired t test checked by the
    empirical likelihood) with n cases whose differences are normal with mean `delta` and
    SD `sd`: the t test's power less the share of samples the likelihood keeps it from."""
    if n < 2:
        return 0.0
    return max(0.0, t_power(n, delta, sd, level=level) - likelihood_declines(n, delta / sd, level))


SIMULATED_SAMPLES = 4000
"""Seeded normal samples per case count over which the likelihood's declines are counted;
their share is small (a few in a thousand at alpha 0.05, up to 1-2% at a Holm step of a
family of 100), so its Monte Carlo SD is 0.1-0.2 points."""
SIMULATED_VALUES = 2_000_000
"""Above 500 cases, fewer samples, so that a count holds about this many values (never
fewer than 200 samples, so up to 4 million at 20,000 cases); the declines are rarer
there: 3 in 4,000 samples at 200 cases and 80% power, 1 in 2,000 at 1,000."""


@lru_cache(maxsize=512)
def likelihood_declines(n: int, effect: float, level: float) -> float:
    """The share of seeded samples of n normal differences (mean `effect`, SD 1) in which
    the t test rejects 0 at `level` and the empirical likelihood keeps it."""
    import numpy as np

    rows = max(200, min(SIMULATED_SAMPLES, SIMULATED_VALUES // n))
    samples = np.random.default_rng(n).standard_normal((rows, n)) + effect
    t = samples.mean(axis=1) / (samples.std(axis=1, ddof=1) / math.sqrt(n))
    rejected = samples[np.abs(t) > t_ppf(1 - level / 2, n - 1)]
    kept = statistics_at_zero(rejected) <= chi2_1_ppf(level)
    return float(np.count_nonzero(kept)) / rows


def zero_spread_power(n: int, delta: float, span: float, *, level: float) -> float:
    """1 when n cases that all moved by `delta` make the zero-spread bound leave out 0, else 0."""
    return 1.0 if 2 * (span / (span + abs(delta))) ** n < level else 0.0


def cases_for_mean(evidence: Differences, *, level: float = 0.05, power: float = 0.8,
                   start: int = 2) -> tuple[int, float]:
    """The smallest count from `start` at which the mean's test reaches `power`, and its power."""
    _check_power(power)
    delta = evidence.mean
    if _is_zero(delta):
        raise UndefinedEffect("the observed mean difference is 0; there is no effect to detect")
    if evidence.zero_spread:
        def at(n: int) -> float:
            return zero_spread_power(n, delta, evidence.span, level=level)
    else:
        # the plain t test's count is a floor (its power is the higher), and quick to find
        floor, _ = _smallest(lambda n: t_power(n, delta, evidence.sd, level=level), power,
                             max(2, start), scan_back=0)

        def at(n: int) -> float:
            return mean_test_power(n, delta, evidence.sd, level=level)
        return _smallest(at, power, floor, scan_back=0)
    return _smallest(at, power, max(2, start), scan_back=0)


def _smallest(power_at: Any, target: float, start: int, *, scan_back: int) -> tuple[int, float]:
    """Gallop up from `start` (steps 1, 2, 4, ...: the count is often just above it), bisect
    for a count reaching `target` (power rises with n), then look a little lower for an
    earlier count that reached it too (the power of a test on counts saws)."""
    if start > MAX_CASES:
        raise UndefinedEffect(f"more than {MAX_CASES:,} cases would be needed")
    known: dict[int, float] = {}

    def at(n: int) -> float:
        if n not in known:
            known[n] = power_at(n)
        return known[n]

    if at(start) >= target:
        return start, at(start)
    low, high, step = start, start, 1
    while at(high) < target:
        if high >= MAX_CASES:
            raise UndefinedEffect(
                f"even {MAX_CASES:,} cases would not reach {percent_at(target, 0)} power")
        low, high, step = high, min(MAX_CASES, high + step), step * 2
    while high - low > 1:
        middle = (low + high) // 2
        if at(middle) >= target:
            high = middle
        else:
            low = middle
    best = high
    for n in range(max(start, high - scan_back), high):
        if at(n) >= target:
            best = n
            break
    return best, at(best)


def _check_shares(gain: float, loss: float) -> None:
    if not (0 <= gain <= 1 and 0 <= loss <= 1 and gain + loss <= 1 + 1e-12):
        raise UserError(f"discordant shares must lie in [0, 1] and sum to at most 1: {gain}, {loss}")


def _check_power(power: float) -> None:
    if not 0 < power < 1:
        raise UserError(f"power must be between 0 and 1, got {power}")


def _is_zero(x: float) -> bool:
    """Exactly 0: a difference of counts or of means is 0 without float dust (`mean_delta`
    rounds it away), and one of 5e-13 is printed as `+0.0000000000005`, which advice that
    called it 0 contradicted."""
    return x == 0
