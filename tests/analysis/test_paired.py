"""Paired comparison: the tests agree with scipy/statsmodels, one quantity per line, noise is noise."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar

from assay.analysis.mean_delta import CHECKED_T
from assay.analysis.paired import NothingToPair, compare_paired
from assay.analysis.significance import SIGNED_RANK_MIN_TIED, signed_rank_test
from assay.errors import UserError


def table_cases(both: int, a_only: int, b_only: int, neither: int) -> tuple[dict, dict]:
    """Per-case pass/fail for A and B laid out from a 2x2 McNemar table."""
    cells = [(True, True)] * both + [(True, False)] * a_only + [(False, True)] * b_only
    cells += [(False, False)] * neither
    ids = [f"q{i:03d}" for i in range(len(cells))]
    return ({cid: pa for cid, (pa, _) in zip(ids, cells)},
            {cid: pb for cid, (_, pb) in zip(ids, cells)})


def by_id(values: np.ndarray) -> dict[str, float]:
    return {f"q{i:04d}": float(v) for i, v in enumerate(values)}


# --- the tests agree with the references -------------------------------------------------

@pytest.mark.parametrize("table", [(30, 2, 8, 10), (40, 5, 25, 30), (10, 0, 6, 4),
                                   (20, 7, 7, 20), (5, 12, 3, 0), (50, 0, 0, 50)])
def test_the_pass_rate_test_is_statsmodels_mcnemar_without_continuity_correction(table):
    both, a_only, b_only, neither = table
    a, b = table_cases(*table)
    result = compare_paired(a, b, kind="pass_fail")
    assert result.test.name == "asymptotic McNemar"
    if a_only + b_only:
        reference = mcnemar([[both, a_only], [b_only, neither]], exact=False, correction=False)
        assert result.test.p_value == pytest.approx(reference.pvalue, rel=1e-12)
        assert result.test.statistic == pytest.approx(reference.statistic, rel=1e-12)
    else:  # statsmodels divides 0 by 0; no discordant case is no evidence
        assert result.test.p_value == 1.0
    assert result.test.n_used == a_only + b_only


def test_mcnemar_hand_worked():
    # 2 cases pass only with A, 8 only with B: z = (8 - 2) / sqrt(10), p = 2 P(Z > z)
    a, b = table_cases(30, 2, 8, 10)
    expected = 2 * stats.norm.sf(6 / np.sqrt(10))
    assert compare_paired(a, b, kind="pass_fail").test.p_value == pytest.approx(expected)


def test_exact_signed_rank_reproduces_darwins_plants_by_enumeration():
    # Darwin's Zea mays height differences (Fisher, The Design of Experiments, 1935)
    d = np.array([6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75], dtype=float)
    result = signed_rank_test(d)
    ranks = stats.rankdata(np.abs(d))
    observed = ranks[d > 0].sum()
    sums = np.array([sum(r for r, s in zip(ranks, signs) if s)
                     for signs in itertools.product([0, 1], repeat=d.size)])
    centre = ranks.sum() / 2
    p_enumerated = np.mean(np.abs(sums - centre) >= abs(observed - centre))
    assert result.name == "Wilcoxon signed-rank (exact)"
    assert result.statistic == min(observed, ranks.sum() - observed) == 24
    assert result.p_value == pytest.approx(p_enumerated, rel=1e-12)


def test_signed_rank_on_tied_scores_matches_scipy_with_zeros_dropped():
    rng = np.random.default_rng(7)
    a = rng.integers(0, 11, 80).astype(float)
    b = np.clip(a + rng.integers(-2, 4, 80), 0, 10)
    shift = compare_paired(by_id(a), by_id(b), kind="score").shift_test
    reference = stats.wilcoxon(b, a, zero_method="wilcox", correction=False,
                               method="asymptotic")
    assert shift is not None
    assert shift.name == "Wilcoxon signed-rank (normal approximation)"
    assert shift.p_value == pytest.approx(reference.pvalue, rel=1e-12)
    assert shift.statistic == reference.statistic
    assert shift.n_used == int(np.sum(a != b))


def test_few_tied_differences_use_the_exact_sign_test():
    d = np.array([2, 2, 1, 1, 1, -1, 0, 0], dtype=float)  # 5 up, 1 down, 2 ties
    result = signed_rank_test(d)
    assert result.name == "exact sign test"
    assert result.n_used == 6
    assert result.p_value == pytest.approx(2 * (1 + 6) / 2**6)


def test_tied_differences_switch_to_signed_rank_at_the_documented_cutoff():
    just_below = np.array([1.0, 2.0] * (SIGNED_RANK_MIN_TIED // 2 - 1) + [1.0])
    at_cutoff = np.array([1.0, 2.0] * (SIGNED_RANK_MIN_TIED // 2))
    assert just_below.size == SIGNED_RANK_MIN_TIED - 1
    assert signed_rank_test(just_below).name == "exact sign test"
    assert signed_rank_test(at_cutoff).name.startswith("Wilcoxon signed-rank")


def test_identical_sides_have_no_test_to_run_and_p_one_and_an_interval_around_zero():
    scores = by_id(np.arange(10.0))
    result = compare_paired(scores, scores, kind="score", scale=(0, 10))
    assert result.test.p_value == 1.0 and not result.significant
    assert len(result.ties) == 10
    # ten ties do not prove the sides equal on every other case: the interval has width
    assert result.ci_mean.method == "zero-spread bound"
    assert result.test.name == "zero-spread bound"
    assert result.ci_mean.low == pytest.approx(-result.ci_mean.high)
    assert 0 < result.ci_mean.high < 10


def test_pass_shares_over_epochs_are_tested_as_a_mean_of_per_case_shares():
    a = {"q1": [True, False], "q2": [True, True], "q3": [False, False], "q4": [True, False]}
    b = {"q1": [True, True], "q2": [True, True], "q3": [True, False], "q4": [True, True]}
    result = compare_paired(a, b, kind="pass_fail")
    assert result.delta_pp == pytest.approx(37.5)
    assert result.test.name == CHECKED_T
    assert result.pass_rate is not None and result.pass_rate.metric == "pass_rate"


# --- noise is noise, a real effect is real ---------------------------------------------------

def test_two_conditions_differing_only_by_noise_report_no_significant_difference():
    rng = np.random.default_rng(42)
    difficulty = rng.random(100)
    a = {f"q{i}": bool(x < 0.6) for i, x in enumerate(difficulty + rng.normal(0, .15, 100))}
    b = {f"q{i}": bool(x < 0.6) for i, x in enumerate(difficulty + rng.normal(0, .15, 100))}
    result = compare_paired(a, b, kind="pass_fail", label_a="training", label_b="pack")
    assert not result.significant
    assert "within noise" in result.verdict and "significant" not in result.verdict
    assert result.ci_pp is not None and result.ci_pp.contains(0.0)


def test_noise_is_called_significant_no_more_often_than_alpha():
    rng = np.random.default_rng(1)
    false_alarms = 0
    for _ in range(200):
        difficulty = rng.random(100)
        a = by_id((difficulty + rng.normal(0, .2, 100) < .5).astype(float))
        b = by_id((difficulty + rng.normal(0, .2, 100) < .5).astype(float))
        false_alarms += compare_paired(a, b, kind="pass_fail").significant
    # alpha 0.05 over 200 tries: SD 0.015; the exact test is conservative, so only the top matters
    assert false_alarms / 200 <= 0.05 + 3 * 0.0154


def test_a_real_twenty_point_gain_on_100_cases_is_significant():
    a, b = table_cases(both=45, a_only=5, b_only=25, neither=25)  # 50% -> 70%
    result = compare_paired(a, b, kind="pass_fail", label_a="training", label_b="pack")
    assert result.delta_pp == pytest.approx(20.0)
    assert result.significant and result.reading == "strong"
    assert result.verdict.startswith("pass rate +20.0pp, 95% CI +")
    assert result.verdict.endswith(", significant (asymptotic McNemar p<0.001); size: strong gain")
    assert result.ci_pp is not None and result.ci_pp.low > 0
    assert len(result.wins) == 25 and len(result.losses) == 5 and len(result.ties) == 70


def test_a_strong_looking_gain_within_noise_says_so():
    a, b = table_cases(both=20, a_only=4, b_only=7, neither=19)  # 48% -> 54%, n=50
    result = compare_paired(a, b, kind="pass_fail")
    ci = result.ci_pp
    assert ci is not None and ci.low < 0 < ci.high
    assert result.verdict == (
        f"pass rate +6.0pp, 95% CI {ci.low:+.1f}..{ci.high:+.1f}pp, within noise "
        f"(asymptotic McNemar p={result.test.p_value:.2g}); size: strong gain")


# --- alignment, epochs, outcomes ---------------------------------------------------------

def test_epochs_are_averaged_per_case_before_comparing():
    a = {"x": [7, 8, 9], "y": [2, 2, 2], "z": [5, None, 7]}
    b = {"x": [8, 8, 8], "y": [4, 4, 5], "z": [5, 6, 7]}
    result = compare_paired(a, b, kind="score")
    assert result.mean_a == pytest.approx((8 + 2 + 6) / 3)
    assert result.mean_b == pytest.approx((8 + 13 / 3 + 6) / 3)
    assert result.ties == ("x", "z") and result.wins == ("y",)
    assert result.excluded.epoch_values_ignored == 1


def test_cases_on_one_side_only_or_without_values_are_excluded_and_counted():
    a = {"q1": 1.0, "q2": 0.0, "only_a": 1.0, "broken": [None, None]}
    b = {"q1": 1.0, "q2": 1.0, "only_b": 0.0, "broken": 1.0}
    result = compare_paired(a, b, kind="pass_fail")
    assert result.n == 2
    assert result.excluded.only_in_a == ("only_a",)
    assert result.excluded.only_in_b == ("only_b",)
    assert result.excluded.errored_in_a == ("broken",) and result.excluded.errored_in_b == ()
    assert result.excluded.count == 3


def test_numpy_values_from_stored_arrays_are_accepted():
    passed = np.array([True, False, True, True])
    a = {f"q{i}": v for i, v in enumerate(passed)}
    b = {f"q{i}": np.float64(1.0) for i in range(4)}
    result = compare_paired(a, b, kind="pass_fail")
    assert result.pass_rate_a == 0.75 and result.wins == ("q1",)


def test_scores_with_verdicts_report_both_the_mean_and_the_pass_rate():
    scores_a = {"q1": 5, "q2": 8, "q3": 6, "q4": 9}
    scores_b = {"q1": 7, "q2": 9, "q3": 6, "q4": 8}
    result = compare_paired(scores_a, scores_b, kind="score", scale=(0, 10),
                            passed_a={k: v >= 7 for k, v in scores_a.items()},
                            passed_b={k: v >= 7 for k, v in scores_b.items()})
    assert result.delta_mean == pytest.approx(0.5)
    assert (result.pass_rate_a, result.pass_rate_b) == (0.5, 0.75)
    assert result.delta_pp == pytest.approx(25.0)
    assert result.test is result.mean.test and result.pass_rate is not None
    assert (result.wins, result.losses, result.ties) == (("q1", "q2"), ("q4",), ("q3",))
    # one quantity per line: the verdict is about the mean only
    assert result.verdict.startswith("mean +0.500 (+5.0pp of the scale), 95% CI ")
    assert "pass rate" not in result.verdict


def test_a_scale_gives_verdictless_scores_a_pack_reading():
    a = by_id(np.full(20, 0.50))
    b = by_id(np.full(20, 0.53))
    result = compare_paired(a, b, kind="score", scale=(0.0, 1.0))
    assert result.reading_delta_pp == pytest.approx(3.0)
    assert result.reading == "moderate"


def test_a_means_share_of_the_scale_is_the_share_of_the_delta_shown_beside_it():
    """Regression: a mean 0.0045 higher on 0-1 read `+0.005 (+0.4pp of the scale)`, as if
    the shown delta were not 0.5pp of it: in floats 0.0045 * 100 is 0.44999999999999996."""
    a = {f"q{i}": 0.5 for i in range(4)}
    b = {f"q{i}": 0.5045 + (0.01 if i % 2 else -0.01) for i in range(4)}
    result = compare_paired(a, b, kind="score", scale=(0.0, 1.0))
    assert result.reading_delta_pp == 0.45
    assert result.verdict.startswith("mean +0.005 (+0.5pp of the scale), ")


def test_the_report_dict_is_plain_json():
    a, b = table_cases(10, 2, 6, 5)
    payload = json.loads(json.dumps(compare_paired(a, b, kind="pass_fail").to_dict()))
    assert payload["kind"] == "pass_fail" and payload["n"] == 23
    assert payload["verdict"] and payload["ci_pp"]["confidence"] == 0.95


@pytest.mark.parametrize("call, message", [
    (lambda: compare_paired({"q": 0.5}, {"q": 1}, kind="pass_fail"), "not true/false"),
    (lambda: compare_paired({"q": 1}, {"r": 1}, kind="score"), "no case has a usable result"),
    (lambda: compare_paired({"q": 1}, {"q": 1}, kind="ratio"), "unknown comparison kind"),
    (lambda: compare_paired({"q": float("nan")}, {"q": 1}, kind="score"), "not a finite"),
    (lambda: compare_paired({"q": 1}, {"q": 1}, kind="score", passed_a={"q": True}),
     "both sides"),
])
def test_bad_input_is_a_user_error_that_says_what(call, message):
    with pytest.raises(UserError, match=message):
        call()


def test_a_comparison_with_nothing_to_pair_says_which_side_errored_throughout():
    """It read '(2 cases in A, 2 in B, 2 excluded)', not that every case of B errored."""
    with pytest.raises(NothingToPair) as caught:
        compare_paired({"q1": 1, "q2": 0}, {"q1": None, "q2": [None, None]}, kind="pass_fail",
                       label_a="before", label_b="after")
    assert "(2 cases in before, 2 in after: 2 errored in after (every epoch))" in str(caught.value)
    assert caught.value.excluded.newly_errored == ("q1", "q2")
