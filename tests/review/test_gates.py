"""Gates read every trial: errors can never make a gate pass."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from assay.analysis.conditions import ScorerCases, collect_cases
from assay.analysis.run_diff import RunDiff, RunRef, diff_runs
from assay.analysis.summary import ConditionStats, RunSummary, ScoreStats, summarize
from assay.config.models import GateConfig, RegressionSpec
from assay.errors import UserError
from assay.records import ScoreRow, TrialRow
from assay.reports.formatting import fmt_mean
from assay.review.gates import (
    beside_bound,
    fail_on_regression,
    fail_under_text,
    gate_bars,
    judge_regression,
    parse_fail_under,
    threshold_results,
)
from assay.store import Store
from tests.cli.evalproject import assay, write_project


def summary(**stats: object) -> RunSummary:
    base = {"scorer": "contains", "condition": "a", "n": 10, "errors": 0, "mean": 0.9,
            "passed": 9, "judged": 10, "pass_rate": 0.9, "pass_rate_with_errors": 0.9,
            "pass_rate_with_errors_n": 10}
    scores = ScoreStats(**{**base, **stats})
    return RunSummary(scores=[scores],
                      conditions=[ConditionStats(condition="a",
                                                 trials=scores.n + scores.errors)], by_tag=[],
                      by_difficulty=[], values={})


def test_a_pass_rate_gate_counts_errored_trials_as_not_passed() -> None:
    (result,) = threshold_results([GateConfig(scorer="contains", min_pass_rate=0.8)],
                            summary(n=1, passed=1, judged=1, pass_rate=1.0, errors=14,
                                    pass_rate_with_errors=1 / 15, pass_rate_with_errors_n=15))
    assert not result.passed
    assert "6.7% passed over 15 cases" in result.detail and "14 errored trials" in result.detail


def test_a_mean_gate_fails_on_errors_unless_it_tolerates_them() -> None:
    strict, = threshold_results([GateConfig(scorer="contains", min_mean=0.5)], summary(errors=2))
    assert not strict.passed and "2 trials errored" in strict.detail
    tolerant = threshold_results([GateConfig(scorer="contains", min_mean=0.5, max_error_rate=0.2)],
                           summary(errors=2))
    assert [g.passed for g in tolerant] == [True, True]


def test_a_gate_over_no_trials_fails() -> None:
    (result,) = threshold_results([GateConfig(scorer="contains", min_pass_rate=0.1)],
                            summary(n=0, errors=0, passed=0, judged=0, pass_rate=None, mean=None))
    assert not result.passed and "no trials" in result.detail


def test_a_clean_run_passes_and_says_by_how_much() -> None:
    (result,) = threshold_results([parse_fail_under("contains@a=0.8")], summary())
    assert result.passed and result.detail == "90.0% passed over 10 cases (min 80.0%)"


def test_with_epochs_the_gate_and_the_table_read_the_same_per_case_pass_rate() -> None:
    # issue case: a target errored on 2 of 3 epochs of one case; the table said 48.6%
    # (over trials) while the mean and the comparison said 50.0% (per case first)
    rows = [ScoreRow(f"c{i}", "a", e, "contains", float(p), bool(p), None)
            for i, pattern in enumerate([[1, 1, 1], [0, 0, 0], [1, 0, 1], [0, 1, 0]])
            for e, p in enumerate(pattern, start=1)]
    rows = [r for r in rows if not (r.case_id == "c0" and r.epoch > 1)]
    errored = [TrialRow("c0", "a", 2, error="boom"), TrialRow("c0", "a", 3, error="boom")]
    trials = [TrialRow(r.case_id, "a", r.epoch) for r in rows] + errored
    stats = summarize(rows, trials, per_case=True).get("contains", "a")
    assert stats is not None
    assert stats.pass_rate == stats.mean == 0.5  # (1 + 0 + 2/3 + 1/3) / 4
    assert stats.errors == 2
    # the gate counts the errored epochs as not passed, per case first: (1/3 + 0 + 2/3 + 1/3) / 4
    assert stats.pass_rate_with_errors == 1 / 3
    (gate,) = threshold_results([GateConfig(scorer="contains", min_pass_rate=0.3)],
                          summarize(rows, trials, per_case=True))
    assert gate.passed and "33.3% passed over 4 cases" in gate.detail


def test_regression_a_pass_rate_gate_counts_the_cases_its_rate_is_over() -> None:
    # "66.7% passed over 4 cases": the rate was over 6 cases, 2 of which errored on every trial
    rows = [ScoreRow(f"c{i}", "a", 1, "contains", float(p), bool(p), None)
            for i, p in enumerate([1, 1, 1, 1])]
    trials = [TrialRow(r.case_id, "a", 1) for r in rows]
    trials += [TrialRow("c4", "a", 1, error="boom"), TrialRow("c5", "a", 1, error="boom")]
    (gate,) = threshold_results([GateConfig(scorer="contains", min_pass_rate=0.5)],
                                summarize(rows, trials))
    assert "66.7% passed over 6 cases" in gate.detail and "2 errored trials" in gate.detail


@pytest.mark.parametrize("spec", ["contains=1.2.3", "contains=e", "contains=--1",
                                  "contains.mean=1e999", "contains.mean=-1e999"])
def test_a_fail_under_value_that_is_not_a_finite_number_is_a_usage_error(spec: str) -> None:
    """Regression: `--fail-under contains=1.2.3` ended in "internal error: ValueError"
    (exit 3), and `contains.mean=1e999` made a gate no run could pass ("min inf")."""
    with pytest.raises(UserError, match="is not a finite number"):
        parse_fail_under(spec)


@pytest.mark.parametrize(("spec", "said"), [
    ("contains=typo", "--fail-under 'contains=typo': 'typo' is not a number"),
    ("contains@pack=", "--fail-under 'contains@pack=': no value after '='"),
    ("contains@pack=80", ("--fail-under 'contains@pack=80': 80 is not a pass rate, which is "
                         "between 0 and 1 (80% is 0.8); a mean score is gated with "
                         "contains.mean@pack=80")),
])
def test_a_fail_under_value_error_says_what_is_wrong_with_the_value(spec: str,
                                                                    said: str) -> None:
    """Regression: `contains=typo` was told the form expected (SCORER...=VALUE), as if the
    name were wrong, and `contains=80` 'a pass rate is between 0 and 1', naming neither the
    value nor the mean that 80 may have meant."""
    with pytest.raises(UserError) as raised:
        parse_fail_under(spec)
    assert str(raised.value) == said


@pytest.mark.parametrize("spec", ["contains=0.8", "judge_score.mean@pack=7", "x@gpt-4.1=1"])
def test_a_fail_under_gate_is_written_back_as_it_was_given(spec: str) -> None:
    assert fail_under_text(parse_fail_under(spec)) == spec


def test_a_gate_with_a_mean_of_nan_is_a_config_error() -> None:
    with pytest.raises(ValidationError, match="finite number"):
        GateConfig(scorer="contains", min_mean=float("nan"))


def _shown_numbers(detail: str) -> list[float]:
    """The numbers a gate's detail shows, in order (a percentage as its fraction)."""
    import re

    return [float(n) / 100 if pct else float(n)
            for n, pct in re.findall(r"(\d+(?:\.\d+)?)(%)?", detail.split(";")[0])]


