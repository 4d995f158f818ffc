"""The run summary: errors apart from scores, and cases counted once whatever the epochs."""

from __future__ import annotations

import numpy as np
import pytest

from assay.analysis.interval import Interval, t975, wilson
from assay.analysis.summary import summarize
from assay.records import ScoreRow, TrialRow


def rows(values: dict[str, list[float | None]], condition: str = "a") -> list[ScoreRow]:
    out = []
    for case_id, epochs in values.items():
        for epoch, value in enumerate(epochs):
            out.append(ScoreRow(case_id=case_id, condition=condition, epoch=epoch, scorer="s",
                                value=value, passed=None if value is None else value >= 0.5,
                                error="boom" if value is None else None))
    return out


def trials(score_rows: list[ScoreRow]) -> list[TrialRow]:
    return [TrialRow(case_id=r.case_id, condition=r.condition, epoch=r.epoch)
            for r in score_rows]


def test_an_error_is_counted_as_an_error_not_as_zero() -> None:
    data = rows({"x": [1.0], "y": [None], "z": [0.0]})
    (stats,) = summarize(data, trials(data)).scores
    assert (stats.n, stats.errors, stats.mean, stats.pass_rate) == (2, 1, 0.5, 0.5)


def test_with_epochs_the_cases_are_the_sample_not_the_repeats() -> None:
    data = rows({f"c{i}": [float(i % 2)] * 3 for i in range(10)})
    per_trial = summarize(data, trials(data)).scores[0]
    per_case = summarize(data, trials(data), per_case=True).scores[0]
    assert per_trial.n == 30 and per_case.n == 10
    assert per_case.mean == per_trial.mean == 0.5
    width = lambda s: s.mean_ci.high - s.mean_ci.low
    assert width(per_case) > width(per_trial) * 1.5


def test_a_mean_interval_stays_inside_the_scale() -> None:
    data = rows({"a": [0.0], "b": [0.0], "c": [0.0], "d": [1.0]})
    (stats,) = summarize(data, trials(data)).scores
    assert 0.0 <= stats.mean_ci.low and stats.mean_ci.high <= 1.0


def test_a_pass_fail_scorer_has_one_interval_for_its_mean_and_its_pass_rate() -> None:
    """Regression: a pass/fail scorer printed `1.000 [1.000–1.000]` (a t interval of zero
    width, claiming certainty) beside `100.0% [80%–100%]` for the same quantity."""
    from assay.analysis.interval import wilson

    for values, passed in (([1.0] * 15, 15), ([1.0] * 3 + [0.0] * 12, 3)):
        data = rows({f"c{i}": [v] for i, v in enumerate(values)})
        (stats,) = summarize(data, trials(data)).scores
        assert stats.mean == stats.pass_rate == passed / 15
        assert stats.mean_ci == stats.pass_rate_ci == wilson(passed, 15)
        assert stats.mean_ci is not None and stats.mean_ci.low < stats.mean  # never zero width


def test_a_pass_fail_scorer_on_one_case_shows_its_interval_in_both_columns() -> None:
    """Regression: at n=1 the mean column read `1.000` with no interval beside the pass
    rate's `100.0% [21%–100%]`, for the same quantity."""
    from assay.analysis.interval import wilson

    data = rows({"only": [1.0]})
    (stats,) = summarize(data, trials(data)).scores
    assert stats.mean_ci == stats.pass_rate_ci == wilson(1, 1)


def test_with_epochs_a_pass_fail_scorer_still_has_one_interval() -> None:
    data = rows({f"c{i}": [float(i % 2), 1.0, 0.0] for i in range(10)})
    (stats,) = summarize(data, trials(data), per_case=True).scores
    assert stats.mean == stats.pass_rate and stats.mean_ci == stats.pass_rate_ci


def test_a_graded_scorer_keeps_the_t_interval_of_its_mean() -> None:
    data = rows({"a": [0.2], "b": [0.9], "c": [0.6], "d": [1.0]})
    (stats,) = summarize(data, trials(data)).scores
    assert stats.mean_ci is not None and stats.mean_ci.method == "t"
    assert stats.mean_ci != stats.pass_rate_ci


