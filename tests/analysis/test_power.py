"""Sample-size advice: hand-worked formulas, monotone in the effect, and right by simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from assay.analysis.paired import compare_paired
from assay.analysis.power import (
    UndefinedEffect,
    advise_sample_size,
    cases_for_paired_means,
    cases_for_paired_proportions,
)
from assay.analysis.significance import mcnemar_exact

Z_975, Z_80 = 1.959964, 0.841621


def test_paired_proportions_hand_worked():
    # 20% of cases pass only with B, 10% only with A: psi = 0.3, delta = 0.1
    n = (Z_975 * math.sqrt(0.3) + Z_80 * math.sqrt(0.3 - 0.01)) ** 2 / 0.01  # 233.1
    assert cases_for_paired_proportions(0.2, 0.1) == math.ceil(n) == 234


def test_paired_means_hand_worked():
    # a 0.5-point gain with per-case differences of SD 2
    n = ((Z_975 + Z_80) * 2 / 0.5) ** 2 + Z_975**2 / 2  # 127.5
    assert cases_for_paired_means(0.5, 2.0) == math.ceil(n) == 128


def test_smaller_effects_need_more_cases():
    gains = [0.30, 0.25, 0.20, 0.15, 0.12, 0.10, 0.08]  # against a 5% loss share
    by_proportion = [cases_for_paired_proportions(g, 0.05) for g in gains]
    by_mean = [cases_for_paired_means(d, 1.5) for d in [1.0, 0.8, 0.5, 0.3, 0.1, 0.05]]
    assert by_proportion == sorted(by_proportion) and len(set(by_proportion)) == len(gains)
    assert by_mean == sorted(by_mean) and len(set(by_mean)) == len(by_mean)


def test_more_power_or_a_stricter_alpha_needs_more_cases():
    base = cases_for_paired_proportions(0.2, 0.1)
    assert cases_for_paired_proportions(0.2, 0.1, power=0.9) > base
    assert cases_for_paired_proportions(0.2, 0.1, alpha=0.01) > base


@pytest.mark.parametrize("call, reason", [
    (lambda: cases_for_paired_proportions(0.1, 0.1), "difference is 0"),
    (lambda: cases_for_paired_means(0.0, 1.0), "difference is 0"),
    (lambda: cases_for_paired_means(0.5, None), "at least two cases"),
    (lambda: cases_for_paired_means(0.5, 0.0), "spread of differences is 0"),
])
def test_an_undefined_effect_is_refused_with_a_reason(call, reason):
    with pytest.raises(UndefinedEffect, match=reason):
        call()


def test_the_advised_count_reaches_about_the_asked_power_for_mcnemar():
    gain, loss = 0.20, 0.05
    n = cases_for_paired_proportions(gain, loss)
    rng = np.random.default_rng(0)
    hits = 0
    for _ in range(400):
        # per case: 0 = passes only with B, 1 = only with A, 2 = the same on both sides
        cell = rng.choice(3, size=n, p=[gain, loss, 1 - gain - loss])
        hits += mcnemar_exact(cell == 1, cell == 0).p_value < 0.05
    # the normal formula slightly flatters the exact, conservative test (about 0.75 in
    # simulation for 0.80 asked); 400 runs have SD 0.02
    assert 0.68 <= hits / 400 <= 0.88


def test_the_advised_count_reaches_about_the_asked_power_for_means():
    delta, sd = 0.4, 1.6
    n = cases_for_paired_means(delta, sd)
    rng = np.random.default_rng(1)
    hits = sum(stats.ttest_1samp(rng.normal(delta, sd, n), 0).pvalue < 0.05
               for _ in range(400))
    assert 0.74 <= hits / 400 <= 0.86


def test_advice_from_a_comparison_reports_precision_now_and_cases_needed():
    a = {f"q{i}": i < 50 for i in range(100)}
    b = {f"q{i}": i < 42 or 50 <= i < 64 for i in range(100)}  # 8 lost, 14 gained: +6pp
    comparison = compare_paired(a, b, kind="pass_fail", resamples=2000)
    pass_rate, mean = advise_sample_size(comparison)
    assert pass_rate.metric == "pass_rate" and mean.metric == "mean"
    assert pass_rate.ci_half_width == pytest.approx(comparison.ci_pp.half_width)
    assert pass_rate.effect == pytest.approx(6.0)
    assert pass_rate.cases_needed == cases_for_paired_proportions(0.14, 0.08)
    assert pass_rate.cases_needed > comparison.n
    assert pass_rate.summary().startswith(f"95% CI ±{pass_rate.ci_half_width:.1f}pp with 100")
    assert f"about {pass_rate.cases_needed} cases would detect +6.0pp" in pass_rate.summary()


def test_advice_for_no_effect_says_why_instead_of_a_number():
    same = {f"q{i}": i % 3 == 0 for i in range(30)}
    advice = advise_sample_size(compare_paired(same, same, kind="pass_fail", resamples=200))
    assert all(a.cases_needed is None for a in advice)
    assert "no effect to detect" in advice[0].summary()
    assert advice[0].to_dict()["reason"] == advice[0].reason