@pytest.mark.parametrize(("mean", "minimum"), [(12.345, 12.34), (6.4996, 6.5), (84.96, 85.0),
                                               (0.12349, 0.1235)])
def test_regression_a_mean_gate_never_shows_its_mean_on_the_wrong_side_of_its_minimum(
        mean: float, minimum: float) -> None:
    """A mean of 12.345 read "12.3 over 3 scored cases (min 12.34)" beside PASS, and one of
    6.4996 "6.5 (min 6.5)" beside FAIL: three significant digits rounded it across the bound."""
    (gate,) = threshold_results([GateConfig(scorer="contains", min_mean=minimum)],
                                summary(mean=mean))
    shown, _cases, bound = _shown_numbers(gate.detail)
    assert bound == minimum
    assert gate.passed == (mean >= minimum) == (shown >= bound), gate.detail


@pytest.mark.parametrize(("rate", "minimum"), [(0.79996, 0.8), (0.8333, 0.83333),
                                               (0.83336, 0.8333)])
def test_regression_a_pass_rate_gate_never_rounds_its_rate_onto_its_minimum(
        rate: float, minimum: float) -> None:
    """79.996% read "80.0% passed over 10 cases (min 80.0%)" beside FAIL."""
    (gate,) = threshold_results([GateConfig(scorer="contains", min_pass_rate=minimum)],
                                summary(pass_rate=rate, pass_rate_with_errors=rate))
    shown, _cases, bound = _shown_numbers(gate.detail)
    assert gate.passed == (rate >= minimum) == (shown >= bound), gate.detail


