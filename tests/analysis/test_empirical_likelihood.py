"""Owen's empirical likelihood for a mean, checked against the definition solved by scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize, stats

from assay.analysis import empirical_likelihood
from assay.analysis.distributions import chi2_1_ppf
from assay.analysis.empirical_likelihood import MeanLikelihood, statistics_at_zero


def owen_statistic(d: np.ndarray, mu: float) -> float:
    """-2 log R(mu), written out from Owen (1988) with scipy's root finder."""
    z = d - mu
    inside = 1 - 1e-12  # every 1 + lam z stays positive
    lam = optimize.brentq(lambda lam: np.sum(z / (1 + lam * z)), -inside / z.max(),
                          -inside / z.min(), xtol=1e-15)
    return float(2 * np.sum(np.log1p(lam * z)))


def test_the_likelihood_is_owens_and_its_interval_inverts_it():
    d = np.random.default_rng(5).gamma(2.0, 1.0, 25) - 1.5
    likelihood = MeanLikelihood.of(d)
    for mu in (0.0, 0.3, d.mean() - 0.4, 1.2):
        assert likelihood.statistic(mu) == pytest.approx(owen_statistic(d, mu), rel=1e-9)
        assert likelihood.p_value(mu) == pytest.approx(
            stats.chi2.sf(owen_statistic(d, mu), 1), rel=1e-7)
    low, high = likelihood.bounds(0.05)
    for bound in (low, high):
        assert owen_statistic(d, bound) == pytest.approx(stats.chi2.ppf(0.95, 1), rel=1e-9)
    assert d.min() < low < d.mean() < high < d.max()
    assert likelihood.statistic(d.min()) == likelihood.statistic(d.max() + 1) == np.inf


def test_a_likelihood_reads_values_near_the_float_limit_as_it_reads_small_ones():
    d = np.array([1.0, 2.0, 2.0, 7.0, -3.0, 0.5])
    small, huge = MeanLikelihood.of(d), MeanLikelihood.of(d * 1e300)
    assert huge.statistic(1e300) == pytest.approx(small.statistic(1.0), rel=1e-12)
    assert np.array(huge.bounds(0.05)) / 1e300 == pytest.approx(small.bounds(0.05), rel=1e-12)


def test_a_mean_outside_the_sample_or_on_its_edge_has_no_likelihood():
    likelihood = MeanLikelihood.of([0.0, 0.0, 1.0, 1.0, 2.0])
    assert likelihood.statistic(0.0) == likelihood.statistic(-1.0) == np.inf
    assert likelihood.p_value(2.0) == 0.0
    assert 0.0 < likelihood.lower_bound(0.05) < 0.8


def test_a_sample_of_one_value_has_no_likelihood_to_speak_of():
    with pytest.raises(ValueError, match="two distinct values"):
        MeanLikelihood.of([1.5, 1.5, 1.5])


def test_many_samples_at_once_get_the_statistic_each_gets_alone():
    rng = np.random.default_rng(8)
    samples = np.vstack([rng.standard_normal((300, 15)) + 0.4,
                         rng.choice([-3.0, 0.0, 1.0], (100, 15)),
                         np.abs(rng.standard_normal((5, 15)))])  # all on one side of 0
    together = statistics_at_zero(samples)
    alone = np.array([MeanLikelihood.of(row).statistic(0.0) if len(set(row)) > 1 else np.inf
                      for row in samples])
    assert np.isinf(together[-5:]).all()
    assert together == pytest.approx(alone, rel=1e-9, abs=1e-12)


def test_thousands_of_distinct_values_get_the_same_likelihood_by_numpys_sums():
    d = np.random.default_rng(9).gamma(2.0, 1.0, 3000) - 2.05
    likelihood = MeanLikelihood.of(d)
    assert len(likelihood.values) == 3000
    for mu in (0.0, -0.1, 0.02):
        assert likelihood.statistic(mu) == pytest.approx(owen_statistic(d, mu), rel=1e-9)
    for bound in likelihood.bounds(0.05):
        assert owen_statistic(d, bound) == pytest.approx(stats.chi2.ppf(0.95, 1), rel=1e-9)


def test_newtons_steps_find_each_root_without_falling_back_to_bisection(monkeypatch):
    """Newton's last step, a few ulps long, often lands on the end of the bracket its step
    before had just set at the root; taking that for a step out of bounds sent the search
    to the bracket's middle and some 50 bisections back (0.5 s of the power of a mean at
    800 cases). A dozen steps find every root."""
    monkeypatch.setattr(empirical_likelihood, "_STEPS", 12)
    rng = np.random.default_rng(12)
    samples = rng.standard_normal((200, 60)) + 0.5
    assert statistics_at_zero(samples) == pytest.approx(
        [owen_statistic(row, 0.0) for row in samples], rel=1e-9)
    for row in samples[:40]:
        assert MeanLikelihood.of(row).statistic(0.0) == pytest.approx(
            owen_statistic(row, 0.0), rel=1e-9)


def test_newtons_steps_find_each_bound_without_falling_back_to_bisection(monkeypatch):
    """The same for a bound of the interval: a last step onto the bound, taken for one out
    of the bracket, restarted the search from the middle of the sample's range."""
    monkeypatch.setattr(empirical_likelihood, "_STEPS", 12)
    rng = np.random.default_rng(0)
    for n in rng.integers(5, 80, 60):
        d = rng.standard_normal(n) + 0.3
        for level in (0.05, 0.0005):
            for bound in MeanLikelihood.of(d).bounds(level):
                assert owen_statistic(d, bound) == pytest.approx(chi2_1_ppf(level), rel=1e-9)
