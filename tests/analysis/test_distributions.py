"""The distributions computed directly agree with scipy's to about 1e-10 over a wide grid."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats

from assay.analysis import distributions as d

PROBABILITIES = [1e-300, 1e-20, 1e-8, 1e-4, 0.001, 0.0125, 0.025, 0.05, 0.3, 0.5, 0.7, 0.95,
                 0.975, 0.999, 1 - 1e-9]
DEGREES = [1, 2, 3, 5, 10, 29, 100, 999, 5_000, 100_000]


def test_normal_quantile_is_scipys_to_the_last_digits():
    for p in PROBABILITIES:
        assert d.normal_ppf(p) == pytest.approx(float(special.ndtri(p)), rel=1e-14, abs=1e-15)
    assert d.normal_ppf(0.0) == -math.inf and d.normal_ppf(1.0) == math.inf


@pytest.mark.parametrize("df", DEGREES)
def test_student_t_cdf_and_quantile_match_scipy(df):
    for x in [-60.0, -10.0, -3.0, -1.5, -0.1, 0.0, 0.2, 1.0, 2.5, 7.0, 40.0]:
        assert d.t_cdf(x, df) == pytest.approx(float(special.stdtr(df, x)), rel=1e-10)
    for p in PROBABILITIES[2:-1]:
        assert d.t_ppf(p, df) == pytest.approx(float(special.stdtrit(df, p)), rel=1e-10,
                                               abs=1e-14)


@pytest.mark.parametrize("n", [1, 2, 5, 10, 31, 100, 1_000, 20_000])
def test_binomial_tails_and_masses_match_scipy(n):
    for k in sorted({0, 1, n // 4, n // 2 - 1, n // 2, n - 2, n - 1} & set(range(n))):
        for p in [0.01, 0.3, 0.5, 0.77]:
            assert d.binom_cdf(k, n, p) == pytest.approx(float(special.bdtr(k, n, p)), rel=1e-9)
            assert d.binom_sf(k, n, p) == pytest.approx(float(special.bdtrc(k, n, p)), rel=1e-9)
            assert d.binom_pmf(k, n, p) == pytest.approx(float(stats.binom.pmf(k, n, p)),
                                                         rel=1e-9)


def test_the_fair_coin_p_value_is_scipys_binomtest():
    for n in [1, 2, 7, 20, 51, 300]:
        for k in range(0, n + 1, max(1, n // 9)):
            assert d.binom_two_sided_half(k, n) == pytest.approx(
                stats.binomtest(k, n, 0.5).pvalue, rel=1e-10)


def test_exact_signed_rank_p_values_match_scipy_without_ties():
    rng = np.random.default_rng(3)
    for n in [1, 4, 9, 20, 50]:
        for _ in range(5):
            diffs = rng.permutation(np.arange(1, n + 1)) * rng.choice([-1, 1], n)
            r_plus = float(np.sum(np.arange(1, n + 1)[np.argsort(np.argsort(np.abs(diffs)))]
                                  * (diffs > 0)))
            expected = stats.wilcoxon(diffs, method="exact").pvalue
            assert d.signed_rank_exact_p(r_plus, n) == pytest.approx(expected, rel=1e-12)


def test_average_ranks_share_a_tie_and_count_its_size():
    ranks, groups = d.average_ranks([3.0, 1.0, 3.0, 2.0, 3.0])
    assert ranks == [4.0, 1.0, 4.0, 2.0, 4.0]
    assert sorted(groups) == [1, 1, 3]


@pytest.mark.parametrize("df", [1, 2, 4, 9, 30, 200, 5_000, 19_999])
def test_t_test_power_is_the_noncentral_t_of_scipy(df):
    for shift in [0.0, 0.1, 1.0, 2.0, 3.0, 10.0, 40.0, 100.0]:
        for level in [0.05, 0.0167, 0.01]:
            critical = float(stats.t.ppf(1 - level / 2, df))
            lower = float(stats.nct.cdf(-critical, df, shift))
            if math.isnan(lower):  # scipy gives up far out in the tail it adds, below 1e-15
                assert shift >= 10
                lower = 0.0
            expected = float(stats.nct.sf(critical, df, shift)) + lower
            assert d.t_test_power(critical, df, shift) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("df", [2, 4, 9, 30, 200, 5_000])
def test_t_outside_uneven_bounds_is_the_noncentral_t_of_scipy(df):
    for shift in [0.0, 0.5, 2.0, 3.0, -2.5]:
        for lower, upper in [(-1.5, 2.4), (-3.1, 1.9), (-2.0, 2.0), (-0.7, 4.0)]:
            expected = float(stats.nct.cdf(lower, df, shift)) + float(
                stats.nct.sf(upper, df, shift))
            assert d.t_outside(lower, upper, df, shift) == pytest.approx(expected, abs=1e-10)


def test_the_chi_square_tail_and_quantile_are_scipys():
    for x in (0.0, 0.5, 3.841458820694124, 12.0, 80.0):
        assert d.chi2_1_sf(x) == pytest.approx(stats.chi2.sf(x, 1), rel=1e-12)
    for level in (0.05, 0.0125, 1e-6):
        assert d.chi2_1_ppf(level) == pytest.approx(stats.chi2.ppf(1 - level, 1), rel=1e-10)