def test_regression_an_error_rate_gate_never_rounds_its_rate_onto_its_maximum() -> None:
    """1 error in 1,999 trials read "0.1% (max 0.1%)" beside FAIL."""
    gates = threshold_results([GateConfig(scorer="contains", min_mean=0.5,
                                          max_error_rate=0.0005)],
                              summary(n=1998, errors=1))
    (gate,) = [g for g in gates if g.gate.endswith("error rate")]
    shown, bound = _shown_numbers(gate.detail)
    assert not gate.passed and shown > bound, gate.detail


@pytest.mark.parametrize(("change", "max_drop", "shown"), [(-2.04, 2, "-2.04"), (-1.96, 2, "-2.0"),
                                                          (-1.999, 2, "-2.0"), (3.0, 2, "+3.0")])
def test_a_regression_gates_change_is_shown_on_its_side_of_the_largest_drop_allowed(
        change: float, max_drop: float, shown: str) -> None:
    """A drop of 2.04pp read "-2.0pp (max drop 2pp)" beside the FAIL it caused."""
    assert beside_bound(change, -max_drop, signed=True) == (shown, f"{-max_drop:g}")


def epochs_with_errors() -> RunSummary:
    """Ten cases, three epochs: c0 errors on every epoch, c1 on one, c2 fails every epoch."""
    rows, trials = [], []
    for i in range(10):
        for epoch in range(3):
            if i == 0 or (i == 1 and epoch == 0):
                trials.append(TrialRow(f"c{i}", "a", epoch, error="boom"))
                continue
            trials.append(TrialRow(f"c{i}", "a", epoch))
            rows.append(ScoreRow(f"c{i}", "a", epoch, "contains", float(i != 2), i != 2, None))
    return summarize(rows, trials, per_case=True)


def test_regression_an_error_rate_gate_with_epochs_is_a_share_of_trials() -> None:
    """With 3 epochs, 4 errored trials of 30 read 30.8% (4 over 9 cases + 4 trials) and
    failed a `max_error_rate: 0.2` the run was within."""
    (gate,) = [g for g in threshold_results(
        [GateConfig(scorer="contains", min_mean=0.5, max_error_rate=0.2)], epochs_with_errors())
        if g.gate.endswith("error rate")]
    assert gate.passed, gate.detail
    assert gate.detail == "13.3% (max 20.0%); 4 of 30 trials errored"


