"""Pass-rate deltas: McNemar's score test, Tango's interval inverting it, never in disagreement."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize, stats
from statsmodels.stats.contingency_tables import mcnemar

from assay.analysis.effect import measure
from assay.analysis.pass_rate_delta import (
    DiscordantPairs,
    mcnemar_exact,
    mcnemar_score,
    tango_interval,
    tango_score,
)


@pytest.mark.parametrize("table", [(30, 2, 8, 10), (40, 5, 25, 30), (10, 0, 6, 4),
                                   (20, 7, 7, 20), (5, 12, 3, 0), (50, 0, 0, 50)])
def test_exact_mcnemar_matches_statsmodels(table):
    both, a_only, b_only, neither = table
    reference = mcnemar([[both, a_only], [b_only, neither]], exact=True)
    result = mcnemar_exact(b_only, a_only)
    assert result.p_value == pytest.approx(reference.pvalue, rel=1e-12)
    assert result.statistic == reference.statistic


@pytest.mark.parametrize("table", [(30, 2, 8, 10), (40, 5, 25, 30), (10, 0, 6, 4),
                                   (20, 7, 7, 20), (5, 12, 3, 0), (50, 1, 0, 50), (0, 400, 330, 0)])
def test_the_score_test_is_statsmodels_mcnemar_without_continuity_correction(table):
    both, a_only, b_only, neither = table
    reference = mcnemar([[both, a_only], [b_only, neither]], exact=False, correction=False)
    result = mcnemar_score(b_only, a_only)
    assert result.p_value == pytest.approx(reference.pvalue, rel=1e-12)
    assert result.statistic == pytest.approx(reference.statistic, rel=1e-12)
    assert result.n_used == a_only + b_only


def test_the_score_test_of_no_discordant_case_finds_nothing():
    result = mcnemar_score(0, 0)
    assert result.p_value == 1.0 and result.n_used == 0


@pytest.mark.parametrize("b_only, a_only", [(8, 2), (1, 6), (12, 12), (30, 0)])
def test_tango_at_zero_is_mcnemars_uncorrected_chi_square(b_only, a_only):
    reference = mcnemar([[10, a_only], [b_only, 10]], exact=False, correction=False)
    n = 20 + a_only + b_only
    assert tango_score(n, b_only, a_only, 0.0) ** 2 == pytest.approx(reference.statistic)


def _constrained_variance(n: int, b_only: int, a_only: int, d0: float) -> float:
    """Var(b - a) at the likelihood maximum under delta = d0, found numerically."""
    rest = n - a_only - b_only

    def minus_loglik(q: float) -> float:
        return -(b_only * np.log(q + d0) + a_only * np.log(q) + rest * np.log(1 - 2 * q - d0))

    low, high = max(0.0, -d0) + 1e-12, (1 - d0) / 2 - 1e-12
    q = optimize.minimize_scalar(minus_loglik, bounds=(low, high), method="bounded",
                                 options={"xatol": 1e-12}).x
    return n * (2 * q + d0 - d0 * d0)


@pytest.mark.parametrize("d0", [-0.3, -0.05, 0.1, 0.4])
def test_tangos_closed_form_fits_the_discordant_probabilities_by_maximum_likelihood(d0):
    n, b_only, a_only = 40, 9, 3
    variance = _constrained_variance(n, b_only, a_only, d0)
    expected = (b_only - a_only - n * d0) / np.sqrt(variance)
    assert tango_score(n, b_only, a_only, d0) == pytest.approx(expected, rel=1e-5)


def test_tangos_interval_is_where_the_score_test_stops_rejecting():
    low, high = tango_interval(50, 12, 4, 0.95)
    assert tango_score(50, 12, 4, low) == pytest.approx(1.959964, abs=1e-6)
    assert tango_score(50, 12, 4, high) == pytest.approx(-1.959964, abs=1e-6)
    assert low < 8 / 50 < high


def test_no_discordant_case_still_leaves_an_interval_that_shrinks_with_n():
    for n in (5, 50):
        low, high = tango_interval(n, 0, 0, 0.95)
        z2 = 1.959964**2
        assert high == pytest.approx(z2 / (n + z2), rel=1e-6) and low == pytest.approx(-high)


@pytest.mark.parametrize("level", [0.05, 0.025, 0.05 / 3, 0.01, 0.005])
def test_the_interval_leaves_out_zero_exactly_when_the_score_test_rejects(level):
    for m in range(1, 80):
        for b_only in range(m + 1):
            pairs = DiscordantPairs(m + 10, b_only, m - b_only)
            effect = measure("pass_rate", pairs, level)
            assert effect.test.p_value == mcnemar_score(b_only, m - b_only).p_value
            assert effect.significant == (effect.test.p_value < level), (m, b_only)


@pytest.mark.parametrize("level", [0.05, 0.05 / 3, 0.01])
def test_the_interval_is_tangos_own_whenever_the_decision_is_not_at_the_edge(level):
    # no widening: the printed bounds are the score interval's, unless a bound would have to
    # be moved across 0 to agree with a p-value within rounding of the level
    for m in range(1, 60):
        for b_only in range(m + 1):
            pairs = DiscordantPairs(m + 10, b_only, m - b_only)
            effect = measure("pass_rate", pairs, level)
            low, high = tango_interval(m + 10, b_only, m - b_only, 1 - level)
            assert effect.interval.low == pytest.approx(low * 100, abs=1e-9)
            assert effect.interval.high == pytest.approx(high * 100, abs=1e-9)


def test_five_to_nothing_reads_the_same_in_the_interval_and_the_verdict():
    # issue case: 5 vs 0 discordant cases gave "+62.5pp 95% CI +13.9..+83.1pp ... p=0.19";
    # the score test gives z = 5 / sqrt(5), p = 0.025, and Tango's interval leaves out 0
    effect = measure("pass_rate", DiscordantPairs(8, 5, 0), 0.05)
    assert effect.test.p_value == pytest.approx(2 * stats.norm.sf(np.sqrt(5)))
    assert effect.significant and 0 < effect.interval.low < 62.5 < effect.interval.high
    # in a family of three, at Holm's first step (alpha / 3), the same counts are within noise
    step = effect.at(0.05 / 3)
    assert not step.significant and step.interval.low < 0 < step.interval.high


def test_four_to_nothing_is_the_fewest_discordant_cases_the_test_can_call_significant():
    assert not measure("pass_rate", DiscordantPairs(4, 3, 0), 0.05).significant
    assert measure("pass_rate", DiscordantPairs(4, 4, 0), 0.05).test.p_value == pytest.approx(
        2 * stats.norm.sf(2.0))
    assert measure("pass_rate", DiscordantPairs(4, 4, 0), 0.05).significant


def test_one_discordant_case_is_one_case_in_the_tests_note() -> None:
    """Regression: the notes read '1 cases pass only with B'."""
    assert mcnemar_exact(1, 0).note == "1 case passing only with B, 0 only with A"
    assert mcnemar_score(1, 2).note == "1 case passing only with B, 2 only with A"
    assert mcnemar_exact(2, 1).note == "2 cases passing only with B, 1 only with A"
