"""Mean deltas: a test of the mean (paired t, checked by the empirical likelihood) and the
interval that inverts it."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize, stats

from assay.analysis.effect import measure
from assay.analysis.mean_delta import CHECKED_T, ZERO_SPREAD, Differences
from assay.analysis.paired import compare_paired
from assay.analysis.verdict import shown_effect
from tests.analysis.test_empirical_likelihood import owen_statistic


def test_symmetric_differences_get_the_paired_t_test_and_its_interval():
    """Where the t test is the more cautious of the two on both sides, the line is exactly
    scipy's paired t test and t-interval."""
    d = np.array([-2.0, -1.0, 0.0, 1.0, 2.0, 3.0, -3.0, 0.5, -0.5, 4.0, -4.0]) + 0.4
    b = d + 5.0
    effect = measure("mean", Differences.of(b - 5.0, 10.0), 0.05)
    reference = stats.ttest_rel(b, np.full_like(b, 5.0))
    ci = reference.confidence_interval(0.95)
    assert effect.test.p_value == pytest.approx(reference.pvalue, rel=1e-9)
    assert (effect.interval.low, effect.interval.high) == pytest.approx((ci.low, ci.high))


def test_the_interval_is_the_set_of_means_its_test_does_not_reject():
    d = np.random.default_rng(4).choice([-3.0, 0.0, 1.0], size=25, p=[0.2, 0.2, 0.6])
    evidence = Differences.of(d, 10.0)
    effect = measure("mean", evidence, 0.05)
    assert effect.interval.method == CHECKED_T

    def p_at(mu: float) -> float:
        return measure("mean", Differences.of(d - mu, 10.0), 0.05).test.p_value

    for bound in (effect.interval.low, effect.interval.high):
        assert p_at(bound) == pytest.approx(0.05, abs=1e-6)
    assert p_at(d.mean()) > 0.05


def test_with_skew_the_interval_leans_away_from_the_long_tail():
    d = np.random.default_rng(1).gamma(2.0, 1.0, 30) - 2.0  # long right tail
    interval = measure("mean", Differences.of(d, 10.0), 0.05).interval
    assert interval.high - d.mean() > d.mean() - interval.low


@pytest.mark.parametrize("level", [0.05, 0.025, 0.0125])
def test_verdict_and_interval_agree_at_every_level(level):
    rng = np.random.default_rng(11)
    for _ in range(300):
        d = rng.choice([-4.0, -1.0, 0.0, 1.0, 2.0], size=int(rng.integers(3, 40)))
        effect = measure("mean", Differences.of(d, 10.0), level)
        assert effect.significant == (effect.test.p_value < level)


def test_every_case_moving_alike_gets_the_zero_spread_bound_and_its_p_value():
    effect = measure("mean", Differences.of(np.full(4, -1.0), 10.0), 0.05)
    assert effect.test.name == effect.interval.method == ZERO_SPREAD
    assert effect.test.p_value == min(1.0, 2 * (10 / 11) ** 4) == 1.0
    assert measure("mean", Differences.of(np.full(12, -1.0), 10.0), 0.05).test.p_value == (
        pytest.approx(2 * (10 / 11) ** 12))
    assert effect.interval.low < -1 < effect.interval.high
    assert not effect.significant  # 4 cases cannot show it
    many = measure("mean", Differences.of(np.full(80, -1.0), 10.0), 0.05)
    assert many.significant and many.test.p_value < 0.05


def test_the_zero_spread_p_value_is_where_its_bound_reaches_zero():
    d = np.full(30, 0.5)
    p = measure("mean", Differences.of(d, 10.0), 0.05).test.p_value
    at_p = measure("mean", Differences.of(d, 10.0), p).interval
    assert at_p.low == pytest.approx(0.0, abs=1e-9)


def test_the_interval_never_leaves_the_scale():
    d = np.array([10.0, 10.0, 9.0])
    interval = measure("mean", Differences.of(d, 10.0), 0.05).interval
    assert -10 <= interval.low and interval.high <= 10


def test_the_interval_is_every_mean_either_the_t_test_or_the_likelihood_keeps():
    """With a long right tail, the likelihood keeps means further right than the t test,
    and the t test keeps some further left: the interval is the union."""
    d = np.random.default_rng(2).gamma(1.5, 1.0, 20)
    effect = measure("mean", Differences.of(d, 20.0), 0.05)
    t_interval = stats.ttest_1samp(d, 0.0).confidence_interval(0.95)
    critical = stats.chi2.ppf(0.95, 1)
    likelihood_low = optimize.brentq(lambda mu: owen_statistic(d, mu) - critical,
                                     d.min() + 1e-6, d.mean())
    likelihood_high = optimize.brentq(lambda mu: owen_statistic(d, mu) - critical,
                                      d.mean(), d.max() - 1e-6)
    assert likelihood_low > t_interval.low and likelihood_high > t_interval.high  # leans right
    assert (effect.interval.low, effect.interval.high) == pytest.approx(
        (t_interval.low, likelihood_high), rel=1e-9)