def test_a_pass_rate_gate_with_errors_says_how_it_meets_the_score_tables_pass_rate() -> None:
    """The table read 88.9% over 9 cases, the gate 76.7% over 10: the gate names the
    table's number and why its own is lower."""
    summary = epochs_with_errors()
    stats = summary.get("contains", "a")
    assert stats is not None and stats.judged_cases == 9
    (gate,) = threshold_results([GateConfig(scorer="contains", min_pass_rate=0.7)], summary)
    assert gate.detail == ("76.7% passed over 10 cases (min 70.0%); 4 errored trials count "
                           "as not passed (without them: 88.9% over the 9 cases scored, the "
                           "score table's pass rate)")


def test_a_gate_over_one_case_counts_it_in_the_singular() -> None:
    """'100.0% passed over 1 cases' read on the terminal, in report.md and in the viewer."""
    (rate,) = threshold_results([GateConfig(scorer="contains", min_pass_rate=0.5)],
                                summary(n=1, passed=1, judged=1, judged_cases=1, pass_rate=1.0,
                                        pass_rate_with_errors=0.5, pass_rate_with_errors_n=2,
                                        errors=1))
    assert rate.detail.startswith("50.0% passed over 2 cases (min 50.0%); 1 errored trial "
                                  "counts as not passed (without it: 100.0% over the 1 case "
                                  "scored")
    (mean,) = threshold_results([GateConfig(scorer="contains", min_mean=0.5)],
                                summary(n=1, errors=1))
    assert "over 1 scored case (min" in mean.detail
    assert "1 trial errored and a mean over the rest would hide it" in mean.detail
    assert mean.detail.endswith("(a gate written in the config tolerates errors up to its "
                                "max_error_rate; --fail-under has none)")


def condition_diff(errored_before: bool, errored_now: bool) -> RunDiff:
    """Two runs of conditions `agent` (answered in both) and `pack`, whose five cases errored
    (every trial) in the runs said."""
    def cases(pack_errored: bool) -> dict[str, ScorerCases]:
        rows = [ScoreRow(f"q{i}", "agent", 0, "contains", 1.0, True, None) for i in range(5)]
        failed = [TrialRow(f"q{i}", "pack", 0, error="boom") for i in range(5)]
        if not pack_errored:
            rows += [ScoreRow(f"q{i}", "pack", 0, "contains", 1.0, True, None) for i in range(5)]
        return collect_cases(rows, failed if pack_errored else [])
    return diff_runs(cases(errored_before), cases(errored_now),
                     run_a=RunRef("run-a", "exp", "t0", "h"), run_b=RunRef("run-b", "exp", "t1", "h"))


def test_a_regression_gate_fails_on_a_condition_that_answered_before_and_errors_throughout_now(
        ) -> None:
    """Its comparison had no case to pair, was left out of the gate, and the gate passed on
    the other condition alone: `--fail-on-regression` exited 0."""
    results = judge_regression(fail_on_regression().regression, condition_diff(False, True))
    [pack] = [r for r in results if "@pack" in r.gate]
    assert not pack.passed and pack.gate == "regression contains@pack pass rate"
    assert "not compared, no case has a result in both runs" in pack.detail
    assert "5 cases errored in this run and count as a regression: q0, q1" in pack.detail
    assert [r.passed for r in results if "@agent" in r.gate] == [True]


def test_a_regression_gate_names_a_condition_that_errored_throughout_before_and_passes_it(
        ) -> None:
    """A condition broken in the earlier run and mended now has nothing to regress from; it
    failed the gate as 'no metric to compare' when it was the only one."""
    [pack] = [r for r in judge_regression(RegressionSpec(condition="pack"),
                                          condition_diff(True, False))]
    assert pack.passed
    assert pack.detail == ("vs run run-a: not compared, no case has a result in both runs "
                           "(5 errored in run run-a), and no case that answered "
                           "before errors now")


