"""Holm-Bonferroni: a family of comparisons keeps its false alarms under alpha."""

from __future__ import annotations

import math

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from assay.analysis.multiple import adjust_comparisons, holm, step_levels
from assay.analysis.paired import compare_paired
from assay.errors import UserError


def test_holm_hand_worked_example():
    # sorted: 0.005 x4 = 0.02; 0.01 x3 = 0.03; 0.03 x2 = 0.06; 0.04 x1 = 0.04 -> raised to 0.06
    result = holm([0.01, 0.04, 0.03, 0.005], alpha=0.05)
    assert result.adjusted == pytest.approx((0.03, 0.06, 0.06, 0.02))
    assert result.rejected == (True, False, False, True)


def test_holm_rejects_fewer_than_uncorrected_tests_would():
    p = [0.01, 0.04, 0.03, 0.005]
    assert all(v < 0.05 for v in p)
    assert sum(holm(p).rejected) == 2


@pytest.mark.parametrize("seed", range(5))
def test_holm_matches_statsmodels(seed):
    rng = np.random.default_rng(seed)
    p = np.concatenate([rng.uniform(0, 0.02, 4), rng.uniform(0, 1, 8), [0.01, 0.01]])
    reject, adjusted, _, _ = multipletests(p, alpha=0.05, method="holm")
    result = holm(list(p), alpha=0.05)
    assert result.adjusted == pytest.approx(tuple(adjusted), rel=1e-12)
    assert result.rejected == tuple(bool(r) for r in reject)


def test_adjusted_p_values_are_capped_at_one_and_an_empty_family_is_empty():
    assert holm([0.6, 0.9, 0.7]).adjusted == (1.0, 1.0, 1.0)
    assert holm([]).adjusted == ()
    assert adjust_comparisons([]) == []


def test_a_family_of_comparisons_carries_holm_adjusted_verdicts():
    def pair(a_only: int, b_only: int):
        a = {f"q{i}": i < 30 + a_only for i in range(60)}
        b = {f"q{i}": i < 30 or 30 + a_only <= i < 30 + a_only + b_only for i in range(60)}
        return compare_paired(a, b, kind="pass_fail")

    family = [pair(2, 9), pair(0, 3), pair(1, 11)]  # raw p: 0.035, 0.083, 0.0039
    raw = [c.test.p_value for c in family]
    adjusted = adjust_comparisons(family)
    assert [c.p_adjusted for c in adjusted] == pytest.approx(list(holm(raw).adjusted))
    assert all(c.family_size == 3 for c in adjusted)
    assert family[0].significant and not adjusted[0].significant
    assert "(Holm, family of 3), within noise" in adjusted[0].verdict
    assert "Holm-adjusted" in adjusted[0].verdict
    assert family[0].p_adjusted is None  # the originals are untouched
    # the rejected one was decided at the first step (alpha/3), the others where Holm stopped
    assert [c.headline.level for c in adjusted] == pytest.approx([0.025, 0.025, 0.05 / 3])
    assert adjusted[2].significant and adjusted[2].headline.interval.confidence == (
        pytest.approx(1 - 0.05 / 3))
    assert "98.3% CI" in adjusted[2].verdict


def test_step_levels_follow_holm_step_by_step():
    # sorted 0.005 (step 0: a/4) 0.01 (step 1: a/3) 0.03 fails a/2: stop; 0.04 stays at a/2
    assert step_levels([0.01, 0.04, 0.03, 0.005]) == pytest.approx(
        (0.05 / 3, 0.05 / 2, 0.05 / 2, 0.05 / 4))
    assert step_levels([0.001, 0.002]) == pytest.approx((0.025, 0.05))
    assert step_levels([0.5]) == (0.05,)


@pytest.mark.parametrize("m, p", [(19, 0.05 / 19), (29, math.nextafter(0.05 / 29, 0))])
def test_a_p_value_at_its_step_s_level_is_on_the_side_of_it_holm_decided(m: int, p: float):
    """Regression: Holm compares p * m with alpha, the interval p with alpha / m, and in
    floats the two disagree near p = alpha / m: 0.05/19 was rejected by Holm and kept by its
    interval, and a float under 0.05/29 the other way, a verdict beside an interval saying otherwise."""
    family = [p] + [0.9] * (m - 1)
    [rejected, *_] = holm(family).rejected
    assert rejected == (p * m < 0.05)
    [level, *_] = step_levels(family)
    assert (p < level) == rejected
    assert level == pytest.approx(0.05 / m, rel=1e-15)


