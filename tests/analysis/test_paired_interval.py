"""Intervals for few cases: never a point, right against published values, near 95% coverage.

Regression: 4 cases that all flipped used to get "95% CI -100.0..-100.0pp"
(every bootstrap resample the same) next to a p-value of 0.12.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import confint_proportions_2indep

from assay.analysis.bootstrap import paired_bootstrap_ci
from assay.analysis.paired_interval import (
    SMALL_SAMPLE,
    difference_interval,
    newcombe_paired,
    t_interval,
)
from assay.analysis.paired import compare_paired
from assay.analysis.power import advise_sample_size
from assay.errors import UserError


def paired_table(both: int, b_only: int, a_only: int, neither: int) -> tuple[np.ndarray, ...]:
    """Per-case verdicts (A, B) laid out from the cells of a paired 2x2 table."""
    a = [True] * both + [False] * b_only + [True] * a_only + [False] * neither
    b = [True] * both + [True] * b_only + [False] * a_only + [False] * neither
    return np.array(a), np.array(b)


def flips(n: int) -> tuple[dict[str, bool], dict[str, bool]]:
    """n cases that all passed with A and all fail with B."""
    return ({f"q{i}": True for i in range(n)}, {f"q{i}": False for i in range(n)})


# --- the regression ----------------------------------------------------------------------

def test_four_cases_that_all_flipped_get_a_wide_interval_not_a_point():
    a, b = flips(4)
    result = compare_paired(a, b, kind="pass_fail")
    ci = result.ci_pp
    assert ci is not None and ci.method == "Newcombe"
    assert result.delta_pp == -100.0 and ci.low == -100.0
    assert ci.high - ci.low > 50  # four cases cannot pin a 100-point drop to the point
    assert not result.significant  # exact McNemar on 4 discordant pairs: p = 2/16
    assert "95% CI -100.0..-30.7pp (Newcombe)" in result.verdict
    pass_rate = advise_sample_size(result)[0]
    assert pass_rate.summary().startswith(f"95% CI ±{ci.half_width:.1f}pp with 4 cases")
    assert pass_rate.ci_half_width > 25


def test_four_scores_that_all_dropped_by_the_same_amount_get_a_wide_interval():
    a = {f"q{i}": 8.0 for i in range(4)}
    b = {f"q{i}": 5.0 for i in range(4)}
    result = compare_paired(a, b, kind="score", scale=(0, 10))
    ci = result.ci_mean
    assert ci.method == "zero-spread bound"
    assert ci.low < -3.0 < ci.high and ci.high - ci.low > 5
    assert -10 <= ci.low and ci.high <= 10
    assert "(zero-spread bound)" in result.verdict


# --- Newcombe's interval -----------------------------------------------------------------

@pytest.mark.parametrize(("table", "published"), [
    # Fagerland, Lydersen & Laake, Statistical Analysis of Contingency Tables (2017), ch. 8:
    # airway hyper-responsiveness before/after transplantation (Bentur et al., 2009) and
    # complete response before/after consolidation therapy (Cavo et al., 2012)
    ((1, 1, 7, 12), (-0.507, -0.026)),
    ((59, 6, 16, 80), (-0.119, -0.005)),
])
def test_newcombe_reproduces_published_paired_intervals(table, published):
    # table is (n11, n12, n21, n22) with rows the first measurement: B is rows, A columns
    n11, n12, n21, n22 = table
    a, b = paired_table(both=n11, b_only=n12, a_only=n21, neither=n22)
    ci = newcombe_paired(a, b)
    assert (round(ci.low, 3), round(ci.high, 3)) == published


def test_newcombe_without_pair_correlation_is_the_independent_hybrid_score_interval():
    # both * neither - b_only * a_only = 9 - 8 = 1 <= n/2, so phi is 0 and the paired interval
    # is the square-and-add of two Wilson intervals, as for independent samples
    a, b = paired_table(both=3, b_only=2, a_only=4, neither=3)
    ci = newcombe_paired(a, b)
    low, high = confint_proportions_2indep(int(b.sum()), b.size, int(a.sum()), a.size,
                                           method="newcomb", compare="diff")
    assert (ci.low, ci.high) == (pytest.approx(low, rel=1e-9), pytest.approx(high, rel=1e-9))


def test_newcombe_covers_about_95_percent_with_few_cases_where_the_bootstrap_does_not():
    rng = np.random.default_rng(11)
    n, sims = 12, 1000
    p_cells = [0.45, 0.25, 0.10, 0.20]  # both, B only, A only, neither: true delta +15pp
    truth = p_cells[1] - p_cells[2]
    newcombe = bootstrap = 0
    for i in range(sims):
        cells = rng.choice(4, size=n, p=p_cells)
        a, b = np.isin(cells, (0, 2)), np.isin(cells, (0, 1))
        newcombe += newcombe_paired(a, b).contains(truth)
        bootstrap += paired_bootstrap_ci(b.astype(float) - a, resamples=500, seed=i).contains(truth)
    # 1000 simulations: SD of a coverage near 0.95 is 0.007
    assert newcombe / sims >= 0.93
    assert bootstrap / sims < newcombe / sims - 0.03


# --- the t-interval ------------------------------------------------------------------------

def test_t_interval_matches_scipy_for_few_graded_cases():
    d = np.array([1.0, -0.5, 2.0, 0.5, 1.5, 3.0, -1.0])
    ci = t_interval(d, span=10.0)
    reference = stats.ttest_1samp(d, 0).confidence_interval(0.95)
    assert ci.method == "t-interval"
    assert (ci.low, ci.high) == (pytest.approx(reference.low), pytest.approx(reference.high))


def test_t_interval_is_clipped_to_what_the_scale_allows():
    ci = t_interval(np.array([0.9, -0.2]), span=1.0)  # t with 1 degree of freedom: huge
    assert (ci.low, ci.high) == (-1.0, 1.0)


def test_the_zero_spread_bound_narrows_as_cases_accumulate():
    widths = [t_interval(np.zeros(n), span=10.0) for n in (2, 10, 100, 1000)]
    assert all(ci.low == pytest.approx(-ci.high) for ci in widths)
    halves = [ci.high for ci in widths]
    assert halves == sorted(halves, reverse=True) and halves[-1] < 0.05
    # 0 of n cases differed: at most 1 - 0.025**(1/n) of all cases could, each by 10 points
    assert halves[1] == pytest.approx(10 * (1 - 0.025 ** (1 / 10)))


def test_pass_shares_over_epochs_use_the_t_interval_on_the_unit_scale():
    a = {"x": [1, 1, 0], "y": [1, 0, 0], "z": [1, 1, 1], "w": [0, 0, 1]}
    b = {"x": [1, 1, 1], "y": [1, 1, 0], "z": [1, 1, 1], "w": [0, 1, 1]}
    result = compare_paired(a, b, kind="pass_fail")
    assert result.ci_pp is not None and result.ci_pp.method == "t-interval"
    assert -100 <= result.ci_pp.low < result.delta_pp < result.ci_pp.high <= 100


# --- which interval, when ----------------------------------------------------------------

def test_the_bootstrap_takes_over_at_the_small_sample_cut_off():
    rng = np.random.default_rng(3)
    below, at = (rng.normal(0.3, 1, n) for n in (SMALL_SAMPLE - 1, SMALL_SAMPLE))
    assert difference_interval(np.zeros(below.size), below, span=10).method == "t-interval"
    assert difference_interval(np.zeros(at.size), at, span=10).method == "bootstrap"


def test_identical_differences_are_computed_at_any_number_of_cases():
    a, b = flips(200)
    result = compare_paired(a, b, kind="pass_fail")
    assert result.ci_pp is not None and result.ci_pp.method == "Newcombe"
    assert result.ci_pp.low == -100.0 and result.ci_pp.high > -100.0
    same = {f"q{i}": 7.0 for i in range(200)}
    moved = {f"q{i}": 6.0 for i in range(200)}
    ci = compare_paired(same, moved, kind="score", scale=(0, 10)).ci_mean
    assert ci.method == "zero-spread bound" and ci.low < -1.0 < ci.high


def test_identical_values_everywhere_without_a_scale_cannot_be_bounded():
    same = {f"q{i}": 7.0 for i in range(5)}
    with pytest.raises(UserError, match=r"give scale=\(min, max\)"):
        compare_paired(same, same, kind="score")


def test_the_interval_method_is_in_the_report_dict():
    a, b = flips(4)
    payload = compare_paired(a, b, kind="pass_fail").to_dict()
    assert payload["ci_pp"]["method"] == "Newcombe"
    assert payload["ci_mean"]["method"] == "Newcombe"