def test_a_condition_or_scorer_the_earlier_run_did_not_score_is_named_and_passed_as_new(
        ) -> None:
    """After `assay run --condition agent`, the next full run's regression gate compared
    `agent` and said nothing of `pack` but a note ('condition pack only in run ...'); a gate
    on `pack` alone failed with 'no metric to compare'. What the earlier run did not score
    has nothing to regress from, as in a first run: it passes, and the gate says so."""
    def cases(conditions: list[str], scorers: list[str]) -> dict[str, ScorerCases]:
        return collect_cases([ScoreRow(f"q{i}", c, 0, s, 1.0, True, None)
                              for s in scorers for c in conditions for i in range(5)])
    diff = diff_runs(cases(["agent"], ["contains"]), cases(["agent", "pack"], ["contains",
                                                                                "regex"]),
                     run_a=RunRef("run-a", "exp", "t0", "h"), run_b=RunRef("run-b", "exp", "t1", "h"))
    results = judge_regression(RegressionSpec(), diff)
    assert [(r.gate, r.passed) for r in results] == [
        ("regression contains@agent pass rate", True),
        ("regression contains@pack pass rate", True),
        ("regression regex@agent pass rate", True),
        ("regression regex@pack pass rate", True)]
    assert results[1].detail == ("run run-a did not score contains on condition pack: "
                                 "nothing to regress from")
    [pack] = judge_regression(RegressionSpec(condition="pack", scorer="contains"), diff)
    assert pack.passed and pack.gate == "regression contains@pack pass rate"


def test_a_regression_gate_on_a_mean_shows_the_delta_its_comparison_shows() -> None:
    """A 0-10 mean that rose by 0.47 read 'mean: +4.7pp' in the gate (its share of the
    scale) beside '+0.470' in the comparison of the same runs."""
    def cases(value: float) -> dict[str, ScorerCases]:
        return collect_cases([ScoreRow(f"q{i}", "a", 0, "judge", value + (i % 3) * 0.5, None,
                                       None, (0.0, 10.0)) for i in range(12)])
    diff = diff_runs(cases(5.0), cases(5.47), run_a=RunRef("run-a", "exp", "t0", "h"),
                     run_b=RunRef("run-b", "exp", "t1", "h"))
    [gate] = judge_regression(RegressionSpec(), diff)
    assert gate.gate == "regression judge@a mean"
    assert gate.detail.startswith("+0.470 (+4.7pp of its scale) vs run run-a")


def test_a_pass_rate_gate_on_a_scorer_without_verdicts_says_so_though_some_trials_errored(
        ) -> None:
    """It read 'no trial got a verdict (18 errored)', as if the errors were why, over a
    scorer that scored 38 cases with values and no verdicts."""
    stats = summary(scorer="python", n=38, errors=18, passed=0, judged=0, pass_rate=None,
                    pass_rate_with_errors=None, pass_rate_with_errors_n=0)
    [gate] = threshold_results([GateConfig(scorer="python", condition="a", min_pass_rate=0.5)],
                               stats)
    assert not gate.passed
    assert gate.detail.startswith("python gives no pass/fail verdicts, only values")
    errored = summary(n=0, errors=4, passed=0, judged=0, pass_rate=None,
                      pass_rate_with_errors=None, pass_rate_with_errors_n=0)
    [gate] = threshold_results([GateConfig(scorer="contains", min_pass_rate=0.5)], errored)
    assert gate.detail == "no trial got a verdict (4 errored)"


