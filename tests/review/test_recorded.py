"""A run's review is recorded on the run: its gates, warnings, usage and baseline come back
as they were, and a run reviewed before they were recorded is judged by its config's gates."""

from __future__ import annotations

from pathlib import Path

import assay
from assay import Case
from assay.records import RunRecord
from assay.review.finish import review_stored
from assay.review.recorded import RecordedReview
from assay.review.result import GateBar, GateBars, GateResult
from assay.store import Store

DATA = [{"id": f"c{i}", "input": "q", "expected": "A" if i < 3 else "B"} for i in range(5)]


def answer(case: Case) -> str:
    return "A"


def test_gates_judged_later_are_added_and_those_already_judged_keep_their_result() -> None:
    first = GateResult("contains@a pass rate", False, "50.0% (min 80.0%)", "min 80.0%")
    recorded = RecordedReview([first], ["a warning"], {"calls": 3}, None)
    again = GateResult("contains@a pass rate", True, "judged again", "min 80.0%")
    looser = GateResult("contains@a pass rate", True, "50.0% (min 40.0%)", "min 40.0%")
    bars = GateBars((GateBar("contains", "a", "pass_rate", 0.4),))
    added = recorded.adding([again, looser], baseline="b", bars=bars)
    assert added.gates == [first, looser]
    assert added.bars == bars
    assert (added.warnings, added.usage, added.baseline) == (["a warning"], {"calls": 3}, "b")


def test_a_recorded_review_reads_back_as_it_was_stored() -> None:
    recorded = RecordedReview([GateResult("contains@a pass rate", False, "50.0% (min 80.0%)",
                                          "min 80.0%")],
                              ["a warning"], {"calls": 3}, "a",
                              GateBars((GateBar("contains", None, "pass_rate", 0.8),
                                        GateBar("judge", "a", "mean", 7.0))))
    run = RunRecord(id="r", experiment="e", kind="eval", status="completed",
                    started_at="2026-01-01T00:00:00", review=recorded.to_dict())
    assert RecordedReview.of(run) == recorded
    assert RecordedReview.of(RunRecord(id="r", experiment="e", kind="eval", status="completed",
                                       started_at="2026-01-01T00:00:00")) is None


def test_a_stored_run_shows_the_gates_it_was_judged_by_and_a_run_without_them_its_config_gates(
        tmp_path: Path) -> None:
    store = tmp_path / "assay.db"
    review = assay.evaluate("recorded", data=DATA, task=answer, scorers=["exact_match"],
                            store=store, reports=False,
                            gates=[{"scorer": "exact_match", "min_pass_rate": 0.9}])
    assert [g.passed for g in review.gates] == [False]
    opened = Store(str(store))
    try:
        run = opened.get_run(review.run.id)
        assert run is not None and RecordedReview.of(run) is not None
        assert review_stored(opened, run).gates == review.gates
        older = RunRecord(**{**vars_of(run), "review": None})  # reviewed before recording
        assert [g.gate for g in review_stored(opened, older).gates] == [
            g.gate for g in review.gates]
    finally:
        opened.close()


def vars_of(run: RunRecord) -> dict[str, object]:
    from dataclasses import asdict

    return asdict(run)