def test_fed_a_trial_at_a_time_the_summary_is_the_one_of_all_rows_at_once() -> None:
    """A review reads each trial with its scores; the figures must not depend on it."""
    from assay.analysis.summary import SummaryBuilder

    data = [ScoreRow(case_id=r.case_id, condition=r.condition, epoch=r.epoch, scorer=r.scorer,
                     value=r.value, passed=r.passed, error=r.error, tags=("t",),
                     difficulty="hard", input_tokens=3, cost_usd=0.5)
            for r in rows({"x": [1.0, 0.0], "y": [None, 1.0], "z": [0.0, 0.2]})]
    failed = TrialRow(case_id="w", condition="a", epoch=0, error="target failed",
                      latency_ms=9.0)
    at_once = summarize(data, [*trials(data), failed], per_case=True)
    builder = SummaryBuilder(per_case=True)
    builder.add_trial(failed)
    for score_row, trial_row in zip(data, trials(data), strict=True):
        builder.add_trial(trial_row)
        builder.add_score(score_row)
    fed = builder.summary()
    assert fed.to_dict() == at_once.to_dict() and fed.values == at_once.values
    assert fed.conditions[0].judge_cost_usd == 3.0 and fed.scores[0].errors == 2


def test_regression_a_condition_whose_trials_reported_no_tokens_has_none_not_0() -> None:
    """Unreported token counts summed to 0, which every report then showed as 0/0."""
    from assay.records import TrialRow

    silent = summarize([], [TrialRow("c1", "a", 0), TrialRow("c2", "a", 0)])
    assert silent.conditions[0].input_tokens is None
    assert silent.conditions[0].output_tokens is None
    some = summarize([], [TrialRow("c1", "a", 0, input_tokens=10, output_tokens=3),
                          TrialRow("c2", "a", 0)])
    assert (some.conditions[0].input_tokens, some.conditions[0].output_tokens) == (10, 3)
    cached = summarize([], [TrialRow("c1", "a", 0, cache_hits=1)])  # known to have spent none
    assert (cached.conditions[0].input_tokens, cached.conditions[0].output_tokens) == (0, 0)


def test_a_scorers_own_failures_are_counted_with_examples_apart_from_the_targets() -> None:
    """A judge whose reply could not be read: the terminal names it with an example, as it
    does a target's failures, rather than only a count in the errored-trials column."""
    data = rows({"x": [1.0], "y": [None], "z": [None]})
    failed_target = TrialRow(case_id="w", condition="a", epoch=0, error="target failed")
    summary = summarize(data, [*trials(data), failed_target])
    assert summary.scores[0].errors == 3  # the target's failure is every scorer's error too
    failures = summary.scorer_failures["s"]
    assert failures.count == 2 and failures.examples == ["y (a): boom", "z (a): boom"]


def test_a_judge_without_a_price_whose_other_replies_were_cached_costs_unknown_not_0() -> None:
    """Cached replies cost $0 and unpriced calls None: summed, the judges read as free."""
    scores = [ScoreRow("c1", "a", 0, "judge", 8.0, True, None, (0.0, 10.0),
                       input_tokens=200, output_tokens=20, cost_usd=None),
              ScoreRow("c1", "a", 1, "judge", 8.0, True, None, (0.0, 10.0),
                       input_tokens=0, output_tokens=0, cost_usd=0.0)]
    summary = summarize(scores, [TrialRow("c1", "a", 0, input_tokens=7, output_tokens=1,
                                          cost_usd=1e-5),
                                 TrialRow("c1", "a", 1, input_tokens=7, output_tokens=1)])
    assert summary.conditions[0].judge_cost_usd is None
    assert summary.conditions[0].cost_usd is None  # the second answer had no price either
    priced = summarize(scores[1:], [TrialRow("c1", "a", 1, cost_usd=0.0, cache_hits=1)])
    assert priced.conditions[0].judge_cost_usd == 0.0