def test_the_p_value_is_the_larger_of_the_t_tests_and_the_likelihoods():
    rng = np.random.default_rng(3)
    for d in (rng.gamma(2.0, 1.0, 25) - 1.4, rng.gamma(2.0, 1.0, 25) - 2.6,
              rng.standard_t(3, 30) + 0.4):
        test = measure("mean", Differences.of(d, 20.0), 0.05).test
        t = stats.ttest_1samp(d, 0.0).pvalue
        likelihood = stats.chi2.sf(owen_statistic(d, 0.0), 1)
        assert test.p_value == pytest.approx(max(t, likelihood), rel=1e-7)


def test_differences_that_cancel_have_a_mean_difference_of_exactly_zero():
    """Regression: three cases scored 0, 0, 0.3 and then 0.1, 0.2, 0 (both means 0.1) moved
    by +0.1, +0.2 and -0.3, whose float sum is 2.8e-17. The line read `0.10000000 →
    0.10000000, +0.00000000, 95% CI -1.00000000..+0.65724106`, the headline "not clearly
    better", and the advice under it "the observed mean difference is 0"."""
    evidence = Differences.of([0.1, 0.2, -0.3], 1.0)
    assert evidence.mean == 0.0
    assert evidence.test().p_value == 1.0
    c = compare_paired({"c1": 0.0, "c2": 0.0, "c3": 0.3}, {"c1": 0.1, "c2": 0.2, "c3": 0.0},
                       kind="score", scale=(0, 1))
    shown = shown_effect(c)
    assert (shown.before, shown.after, shown.delta, shown.interval) == (
        "0.100", "0.100", "+0.000", "-0.657..+0.657")
    assert c.delta_mean == 0.0 and c.reading_delta_pp == 0.0
    # a real difference keeps its value to the last bit
    assert Differences.of([0.1, 0.2, 0.3], 1.0).mean == pytest.approx(0.2, rel=1e-15)


@pytest.mark.parametrize("moved, n", [(0.1, 3), (0.7, 3), (-0.338, 10), (0.35, 6)])
def test_cases_that_all_moved_by_one_amount_have_that_mean_difference(moved: float,
                                                                      n: int) -> None:
    """Ten cases that each moved by -0.338 had a mean difference of -0.33799999999999997
    (in results.json), the float dust of dividing their sum by 10, and three by 0.1 one of
    0.09999999999999999."""
    assert Differences.of([moved] * n, 1.0).mean == moved


def test_two_close_p_values_are_told_apart():
    """Regression: 'p is the larger of the t test's (0.187) and the empirical likelihood's
    (0.187)', for 0.18659 and 0.18694."""
    d = [-5.0] * 2 + [-2.5] + [-1.25] * 9 + [0.0] * 10 + [1.25] * 8 + [2.5] * 6 + [3.75] * 2 \
        + [5.0] * 2
    note = Differences.of(d, 10.0).test().note
    assert note == "p is the empirical likelihood's, the larger; the t test's is 0.1866"


def test_the_note_names_which_test_gave_p_and_never_prints_p_across_its_level():
    """Regression: with the likelihood's p at 0.049985 the line read `p=0.04999`,
    significant, and the note under it `p is the larger of the t test's (0.0223) and the
    empirical likelihood's (0.05)`, three digits that put p on the other side of 0.05. The
    note now names whose p-value p is, and gives the other's, below it in the digits shown."""
    gains = np.array([-3.0, 0, 1, 1, 1, 0, 1, 1, -3, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1])
    test = Differences.of(gains + 0.28492, 10.0).test()
    assert 0.04998 < test.p_value < 0.05
    assert test.note == "p is the empirical likelihood's, the larger; the t test's is 0.0223"
    rng = np.random.default_rng(6)
    for d in (rng.gamma(2.0, 1.0, 25) - 2.0, rng.standard_t(3, 30) + 0.5):
        test = Differences.of(d, 10.0).test()
        both = (stats.ttest_1samp(d, 0.0).pvalue, stats.chi2.sf(owen_statistic(d, 0.0), 1))
        other = float(test.note.rsplit(" is ", 1)[1])
        assert other == pytest.approx(min(both), rel=1e-2) and other < test.p_value