def test_tied_p_values_share_the_strictest_level_of_their_steps():
    """Regression: two scorers that agreed on every case got the same p-value and two
    intervals for one quantity (97.5% for the first tied step, 95% for the second)."""
    p = [0.0058, 0.3, 0.0058]
    assert step_levels(p) == pytest.approx((0.05 / 3, 0.05, 0.05 / 3))
    _, adjusted, _, _ = multipletests(p, alpha=0.05, method="holm")
    assert holm(p).adjusted == pytest.approx(tuple(adjusted), rel=1e-12)
    assert holm(p).adjusted[0] == holm(p).adjusted[2]
    # a tie Holm stopped at keeps the level where it stopped, like every unrejected one
    assert step_levels([0.001, 0.04, 0.04]) == pytest.approx((0.05 / 3, 0.025, 0.025))


def test_one_comparison_measured_twice_prints_one_interval():
    a = {f"q{i}": i < 20 for i in range(60)}
    b = {f"q{i}": i < 35 for i in range(60)}
    same = compare_paired(a, b, kind="pass_fail")
    other = compare_paired(a, {k: not v if k == "q0" else v for k, v in a.items()},
                           kind="pass_fail")
    first, unrelated, second = adjust_comparisons([same, other, same])
    assert first.significant and second.significant and not unrelated.significant
    assert first.headline == second.headline
    assert first.verdict == second.verdict


@pytest.mark.parametrize("seed", range(20))
def test_every_verdict_in_a_family_agrees_with_holm_and_with_its_own_interval(seed):
    rng = np.random.default_rng(seed)
    family = []
    for _ in range(int(rng.integers(2, 7))):
        n = int(rng.integers(10, 80))
        a = {f"q{i}": bool(x) for i, x in enumerate(rng.random(n) < 0.5)}
        lift = rng.uniform(0, 0.5)
        b = {k: v or bool(rng.random() < lift) for k, v in a.items()}
        family.append(compare_paired(a, b, kind="pass_fail"))
    adjusted = adjust_comparisons(family)
    rejected = holm([c.test.p_value for c in family]).rejected
    for c, holm_says in zip(adjusted, rejected):
        assert c.significant == holm_says == (not c.headline.interval.contains(0.0))
        assert ("within noise" in c.verdict) == (not holm_says)


@pytest.mark.parametrize("p", [[0.2, 1.5], [float("nan")], [-0.1]])
def test_p_values_outside_zero_one_are_refused(p):
    with pytest.raises(UserError, match="p-values must lie in"):
        holm(p)


def test_regression_a_pass_fail_comparisons_described_mean_is_held_at_its_holm_step_too():
    """results.json gave a pass/fail scorer's mean (the same share as its pass rate) at an
    unadjusted 95% with `significant: true` and advice "already significant with 12 cases",
    beside the pass rate's Holm verdict "within noise" and its advice of 26 cases."""
    def pair(a_only: int, b_only: int):
        a = {f"q{i}": [float(i < 30 + a_only)] * 2 for i in range(60)}
        b = {f"q{i}": [float(i < 30 or 30 + a_only <= i < 30 + a_only + b_only)] * 2
             for i in range(60)}
        return compare_paired(a, b, kind="pass_fail")

    family = [pair(2, 9), pair(0, 3), pair(1, 11)]
    assert family[0].mean is not None and family[0].mean.significant
    for c in adjust_comparisons(family):
        assert c.mean is not None and c.mean.level == c.headline.level
        assert c.mean.interval.confidence == c.headline.interval.confidence
    # with epochs that disagree the pass rate is tested as the mean of per-case shares, and
    # the described mean is then the same test of the same numbers: one verdict, not two
    shares = {f"q{i}": [1.0, 0.0] if i % 3 else [1.0, 1.0] for i in range(30)}
    better = {f"q{i}": [1.0, 1.0] if i % 4 == 0 else v for i, (_, v) in
              enumerate(shares.items())}
    lifted = compare_paired(shares, better, kind="pass_fail")
    noise = compare_paired(shares, {k: v[::-1] for k, v in shares.items()}, kind="pass_fail")
    for c in adjust_comparisons([lifted, noise, lifted]):
        assert c.mean is not None and c.mean.significant == c.significant
