"""Two stored runs compared: what the comparison says beside its numbers."""

from __future__ import annotations

from pathlib import Path

from assay.case import Case
from assay.output import Output
from assay.review.comparing import diff_stored_runs
from assay.score import Score
from assay.store import Store
from assay.trial import TrialResult


def _stored_run(store: Store, run_id: str, pack_hash: str) -> None:
    store.create_run(id=run_id, experiment="docs", status="completed", dataset_hash="d1",
                     config={"name": "docs"}, pack_hashes={"go-docs": pack_hash},
                     started_at=f"2025-03-01T09:0{run_id[-1]}:00+00:00")
    store.write_trials(run_id, [
        TrialResult(Case(id=f"c{i}", input="q"), "pack", 0, Output(text="a"),
                    {"exact": Score.binary(i % 2 == 0, "compared")}) for i in range(4)])


def _notes(tmp_path: Path, hash_a: str, hash_b: str) -> list[str]:
    store = Store(str(tmp_path / "assay.db"))
    try:
        _stored_run(store, "run-1", hash_a)
        _stored_run(store, "run-2", hash_b)
        run_a, run_b = store.get_run("run-1"), store.get_run("run-2")
        assert run_a is not None and run_b is not None
        return diff_stored_runs(store, run_a, run_b).notes
    finally:
        store.close()


def test_a_knowledge_pack_edited_between_two_runs_is_named_in_their_comparison(
        tmp_path: Path) -> None:
    """Regression: each run kept its packs' content hashes, yet comparing a run with the one
    before it said nothing when a pack's documents had been edited in between, so a move in
    the scores read as the agent's alone."""
    notes = _notes(tmp_path, "a" * 64, "b" * 64)
    assert notes == [(f"knowledge pack 'go-docs' changed between the runs: its documents hash "
                      f"{'a' * 12} in run run-1 and {'b' * 12} in run run-2, so the conditions "
                      "that read it were given other documents")]


def test_a_knowledge_pack_left_as_it_was_adds_no_note(tmp_path: Path) -> None:
    assert _notes(tmp_path, "a" * 64, "a" * 64) == []
