"""A stored run's summary: a scorer with no value anywhere is said out loud, counted right."""

from __future__ import annotations

from pathlib import Path

from assay import Case, Output, Score
from assay.analysis.summary import summarize
from assay.records import ScoreRow, TrialRow
from assay.review.finish import review_stored
from assay.review.summary import scorer_order, scorer_warnings, unmeasured_warnings
from assay.store import Store
from assay.trial import TrialResult


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


def test_an_interrupted_run_lists_its_scorers_in_its_config_s_order_as_a_completed_one(
        tmp_path: Path) -> None:
    """Regression: a run stopped by Ctrl-C had no stored summary, so `assay report` listed its
    scorers by name (contains, exact_match, regex) and headlined the first of those, where the
    run, had it completed, listed them as its config does (regex, contains, exact_match)."""
    store = Store(str(tmp_path / "assay.db"))
    config = {"name": "order", "scorers": [{"type": "regex", "pattern": "J"},
                                           {"type": "contains", "value": "J"},
                                           {"type": "exact_match", "name": "exact"}]}
    store.create_run(id="r1", experiment="order", status="interrupted",
                     started_at="2025-03-01T09:00:00+00:00", total_trials=10, config=config)
    scores = {name: Score(1.0, passed=True) for name in ("contains", "exact", "regex")}
    store.write_trials("r1", [TrialResult(Case(id=f"c{i}", input="q"), "default", 0,
                                          Output(text="J"), scores) for i in range(3)])
    run = store.get_run("r1")
    assert run is not None
    review = review_stored(store, run)
    store.close()
    assert review.summary.scorer_names == ["regex", "contains", "exact"]
    assert scorer_order(run) == ["regex", "contains", "exact"]  # the viewer's cases page