def test_a_regression_baseline_of_latest_is_refused_before_any_trial_not_after_every_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `baseline: latest` passed the check made before the run (it was the run
    before), then was this run once stored: the review stopped, exit 2, the run `failed`
    with every trial paid for."""
    store = str(tmp_path / "s.db")
    plain = write_project(tmp_path, {"agent": {"rate": 0.5}}, cases=10)
    assert assay(capsys, "run", str(plain), "--store", store, "--no-progress")[0] == 0
    gated = write_project(tmp_path, {"agent": {"rate": 0.5}}, cases=10, config="gated.yaml",
                          extra={"gates": [{"regression": {"baseline": "latest"}}]})
    code, text = assay(capsys, "run", str(gated), "--store", store, "--no-progress")
    assert code == 2, text
    assert "regression gate baseline 'latest' would be this run itself" in text
    assert "latest~1 is the run before it" in text
    assert len(Store(store).list_runs("coin")) == 1  # refused before a run was started


def test_a_regression_baseline_of_latest_1_is_the_run_before_this_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: with one earlier run, `baseline: latest~1` was refused before the run
    ('only 1 stored'), though once this run is stored it names that earlier run."""
    store = str(tmp_path / "s.db")
    plain = write_project(tmp_path, {"agent": {"rate": 0.5}}, cases=10)
    assert assay(capsys, "run", str(plain), "--store", store, "--no-progress")[0] == 0
    before = Store(store).resolve_run("latest").id
    gated = write_project(tmp_path, {"agent": {"rate": 0.5}}, cases=10, config="gated.yaml",
                          extra={"gates": [{"regression": {"baseline": "latest~1"}}]})
    code, text = assay(capsys, "run", str(gated), "--store", store, "--no-progress")
    assert code == 0, text
    assert f"PASS gate regression exact_match@agent pass rate: +0.0pp vs run {before}" in text


def test_a_regression_gates_change_has_the_digits_the_run_diff_gives_it() -> None:
    """A pass rate that rose from 2,999 of 3,000 to 3,000 read '+0.0pp vs run ...' in the
    gate, beside '99.97% → 100.00%  +0.03pp' in the diff of the same runs under it."""
    def cases(failing: int) -> dict[str, ScorerCases]:
        return collect_cases([ScoreRow(f"q{i}", "a", 0, "contains", float(i >= failing),
                                       i >= failing, None) for i in range(3000)])
    diff = diff_runs(cases(1), cases(0), run_a=RunRef("run-a", "exp", "t0", "h"),
                     run_b=RunRef("run-b", "exp", "t1", "h"))
    [gate] = judge_regression(RegressionSpec(max_drop_pp=0.05), diff)
    assert gate.passed and gate.detail.startswith("+0.03pp vs run run-a")


@pytest.mark.parametrize(("mean", "scale", "minimum"), [(12.346, (0.0, 100.0), 10.0),
                                                        (1.0, (0.0, 1.0), 0.7),
                                                        (0.12349, (0.0, 1.0), 0.1235)])
def test_a_mean_gate_reads_its_mean_as_the_score_table_does(
        mean: float, scale: tuple[float, float], minimum: float) -> None:
    """Regression: a mean of 12.346 on 0..100 read '12.3 over 10 scored cases' in its gate
    beside '12.35' in the score table, and a mean of 1 read '1' beside '1.000'; the gate
    adds digits only where the table's would put it on the wrong side of its minimum."""
    stats = summary(mean=mean, scale=scale)
    (gate,) = threshold_results([GateConfig(scorer="contains", min_mean=minimum)], stats)
    shown = gate.detail.split(" ")[0]
    table = fmt_mean(stats.scores[0]).split(" ")[0]
    assert shown == table if (float(table) >= minimum) == (mean >= minimum) else \
        shown.startswith(table[:-1]) and len(shown) > len(table)


def test_a_pass_rate_gate_reads_its_minimum_as_it_was_set() -> None:
    """Regression: 2,374 of 2,500 (94.96%) against gates at 0.9495 and 0.95 read
    'PASS ... 95.0% passed (min 95.0%)' above 'FAIL ... 94.96% passed (min 95.00%)', and the
    JUnit file named both 'val@b pass rate (min 95.0%)'; an error rate at most 0.0004 was
    named '(max 0.0%)'."""
    gates = [GateConfig(scorer="contains", min_pass_rate=0.9495),
             GateConfig(scorer="contains", min_pass_rate=0.95, max_error_rate=0.0004)]
    low, high, errors = threshold_results(gates, summary(pass_rate=0.9496,
                                                         pass_rate_with_errors=0.9496))
    assert (low.passed, low.detail, low.rule) == (
        True, "94.96% passed over 10 cases (min 94.95%)", "min 94.95%")
    assert (high.passed, high.detail, high.rule) == (
        False, "94.96% passed over 10 cases (min 95.00%)", "min 95.0%")
    assert errors.rule == "max 0.04%"


