"""Sample-size advice: the power of the test actually run, at its level, checked by simulation."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.power import TTestPower

from assay.analysis.effect import measure
from assay.analysis.mean_delta import Differences
from assay.analysis.paired import compare_paired
from assay.analysis.pass_rate_delta import DiscordantPairs, mcnemar_score
from assay.analysis.power import (
    advise,
    advise_sample_size,
    cases_for_mcnemar,
    cases_for_mean,
    mcnemar_power,
    mean_test_power,
    power_text,
    t_power,
)
from assay.analysis.verdict import shown_effect


def _simulated_mcnemar_power(n: int, gain: float, loss: float, level: float,
                             runs: int = 4000) -> float:
    rng = np.random.default_rng(7)
    cells = rng.multinomial(n, [gain, loss, 1 - gain - loss], size=runs)
    return float(np.mean([mcnemar_score(int(b), int(a)).p_value < level
                          for b, a, _ in cells]))


@pytest.mark.parametrize("n, gain, loss, level", [(40, 0.25, 0.05, 0.05), (60, 0.2, 0.1, 0.05),
                                                  (25, 0.3, 0.02, 0.0125), (8, 0.5, 0.0, 0.05)])
def test_mcnemar_power_matches_simulation_of_the_test_run(n, gain, loss, level):
    exact = mcnemar_power(n, gain, loss, level=level)
    simulated = _simulated_mcnemar_power(n, gain, loss, level)
    assert exact == pytest.approx(simulated, abs=3 * np.sqrt(0.25 / 4000))


def test_t_power_matches_statsmodels():
    for n, delta, sd, level in [(30, 0.5, 1.2, 0.05), (12, 1.0, 1.0, 0.01), (200, 0.1, 0.9, 0.0167)]:
        reference = TTestPower().power(effect_size=delta / sd, nobs=n, alpha=level,
                                       alternative="two-sided")
        assert t_power(n, delta, sd, level=level) == pytest.approx(reference, rel=1e-6)


def _simulated_mean_test_power(n: int, delta: float, level: float, runs: int) -> float:
    rng = np.random.default_rng(n + 10_000)  # other samples than the power's own
    return float(np.mean([Differences.of(d, 50.0).test().p_value < level
                          for d in rng.normal(delta, 1.0, (runs, n))]))


@pytest.mark.parametrize("delta, level", [(4.0, 0.05), (1.8, 0.05), (1.0, 0.05), (0.8, 0.05),
                                          (0.6, 0.0167), (0.35, 0.05)])
def test_the_printed_power_of_a_mean_is_what_the_checked_test_reaches_at_that_count(
        delta: float, level: float) -> None:
    """The test run rejects only where the t test and the empirical likelihood both do, so
    the t test's power alone would promise a little more than it reaches: the advised count
    is where the test run, simulated on other seeds, reaches what is printed."""
    needed, printed = cases_for_mean(Differences(3, delta, 1.0, 10.0), level=level,
                                     power=0.8, start=2)
    runs = 6000
    achieved = _simulated_mean_test_power(needed, delta, level, runs)
    assert printed >= 0.8
    assert printed == pytest.approx(achieved, abs=3.5 * np.sqrt(0.25 / runs))
    assert mean_test_power(needed - 1, delta, 1.0, level=level) < 0.8 or needed == 2


def test_the_mean_test_s_power_is_at_most_the_plain_t_test_s_and_equal_at_two_cases() -> None:
    for n in (2, 3, 8, 40, 400):
        plain = t_power(n, 0.5, 1.0, level=0.05)
        assert mean_test_power(n, 0.5, 1.0, level=0.05) <= plain + 1e-12
    assert mean_test_power(2, 0.5, 1.0, level=0.05) == pytest.approx(
        t_power(2, 0.5, 1.0, level=0.05), abs=1e-12)


def test_the_printed_power_is_the_exact_power_at_the_advised_count():
    needed, power = cases_for_mcnemar(0.2, 0.05, level=0.05, power=0.8, start=10)
    assert power == mcnemar_power(needed, 0.2, 0.05, level=0.05) >= 0.8
    assert mcnemar_power(needed - 1, 0.2, 0.05, level=0.05) < 0.8
    assert power == pytest.approx(_simulated_mcnemar_power(needed, 0.2, 0.05, 0.05), abs=0.025)


def test_a_stricter_holm_step_needs_more_cases():
    at_05, _ = cases_for_mcnemar(0.2, 0.05, level=0.05, start=1)
    at_step, _ = cases_for_mcnemar(0.2, 0.05, level=0.05 / 3, start=1)
    assert at_step > at_05


def test_cases_that_all_flipped_within_noise_get_advice_for_more_cases_not_as_many():
    # issue case: "about 4 cases would detect -100pp" on a 4-case comparison with p=0.25;
    # McNemar's score test calls 4 of 4 flipped significant (p=0.046), 3 of 3 not (p=0.083)
    a = {f"q{i}": True for i in range(3)}
    b = {f"q{i}": False for i in range(3)}
    comparison = compare_paired(a, b, kind="pass_fail")
    assert not comparison.significant
    advice = advise_sample_size(comparison)[0]
    assert advice.cases_needed is not None and advice.cases_needed > 3
    assert advice.power == mcnemar_power(advice.cases_needed, 0.0, 1.0, level=0.05)
    assert advice.power == pytest.approx(_simulated_mcnemar_power(advice.cases_needed, 0.0, 1.0,
                                                                  0.05), abs=0.025)
    assert "asymptotic McNemar" in advice.summary()


@pytest.mark.parametrize("seed", range(15))
def test_a_comparison_within_noise_is_never_advised_fewer_cases_than_it_has(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    a = {f"q{i}": bool(x) for i, x in enumerate(rng.random(n) < 0.5)}
    b = {k: bool(rng.random() < 0.55) for k in a}
    comparison = compare_paired(a, b, kind="pass_fail")
    for advice in advise_sample_size(comparison):
        if advice.cases_needed is not None:
            assert not comparison.significant or advice.metric == "mean"
            assert advice.cases_needed > n


def test_a_significant_difference_gets_no_count_and_says_why():
    effect = measure("pass_rate", DiscordantPairs(100, 30, 5), 0.05)
    advice = advise(effect)
    assert effect.significant and advice.cases_needed is None
    assert advice.reason == "already significant with 100 cases"


def test_no_effect_gets_no_count_and_says_why():
    advice = advise(measure("pass_rate", DiscordantPairs(30, 4, 4), 0.05))
    assert advice.cases_needed is None and "difference is 0" in (advice.reason or "")


def test_a_power_short_of_one_never_reads_100_percent():
    """Regression: advice read "about 11 cases would detect +0.80 with 100% power" for a
    power of 0.99999999."""
    effect = measure("mean", Differences.of([1.0, 0.8], 1.0), 0.05)
    advice = advise(effect)
    assert advice.power is not None and 0.995 < advice.power < 1
    assert "with >99% power" in advice.summary() and "100%" not in advice.summary()
    assert power_text(0.994) == "99%" and power_text(1.0) == "100%"
    assert power_text(0.8) == "80%"


def test_regression_a_pass_rate_over_epochs_that_did_not_move_is_named_a_pass_rate():
    """Over epochs a pass rate is tested as a mean of per-case shares, and its advice read
    'the observed mean difference is 0' beside 'pass rate 12.5% → 12.5%'."""
    a = {"q1": [True, False], "q2": [False, False], "q3": [True, True]}
    b = {"q1": [False, True], "q2": [False, False], "q3": [True, True]}
    comparison = compare_paired(a, b, kind="pass_fail")
    advice = advise_sample_size(comparison)[0]
    assert advice.metric == "pass_rate" and advice.cases_needed is None
    assert advice.reason == "the observed pass-rate difference is 0; there is no effect to detect"


def test_regression_a_pass_fail_comparison_gets_no_advice_from_its_means_t_test():
    """results.json listed advice on the mean beside the pass rate's for a pass/fail scorer
    (its mean is the pass rate, under a t test the verdict never ran); the reports left it
    out, so results.json said more than any report and advised from a test not made."""
    a = {f"q{i}": i % 2 == 0 for i in range(20)}
    b = {f"q{i}": i % 3 == 0 for i in range(20)}
    comparison = compare_paired(a, b, kind="pass_fail")
    assert comparison.mean is not None  # described, but not the verdict's quantity
    assert [advice.metric for advice in advise_sample_size(comparison)] == ["pass_rate"]


def test_the_advice_gives_the_interval_s_width_not_a_plus_minus_around_another_centre() -> None:
    """-100pp with 97.5% CI -100.0..+11.3pp was advised as "97.5% CI ±55.7pp with 4 cases",
    which reads as -100 ± 55.7 on the line under the interval it contradicts."""
    effect = measure("pass_rate", DiscordantPairs(4, 0, 4), 0.025)
    low, high = effect.interval.low, effect.interval.high  # in pp
    assert low == -100.0 and high > 0
    summary = advise(effect).summary()
    assert summary.startswith(f"97.5% CI {high - low:.1f}pp wide with 4 cases; ")
    assert "±" not in summary


@pytest.mark.parametrize("kind", ["pass_fail", "score"])
def test_the_advice_reads_the_delta_and_the_width_its_comparison_line_prints(kind: str) -> None:
    """0 of 4 cases apart prints `97.5% CI -55.7..+55.7pp`: the advice under it said 111.3pp
    wide (the unrounded width), where a reader subtracting the bounds gets 111.4; and under
    a shown `+0.05pp` it advised for `+0.1pp`."""
    rng = np.random.default_rng(7)
    for n in [*range(2, 14), 2000]:
        for _ in range(12 if n < 100 else 2):
            if kind == "pass_fail":
                a = {f"q{i}": bool(rng.random() < 0.7) for i in range(n)}
                b = {case: passed if rng.random() < 0.9 else not passed
                     for case, passed in a.items()}
            else:
                a = {f"q{i}": float(rng.integers(0, 11)) for i in range(n)}
                b = {case: min(10.0, value + float(rng.integers(-1, 3)))
                     for case, value in a.items()}
            comparison = compare_paired(a, b, kind=kind, scale=(0, 10), alpha=0.05)
            shown = shown_effect(comparison)
            unit = "pp" if comparison.headline.metric == "pass_rate" else ""
            low, high = (float(bound) for bound in
                         shown.interval.removesuffix(unit).split(".."))
            [advice] = advise_sample_size(comparison)
            summary = advice.summary()
            assert summary.startswith(f"95% CI {high - low:.{shown.digits}f}{unit} wide"), \
                (shown, summary)
            if advice.cases_needed is not None:
                assert f" would detect {shown.delta} with " in summary, (shown, summary)


def test_a_mean_difference_too_small_for_the_usual_digits_is_advised_on_as_printed():
    """Regression: one case of 2,000 a billionth higher moved the mean by 5e-13; the line
    reads `+0.000000000001` (its tie rounded up) and the advice under it said 'the observed mean difference is
    0'. It sizes that difference, with the statsmodels count for its effect size."""
    a = {f"q{i}": 0.5 for i in range(2000)}
    c = compare_paired(a, {f"q{i}": 0.5 + 1e-9 * (i == 0) for i in range(2000)},
                       kind="score", scale=(0, 1))
    [advice] = advise_sample_size(c)
    assert shown_effect(c).delta == "+0.000000000001"  # 5e-13, its tie rounded up
    assert advice.cases_needed is not None and advice.power is not None
    effect_size = c.mean.evidence.estimate / c.sd_diff
    assert advice.cases_needed == pytest.approx(
        TTestPower().solve_power(effect_size, alpha=0.05, power=0.8), rel=0.01)
    assert "would detect +0.000000000001 with 80% power" in advice.summary()