def test_regression_a_condition_whose_verdicts_all_came_from_the_cache_spent_0_judge_tokens(
        ) -> None:
    """A condition whose answers matched another's, every verdict read from the response
    cache, had judge tokens 'unknown' beside a judge cost of '$0.0000' in report.html."""
    cached = [ScoreRow(case, "a", 0, "judge", 8.0, True, None, (0.0, 10.0),
                       input_tokens=0, output_tokens=0, cost_usd=0.0) for case in ("c1", "c2")]
    (condition,) = summarize(cached, [TrialRow("c1", "a", 0), TrialRow("c2", "a", 0)]).conditions
    assert (condition.judge_input_tokens, condition.judge_output_tokens) == (0, 0)
    assert condition.judge_cost_usd == 0.0


def _pass_rate_coverage(case_rates: np.ndarray, epochs: int, runs: int,
                        rng: np.random.Generator) -> float:
    """Share of `runs` runs over the cases (each case passing each epoch at its own rate)
    whose printed pass-rate interval holds the pass rate of all the cases."""
    truth = float(case_rates.mean())
    held = 0
    for _ in range(runs):
        cases = rng.choice(case_rates, size=len(case_rates) // 100)
        passed = rng.random((len(cases), epochs)) < cases[:, None]
        data = rows({f"c{i}": [float(verdict) for verdict in row]
                     for i, row in enumerate(passed)})
        (stats,) = summarize(data, trials(data), per_case=True).scores
        assert stats.pass_rate_ci is not None and stats.mean_ci == stats.pass_rate_ci
        held += stats.pass_rate_ci.contains(truth)
    return held / runs


@pytest.mark.parametrize(("case_rates", "epochs"), [
    (np.random.default_rng(1).beta(0.5, 0.5, 3000), 3),    # cases mostly all-or-nothing
    (np.random.default_rng(2).beta(2.0, 2.0, 2000), 3),    # cases between
    (np.random.default_rng(3).beta(5.0, 1.0, 3000), 5),    # most cases pass mostly
    (np.full(2000, 0.5), 3),                               # every case a coin
    (np.full(5000, 0.9), 2),
], ids=["all-or-nothing", "between", "mostly-pass", "coins", "same-0.9"])
def test_with_epochs_the_pass_rate_interval_covers_about_95_percent_of_the_time(
        case_rates: np.ndarray, epochs: int) -> None:
    """Seeded simulation at 20-50 cases: 95.3%, 96.0%, 95.7%, 97.9%, 96.9% in the order
    above (coins are the widest: every case at one rate, the cap binds and t's critical
    value adds its width on top). Regression: the Wilson interval of the cases alone,
    each a share of a success, covered 98-100% of the time (99.8% with cases between,
    100% with coins): as wide as if the epochs told nothing."""
    coverage = _pass_rate_coverage(case_rates, epochs, 1500, np.random.default_rng(len(case_rates)))
    assert 0.93 <= coverage <= 0.98, coverage


def test_with_epochs_the_pass_rate_interval_is_never_narrower_than_all_verdicts_allow() -> None:
    # each case passed all its epochs or none: the epochs told nothing beyond the case
    same = rows({f"c{i}": [float(i % 3 == 0)] * 4 for i in range(30)})
    (stats,) = summarize(same, trials(same), per_case=True).scores
    assert _bounds(stats.pass_rate_ci) == pytest.approx(_bounds(wilson(10, 30, t975(29))))
    # each case passed half its epochs: they are as good as independent verdicts, no more
    coins = rows({f"c{i}": [1.0, 0.0] * 2 for i in range(30)})
    (stats,) = summarize(coins, trials(coins), per_case=True).scores
    assert _bounds(stats.pass_rate_ci) == pytest.approx(_bounds(wilson(60, 120, t975(29))))


def test_a_case_with_errored_epochs_counts_only_its_judged_epochs_in_the_pass_rate_interval(
        ) -> None:
    """Regression: the interval's cap was every verdict of the run (60 here), as if each
    case's share were averaged by verdict; a case of 2 judged epochs weighs as much as one
    of 10, so independent verdicts allow 10^2 / (5/2 + 5/10) = 33.3 cases' worth."""
    short = {f"c{i}": [1.0, 0.0] + [None] * 8 for i in range(5)}  # 8 epochs errored
    full = {f"c{i}": [1.0, 0.0] * 5 for i in range(5, 10)}
    data = rows(short | full)
    (stats,) = summarize(data, trials(data), per_case=True).scores
    assert stats.pass_rate == 0.5 and stats.judged == 60
    effective = 100 / 3
    assert _bounds(stats.pass_rate_ci) == pytest.approx(
        _bounds(wilson(effective / 2, effective, t975(9))))


def _bounds(interval: Interval | None) -> tuple[float, float]:
    assert interval is not None
    return interval.low, interval.high


def test_regression_the_p95_latency_of_20_trials_is_not_the_slowest_trial() -> None:
    """It was read at index int(0.95 n), the slowest of 20 trials: one hung call made it the
    p95; it is now numpy's percentile."""
    latencies = [10.0 * (i + 1) for i in range(19)] + [30_000.0]
    rows_ = [TrialRow(case_id=f"c{i}", condition="a", epoch=0, latency_ms=ms)
             for i, ms in enumerate(latencies)]
    (stats,) = summarize([], rows_).conditions
    assert stats.latency_ms_p95 == pytest.approx(float(np.percentile(latencies, 95)))
    assert stats.latency_ms_p95 is not None and stats.latency_ms_p95 < 30_000.0


def test_regression_a_trial_whose_target_failed_is_an_error_in_its_tag_and_difficulty_rows(
        ) -> None:
    """It was an error for its scorer's row, but its tag's and difficulty's rows left it out
    unsaid: 'even · b · n 9' beside no error, where the case had not been scored."""
    from assay.analysis.summary import SummaryBuilder
    from assay.output import Output
    from assay.records import TrialRecord

    scored = [ScoreRow(case_id="x", condition="a", epoch=0, scorer="s", value=1.0, passed=True,
                       error=None, tags=("t",), difficulty="hard")]
    failed = TrialRow(case_id="y", condition="a", epoch=0, error="target failed",
                      tags=("t",), difficulty="hard")
    from_rows = summarize(scored, [*trials(scored), failed])
    builder = SummaryBuilder()
    builder.add_record(TrialRecord("x", "a", 0, None, None, Output("yes"), ["t"], "hard",
                                   {}))
    builder.add_score(scored[0])
    builder.add_record(TrialRecord("y", "a", 0, None, None, Output("", error="target failed"),
                                   ["t"], "hard", {}))
    from_records = builder.summary()
    for summary in (from_rows, from_records):
        (main,) = summary.scores
        [(tag, by_tag)] = summary.by_tag
        [(level, by_level)] = summary.by_difficulty
        assert (tag, level) == ("t", "hard")
        for stats in (main, by_tag, by_level):
            assert (stats.n, stats.errors) == (1, 1), stats


def test_a_mean_interval_is_bounded_by_the_scale_every_value_lies_on() -> None:
    """Regression: grades on 0..10 and one False (a 0 on 0..1) read `6.350 [4.503–1.000]`,
    the interval clipped to the scale of the value that came last."""
    data = [ScoreRow(case_id=f"c{i}", condition="a", epoch=0, scorer="s", value=5.0 + i % 4,
                     passed=None, error=None, scale=(0, 10)) for i in range(9)]
    data.append(ScoreRow(case_id="c9", condition="a", epoch=0, scorer="s", value=0.0,
                         passed=False, error=None, scale=(0, 1)))
    (stats,) = summarize(data, trials(data)).scores
    assert stats.scale == (0.0, 10.0)
    assert stats.mean_ci is not None and stats.mean_ci.method == "t"
    assert stats.mean_ci.low < stats.mean < stats.mean_ci.high < 10
