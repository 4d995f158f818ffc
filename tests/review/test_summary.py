"""A stored run's summary: a scorer with no value anywhere is said out loud, counted right."""

from __future__ import annotations

from assay.analysis.summary import summarize
from assay.records import ScoreRow, TrialRow
from assay.review.summary import scorer_warnings, unmeasured_warnings


def test_a_scorer_that_failed_everywhere_is_counted_on_the_trials_with_an_answer() -> None:
    """Regression: "errored on all 100 of its trials" counted a trial that had no answer."""
    scores = [ScoreRow(f"q{i}", "default", 0, "judge", None, None, "HTTP 400")
              for i in range(1, 10)]
    trials = [TrialRow("q0", "default", 0, error="the target broke"),
              *(TrialRow(f"q{i}", "default", 0) for i in range(1, 10))]
    [warning] = scorer_warnings(summarize(scores, trials, ["judge"]), report_md=True)
    assert "it errored on all 9 of its trials with an answer" in warning


def test_a_scorer_that_never_got_an_answer_is_no_scorer_failure() -> None:
    trials = [TrialRow("q0", "default", 0, error="the target broke")]
    assert scorer_warnings(summarize([], trials, ["judge"]), report_md=True) == []


def test_a_condition_whose_target_failed_on_every_trial_is_said_before_the_scorers() -> None:
    trials = [*(TrialRow(f"q{i}", "docs", 0, error="RuntimeError: boom") for i in range(3)),
              *(TrialRow(f"q{i}", "memory", 0) for i in range(3))]
    scores = [ScoreRow(f"q{i}", "memory", 0, "judge", 1.0, True, None) for i in range(3)]
    [warning] = unmeasured_warnings(summarize(scores, trials, ["judge"]), report_md=True)
    assert warning.startswith("condition docs has no result: all 3 of its trials failed "
                              "(first: q0: RuntimeError: boom;")
    some_answered = [*trials[:2], TrialRow("q2", "docs", 0), *trials[3:]]
    q2 = ScoreRow("q2", "docs", 0, "judge", 0.0, False, None)
    assert unmeasured_warnings(summarize([*scores, q2], some_answered, ["judge"]),
                               report_md=True) == []


def test_a_condition_whose_every_scorer_failed_has_no_result_as_the_run_stop_says() -> None:
    """The warning and the run's stop (`store.conditions_without_verdict`) read a condition
    alike: no trial of it gave a verdict, whether the target or every scorer failed."""
    trials = [TrialRow(f"q{i}", c, 0) for c in ("docs", "memory") for i in range(2)]
    scores = [ScoreRow(f"q{i}", "docs", 0, "judge", None, None, "reply unreadable")
              for i in range(2)]
    scores += [ScoreRow(f"q{i}", "memory", 0, "judge", 1.0, True, None) for i in range(2)]
    [warning] = unmeasured_warnings(summarize(scores, trials, ["judge"]), report_md=True)
    assert warning.startswith("condition docs has no result: all 2 of its trials failed "
                              "(first: q0 (docs): reply unreadable;"), warning
    # no scorer: nothing to miss
    assert unmeasured_warnings(summarize([], trials, []), report_md=True) == []


def test_the_errors_are_pointed_at_in_report_md_only_when_the_run_has_one() -> None:
    """A run stopped before its files were written has no report.md to see Errors in."""
    trials = [*(TrialRow(f"q{i}", "docs", 0, error="RuntimeError: boom") for i in range(2)),
              *(TrialRow(f"q{i}", "memory", 0) for i in range(2))]
    scores = [*(ScoreRow(f"q{i}", "memory", 0, "judge", None, None, "HTTP 400")
                for i in range(2)),
              *(ScoreRow(f"q{i}", "memory", 0, "exact", 1.0, True, None) for i in range(2))]
    summary = summarize(scores, trials, ["exact", "judge"])
    assert unmeasured_warnings(summary, report_md=False) == [
        ("condition docs has no result: all 2 of its trials failed "
         "(first: q0: RuntimeError: boom)"),
        ("scorer judge has no value: it errored on all 2 of its trials with an answer "
         "(first: q0 (memory): HTTP 400)")]
    assert [w.endswith("; see Errors in report.md)")
            for w in unmeasured_warnings(summary, report_md=True)] == [True, True]
