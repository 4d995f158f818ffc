"""The run list's choices made for the reader: which two runs "compare" starts with."""

from __future__ import annotations

from assay.records import RunRecord
from assay.view.runs_page import compare_pair


def _run(run_id: str, experiment: str, status: str = "completed",
         kind: str = "eval") -> RunRecord:
    return RunRecord(id=run_id, experiment=experiment, kind=kind, status=status,
                     started_at="2025-03-01T09:00:00+00:00")


def test_regression_compare_starts_with_the_newest_run_and_the_one_before_it_of_its_experiment(
        ) -> None:
    """Newest first, the list preselected 'new' and the interrupted run of another
    experiment below it, a comparison that reads only 'cannot be compared: different
    dataset'."""
    runs = [_run("new", "shop"), _run("stopped", "docs", status="interrupted"),
            _run("other", "docs"), _run("again", "shop", kind="rejudge"), _run("old", "shop")]
    assert compare_pair(runs) == ["new", "old"]


def test_compare_starts_with_one_run_when_its_experiment_has_no_other() -> None:
    assert compare_pair([_run("new", "shop"), _run("other", "docs")]) == ["new"]
    assert compare_pair([_run("live", "shop", status="running")]) == []
