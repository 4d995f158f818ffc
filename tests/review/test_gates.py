"""Gates read every trial: errors can never make a gate pass."""

from __future__ import annotations

from assay.analysis.summary import ConditionStats, RunSummary, ScoreStats
from assay.config.models import GateConfig
from assay.review.gates import check_gates, parse_fail_under


def summary(**stats: object) -> RunSummary:
    base = {"scorer": "contains", "condition": "a", "n": 10, "errors": 0, "mean": 0.9,
            "passed": 9, "judged": 10, "pass_rate": 0.9}
    return RunSummary(scores=[ScoreStats(**{**base, **stats})],
                      conditions=[ConditionStats(condition="a")], by_tag=[],
                      by_difficulty=[], values={})


def test_a_pass_rate_gate_counts_errored_trials_as_not_passed() -> None:
    (result,) = check_gates([GateConfig(scorer="contains", min_pass_rate=0.8)],
                            summary(n=1, passed=1, judged=1, pass_rate=1.0, errors=14))
    assert not result.passed
    assert "1/15 passed" in result.detail and "14 errored trials" in result.detail


def test_a_mean_gate_fails_on_errors_unless_it_tolerates_them() -> None:
    strict, = check_gates([GateConfig(scorer="contains", min_mean=0.5)], summary(errors=2))
    assert not strict.passed and "2 trials errored" in strict.detail
    tolerant = check_gates([GateConfig(scorer="contains", min_mean=0.5, max_error_rate=0.2)],
                           summary(errors=2))
    assert [g.passed for g in tolerant] == [True, True]


def test_a_gate_over_no_trials_fails() -> None:
    (result,) = check_gates([GateConfig(scorer="contains", min_pass_rate=0.1)],
                            summary(n=0, errors=0, passed=0, judged=0, pass_rate=None, mean=None))
    assert not result.passed and "no trials" in result.detail


def test_a_clean_run_passes_and_says_by_how_much() -> None:
    (result,) = check_gates([parse_fail_under("contains@a=0.8")], summary())
    assert result.passed and result.detail == "90.0% = 9/10 passed (min 80.0%)"
