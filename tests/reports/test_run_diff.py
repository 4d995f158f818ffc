"""A run against an earlier one: what its cases that changed are called."""

from __future__ import annotations

from assay.analysis.conditions import collect_cases, compare_conditions
from assay.analysis.run_diff import RunDiff, RunRef, diff_runs
from assay.analysis.summary import summarize
from assay.records import RunRecord, ScoreRow, TrialRow
from assay.review.result import Review
from tests.review.renderings import assert_every_rendering_shows, assert_no_rendering_shows


def epochs_rows(passes: dict[str, int]) -> list[ScoreRow]:
    """Three epochs per case, each case passing in as many as `passes` says."""
    return [ScoreRow(case, "only", epoch, "exact", float(epoch < n), epoch < n, None)
            for case, n in passes.items() for epoch in range(3)]


def review_with(before: list[ScoreRow], after: list[ScoreRow]) -> Review:
    diff: RunDiff = diff_runs(collect_cases(before), collect_cases(after),
                              run_a=RunRef("run-a", "exp", "t0", "h"),
                              run_b=RunRef("run-b", "exp", "t1", "h"))
    trials = [TrialRow(r.case_id, r.condition, r.epoch) for r in after]
    return Review(run=RunRecord("run-b", "exp", "eval", "completed", "t1"),
                  summary=summarize(after, trials, ["exact"], ["only"]),
                  comparisons=compare_conditions(collect_cases(after), ["only"]),
                  previous=diff, gates=[])


def test_with_epochs_a_case_that_passes_less_often_is_not_called_newly_failing() -> None:
    """q1 passed 1 epoch of 3 before and none now: it failed before too. Called `newly
    failing`, with more cases `newly passing` than failing beside a pass rate that fell."""
    before = epochs_rows({"q1": 1, "q2": 3, "q3": 0, "q4": 2})
    after = epochs_rows({"q1": 0, "q2": 1, "q3": 1, "q4": 3})
    review = review_with(before, after)
    assert_every_rendering_shows(review, "passing less often", "passing more often",
                                 only=["terminal", "report.md", "report.html"])
    assert_no_rendering_shows(review, "newly failing", "newly passing")


def test_with_one_verdict_a_case_a_flipped_case_is_newly_failing() -> None:
    before = [ScoreRow(f"q{i}", "only", 0, "exact", 1.0, True, None) for i in range(3)]
    after = [ScoreRow(f"q{i}", "only", 0, "exact", float(i > 0), i > 0, None) for i in range(3)]
    assert_every_rendering_shows(review_with(before, after), "newly failing",
                                 only=["terminal", "report.md", "report.html"])
