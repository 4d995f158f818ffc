"""A run's status as it is shown: doubted when the run has probably stopped."""

from __future__ import annotations

from assay.analysis.history import HistoryPoint
from assay.run_status import shown_status
from assay.store.stalled_runs import Stalled


def test_a_stalled_run_reads_doubted_and_any_other_as_its_row_says() -> None:
    assert shown_status("running", stalled=True) == "running?"
    assert shown_status("reviewing", stalled=True) == "reviewing?"
    assert shown_status("running", stalled=False) == "running"


def test_assay_runs_history_and_view_show_a_stalled_run_by_the_same_rule() -> None:
    stalled = Stalled("r1", "running", process_gone=True, quiet=None)
    point = HistoryPoint(run_id="r1", started_at="2026-01-01T00:00", status="running",
                         git_commit=None, metrics={}, stale=True)
    assert stalled.shown_status == point.shown_status == "running?"
