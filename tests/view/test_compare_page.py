"""What the compare page says about its history charts: which of A and B they mark."""

from __future__ import annotations

from assay.records import RunRecord
from assay.view.compare_page import HISTORY_RUNS, marked_note


def _run(run_id: str, experiment: str = "shop", kind: str = "eval") -> RunRecord:
    return RunRecord(id=run_id, experiment=experiment, kind=kind, status="completed",
                     started_at="2025-03-01T09:00:00+00:00")


def test_both_runs_drawn_are_said_to_be_drawn_larger() -> None:
    assert marked_note(_run("a"), _run("b"), {"a", "b"}) == "A and B drawn larger."


def test_regression_a_run_the_charts_leave_out_is_named_with_why() -> None:
    """The note read 'A and B drawn larger' whatever the charts held: the newest eval runs
    of B's experiment, without a rejudge B, an A of another experiment or an older A."""
    assert marked_note(_run("a"), _run("b", kind="rejudge"), {"a"}) == (
        "A drawn larger; B is not drawn: it is a rejudge run.")
    assert marked_note(_run("a", experiment="docs"), _run("b"), {"b"}) == (
        "B drawn larger; A is not drawn: it is a run of docs.")
    assert marked_note(_run("a"), _run("b"), {"b"}) == (
        f"B drawn larger; A is not drawn: it is older than the {HISTORY_RUNS} newest runs drawn.")