def test_the_tables_bars_are_every_gates_minimums_on_its_scorer_and_condition() -> None:
    """A gate on no condition holds every condition; a regression gate holds no minimum."""
    bars = gate_bars([GateConfig(scorer="contains", min_pass_rate=0.8),
                      GateConfig(scorer="contains", condition="b", min_pass_rate=0.9,
                                 min_mean=0.7),
                      GateConfig(scorer="other", min_mean=3),
                      fail_on_regression()])
    assert bars.of("contains", "a") == ([0.8], [])
    assert bars.of("contains", "b") == ([0.8, 0.9], [0.7])
    assert bars.of("other", "b") == ([], [3.0])
    assert bars.of("judge_score", "a") == ([], [])


def test_a_regression_gate_that_reads_its_metric_otherwise_than_the_diff_says_why() -> None:
    """Regression: a gate on contains@a alone failed with 'p=0.025 significant' above the
    diff with the same run, which tests all three metrics at once and read the same drop
    '98.3% CI -72.5..+4.1pp  p=0.076  within noise': one change, two verdicts on one page, and
    no interval beside the gate's."""
    def cases(failing: int) -> dict[str, ScorerCases]:
        return collect_cases([ScoreRow(f"q{i}", condition, 0, "contains",
                                       float(not (condition == "a" and i < failing)),
                                       not (condition == "a" and i < failing), None)
                              for condition in ("a", "b", "c") for i in range(12)])
    diff = diff_runs(cases(0), cases(5), run_a=RunRef("run-a", "exp", "t0", "h"),
                     run_b=RunRef("run-b", "exp", "t1", "h"))
    printed = next(e.comparison for e in diff.entries if e.comparison.label_b.endswith("@a"))
    assert not printed.significant and printed.family_size == 3
    [gate] = judge_regression(RegressionSpec(scorer="contains", condition="a"), diff)
    assert not gate.passed and "p=0.025 significant" in gate.detail
    assert gate.detail.endswith(
        "; tested alone: 95% CI -68.0..-7.3pp, where the diff with run run-a, which tests 3 "
        "metrics at once, reads 98.3% CI -72.5..+4.1pp, p=0.076 (Holm, 3) within noise")
    agreeing = judge_regression(RegressionSpec(), diff)  # the diff's own family: one verdict
    assert all(g.passed and "tested" not in g.detail for g in agreeing)


def test_a_regression_gate_on_a_mean_gives_its_share_of_the_scale_the_comparisons_digits() -> None:
    """A 0-10 mean that fell by 0.50004 read '-0.50004 (-5.0pp of its scale)' in the gate,
    the share of a slight drop, beside '-5.0004pp of the scale ... size: large drop' in the
    comparison of the same runs. Both now read -5.0004pp."""
    def cases(drop: float) -> dict[str, ScorerCases]:
        return collect_cases([ScoreRow(f"q{i}", "a", 0, "judge", 5.0 + (i % 3) * 0.5 - drop,
                                       None, None, (0.0, 10.0)) for i in range(12)])
    diff = diff_runs(cases(0.0), cases(0.50004), run_a=RunRef("run-a", "exp", "t0", "h"),
                     run_b=RunRef("run-b", "exp", "t1", "h"))
    [gate] = judge_regression(RegressionSpec(max_drop_pp=2, significant=False), diff)
    [entry] = diff.entries
    assert "(-5.0004pp of the scale)" in entry.comparison.verdict
    assert gate.detail.startswith("-0.50004 (-5.0004pp of its scale) vs run run-a")
    assert not gate.passed
