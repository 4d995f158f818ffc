"""A condition's own intervals: Wilson for a pass rate, Student's t for a mean.

Each agrees with statsmodels or scipy to rounding, and covers the truth about
as often as it says: the Wilson interval's coverage is summed exactly over
every count a binomial can give, the t interval's is simulated, seeded.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from assay.analysis.interval import (
    ZERO_SPREAD,
    shares_cap,
    t_interval,
    wilson,
    wilson_of_shares,
)


@pytest.mark.parametrize("n", [1, 2, 7, 20, 100, 1000])
def test_wilson_is_statsmodels_wilson_interval(n: int) -> None:
    for passed in range(n + 1):
        low, high = proportion_confint(passed, n, alpha=0.05, method="wilson")
        interval = wilson(passed, n)
        assert interval.low == pytest.approx(low, abs=1e-12)
        assert interval.high == pytest.approx(high, abs=1e-12)


@pytest.mark.parametrize("n", [2, 5, 30, 1001, 1002, 5000])
def test_the_t_interval_is_scipys_at_every_size(n: int) -> None:
    """Regression: above 1,000 degrees of freedom the normal's 1.96 stood in for t's quantile, and the
    interval of 1,002 judge scores was 0.12% narrower than scipy's."""
    values = np.random.default_rng(n).normal(6.0, 2.0, n)
    low, high = stats.t.interval(0.95, n - 1, loc=values.mean(), scale=stats.sem(values))
    interval = t_interval(list(values))
    assert interval is not None
    assert interval.low == pytest.approx(low, rel=1e-12)
    assert interval.high == pytest.approx(high, rel=1e-12)


@pytest.mark.parametrize("n", [20, 30, 100])
def test_wilson_covers_a_pass_rate_about_95_percent_of_the_time(n: int) -> None:
    """Exact coverage over every count, at pass rates from 5% to 95%: it swings with p
    (the lattice of counts), never below 92%, and averages 95% within a point."""
    rates = np.linspace(0.05, 0.95, 91)
    coverage = []
    for p in rates:
        counts = np.arange(n + 1)
        chance = stats.binom.pmf(counts, n, p)
        coverage.append(sum(c for k, c in zip(counts, chance) if wilson(int(k), n).contains(p)))
    assert min(coverage) >= 0.92
    assert np.mean(coverage) == pytest.approx(0.95, abs=0.01)


@pytest.mark.parametrize("n", [20, 30, 100])
def test_the_t_interval_of_judge_scores_covers_the_mean_about_95_percent_of_the_time(
        n: int) -> None:
    """4,000 seeded runs of whole-point scores on 0..10 (Monte Carlo SD 0.34pp); clipping
    to the scale never costs coverage, since the true mean lies on the scale."""
    rng = np.random.default_rng(n)
    points = np.arange(11)
    weights = np.array([1, 1, 2, 3, 5, 8, 12, 16, 20, 18, 14], dtype=float)
    weights /= weights.sum()
    truth = float(points @ weights)
    covered = 0
    for _ in range(4000):
        interval = t_interval(list(rng.choice(points, size=n, p=weights).astype(float)),
                              scale=(0.0, 10.0))
        covered += interval is not None and interval.contains(truth)
    assert 0.93 <= covered / 4000 <= 0.97


def test_equal_values_get_a_bound_with_a_width_not_a_certainty() -> None:
    """Every case scored 5 of 10: the t interval read '5.00 [5.00–5.00]', a certainty 15
    cases cannot give. The bound lets as many cases differ as 0 of 15 seen allows (21.8%,
    the exact binomial bound), each as far as the scale's end."""
    interval = t_interval([5.0] * 15, (0.0, 10.0))
    assert interval is not None and interval.method == ZERO_SPREAD
    share = 1 - 0.025 ** (1 / 15)
    assert (interval.low, interval.high) == pytest.approx((5 - 5 * share, 5 + 5 * share))
    top = t_interval([10.0] * 15, (0.0, 10.0))
    assert top is not None and top.high == 10.0 and top.low == pytest.approx(10 - 10 * share)
    assert t_interval([5.0] * 15) is None  # no scale: nothing bounds how far a case could be


def test_a_zero_spread_bound_holds_the_true_mean_at_least_95_percent_of_the_time() -> None:
    """Scores of 10 with a rare 0: a sample of n tens gets the bound; over seeded samples
    the bound (or the t interval, when a 0 was drawn) holds the true mean 95% or more."""
    rng = np.random.default_rng(7)
    for rare, n in ((0.02, 20), (0.05, 30)):
        truth = 10 * (1 - rare)
        held = 0
        for _ in range(4000):
            values = np.where(rng.random(n) < rare, 0.0, 10.0)
            interval = t_interval(values.tolist(), (0.0, 10.0))
            assert interval is not None
            held += interval.contains(truth)
        assert held / 4000 >= 0.95


def _shares_coverage(case_rates: Callable[[int], np.ndarray], truth: float,
                     epochs: np.ndarray, runs: int, rng: np.random.Generator) -> float:
    """Share of `runs` seeded runs whose `wilson_of_shares` holds `truth`: each case passes
    each of its epochs at its own rate, drawn by `case_rates`."""
    held = 0
    for _ in range(runs):
        shares = rng.binomial(epochs, case_rates(len(epochs))) / epochs
        held += wilson_of_shares(shares.tolist(), epochs.tolist()).contains(truth)
    return held / runs


@pytest.mark.parametrize(("cases", "before"), [(3, 0.846), (5, 0.893), (10, 0.926)])
def test_few_cases_of_many_epochs_get_a_pass_rate_interval_that_covers_95_percent(
        cases: int, before: float) -> None:
    """Regression: the spread of the shares rests on cases - 1 degrees of freedom, yet the
    interval took the normal's 1.96; cases from Beta(2, 2) with 20 epochs were covered
    `before` of the time. With Student's t: 98.5%, 95.5%, 95.1% (3,000 runs, SD 0.4pp)."""
    rng = np.random.default_rng(cases)
    coverage = _shares_coverage(lambda n: rng.beta(2, 2, n), 0.5, np.full(cases, 20), 3000,
                                rng)
    assert 0.94 <= coverage <= 0.99, coverage


def test_two_cases_with_equal_shares_are_not_read_as_every_verdict_independent() -> None:
    """Regression: two cases each passing 10 of 20 epochs read 35-65%, as if 40 coins had
    been tossed; the two cases say little of the cases not run."""
    interval = wilson_of_shares([0.5, 0.5], [20, 20])
    assert interval.low < 0.1 and interval.high > 0.9


@pytest.mark.parametrize(("cases", "before"), [(10, 0.813), (20, 0.873), (40, 0.927)])
def test_cases_of_unequal_epochs_get_a_pass_rate_interval_that_covers_95_percent(
        cases: int, before: float) -> None:
    """Regression: half the cases judged on 1 epoch (the others errored) and half on 20, at
    a pass rate of 80%: capped at every verdict, the interval covered `before` of the time;
    capped at cases^2 / sum(1 / epochs), 99.1%, 98.5%, 96.9% (3,000 runs)."""
    rng = np.random.default_rng(cases)
    epochs = np.where(np.arange(cases) % 2 == 0, 1, 20)
    coverage = _shares_coverage(lambda n: np.full(n, 0.8), 0.8, epochs, 3000, rng)
    assert 0.95 <= coverage <= 0.995, coverage


def test_with_equal_epochs_the_cap_is_every_verdict() -> None:
    assert shares_cap([3] * 30) == pytest.approx(90, rel=1e-15)
    assert shares_cap([1, 20]) == pytest.approx(4 / 1.05)
