"""Finishing a run: its files are written before it is completed, and a failure to write
them is said plainly and repaired by a resume."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest

import assay
from assay import Case
from assay.errors import FileWriteError
from assay.store import Store
from tests.store.counted_reads import count_run_reads, reads_of

DATA = [{"id": f"c{i}", "input": "q", "expected": "A"} for i in range(5)]


def answer(case: Case) -> str:
    return "A"


def test_a_full_disk_while_writing_the_files_keeps_the_run_for_a_resume(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: it ended in 'internal error: OSError ... this is a bug in assay'."""
    out, store = tmp_path / "out", tmp_path / "assay.db"

    def full(descriptor: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with monkeypatch.context() as patched:
        patched.setattr(os, "fsync", full)
        with pytest.raises(FileWriteError, match=r"results\.json: .*Every trial is stored; "
                                                 r"once it can be written, `assay run .* "
                                                 r"--resume` writes the run's files"):
            assay.evaluate("full-disk", data=DATA, task=answer, scorers=["exact_match"],
                           store=store, output=out)
    opened = Store(str(store))
    [run] = opened.list_runs()
    assert run.status == "failed" and "FileWriteError" in (run.error or "")
    assert opened.count_trials(run.id) == (5, 0)
    opened.close()

    resumed = assay.evaluate("full-disk", data=DATA, task=answer, scorers=["exact_match"],
                             store=store, output=out, resume=True)
    assert resumed.run.id == run.id and resumed.run.status == "completed"
    assert len(json.loads((out / "results.json").read_text())["trials"]) == 5


def test_a_review_stopped_by_ctrl_c_leaves_the_run_interrupted_not_reviewing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: an exit during the review left the run `reviewing` for good."""
    from assay.review import finish

    def stopped(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    store = tmp_path / "assay.db"
    with monkeypatch.context() as patched:
        patched.setattr(finish, "compare_run_conditions", stopped)
        with pytest.raises(KeyboardInterrupt):
            assay.evaluate("stopped", data=DATA, task=answer, scorers=["exact_match"],
                           store=store, output=tmp_path / "out")
    opened = Store(str(store))
    [run] = opened.list_runs()
    assert (run.status, run.error) == ("interrupted", "interrupted by the user")
    assert run.finished_at is not None and run.review is None
    opened.close()
    resumed = assay.evaluate("stopped", data=DATA, task=answer, scorers=["exact_match"],
                             store=store, output=tmp_path / "out", resume=True)
    assert resumed.run.id == run.id and resumed.run.status == "completed"


def test_a_completed_run_whose_lost_files_cannot_be_written_again_stays_completed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: a resume that wrote a completed run's lost files again marked the run
    running, then 'failed' (or 'interrupted' on Ctrl-C) when the disk was full, and set its
    end to that moment, though every trial and its verdict were as they were."""
    out, store = tmp_path / "out", tmp_path / "assay.db"
    done = assay.evaluate("repaired", data=DATA, task=answer, scorers=["exact_match"],
                          store=store, output=out)
    (out / "report.md").unlink()

    def full(descriptor: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with monkeypatch.context() as patched:
        patched.setattr(os, "fsync", full)
        with pytest.raises(FileWriteError):
            assay.evaluate("repaired", data=DATA, task=answer, scorers=["exact_match"],
                           store=store, output=out, resume=True)
    opened = Store(str(store))
    [run] = opened.list_runs()
    assert (run.status, run.error, run.finished_at) == ("completed", None,
                                                        done.run.finished_at)
    opened.close()
    repaired = assay.evaluate("repaired", data=DATA, task=answer, scorers=["exact_match"],
                              store=store, output=out, resume=True)
    assert repaired.run.id == run.id and repaired.run.finished_at == done.run.finished_at
    assert (out / "report.md").exists()


def test_a_stopped_runs_warnings_point_at_no_report_md_it_never_wrote(tmp_path: Path) -> None:
    """Regression: a run stopped by a scorer that failed on every trial (exit 3) writes no
    report.md, yet its warning in `assay report` and `assay view` said 'see Errors in
    report.md'."""
    from assay.errors import RunFailed
    from assay.review.finish import review_stored

    def broken(case: Case, output: assay.Output) -> bool:
        raise ValueError("no")

    out, store = tmp_path / "out", tmp_path / "assay.db"
    with pytest.raises(RunFailed):
        assay.evaluate("stopped", data=DATA, task=answer, scorers=["exact_match", broken],
                       store=store, output=out)
    opened = Store(str(store))
    [run] = opened.list_runs()
    [warning] = review_stored(opened, run).warnings
    opened.close()
    assert not (out / "report.md").exists()
    assert warning.startswith("scorer broken has no value: it errored on all 5 of its trials "
                              "with an answer (first: ")
    assert "report.md" not in warning


def _two_runs(store: Path, **options: Any) -> tuple[str, str]:
    """Two runs of one experiment, two conditions each; (older id, newer id)."""
    ids = [assay.evaluate("read-once", data=DATA, task=answer, scorers=["exact_match"],
                          conditions={"a": {}, "b": {}}, store=store, reports=False,
                          **options).run.id
           for _ in range(2)]
    return ids[0], ids[1]


def test_a_report_reads_each_runs_rows_once_for_its_summary_comparisons_judges_and_diff(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: `assay report` read the run's score and trial rows for its summary and
    again for its comparisons and diff, its judged scores for its judges and again for
    the diff, and the previous run's whole rows where its scores' values would do."""
    from assay.review.finish import review_stored

    older, newer = _two_runs(tmp_path / "assay.db")
    reads = count_run_reads(monkeypatch)
    opened = Store(str(tmp_path / "assay.db"))
    review = review_stored(opened, opened.get_run(newer))  # type: ignore[arg-type]
    opened.close()
    assert review.comparisons.entries and review.previous is not None
    assert reads_of(reads, newer) == {"iter_trial_rows": 1, "iter_score_rows": 1,
                                      "iter_scores": 1}
    assert reads_of(reads, older) == {"iter_case_values": 1, "failed_trial_keys": 1,
                                      "judge_identities": 1}


def test_a_review_fed_to_a_report_reads_the_run_in_one_pass_over_its_trials(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`review_stored(also=...)` (report.md and results.json) gathers the review from the
    pass that hands each trial to the report, and reads the run no other way."""
    from assay.review.finish import review_stored

    older, newer = _two_runs(tmp_path / "assay.db")
    reads = count_run_reads(monkeypatch)
    opened = Store(str(tmp_path / "assay.db"))
    seen: list[str] = []
    run = opened.get_run(newer)
    assert run is not None
    fed = review_stored(opened, run, also=lambda trial: seen.append(trial.case_id))
    assert reads_of(reads, newer) == {"iter_trials": 1}
    assert len(seen) == opened.count_trials(newer)[0]
    assert fed == review_stored(opened, run)  # the same review either way
    opened.close()


def test_a_regression_gate_on_the_previous_run_reuses_its_diff_not_reads_it_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: a gate naming the previous run as its baseline read that run's cases
    a second time (and once more for each such gate)."""
    store = tmp_path / "assay.db"
    _, previous = _two_runs(store)
    reads = count_run_reads(monkeypatch)
    gate = {"regression": {"baseline": previous, "max_drop_pp": 50}}
    review = assay.evaluate("read-once", data=DATA, task=answer, scorers=["exact_match"],
                            conditions={"a": {}, "b": {}}, store=store, reports=False,
                            gates=[gate, gate])
    assert review.gates and all(g.passed for g in review.gates)
    assert reads[("iter_case_values", previous)] == 1  # this run's came with its one read
    assert not [name for name, run in reads if name == "iter_case_values" and run != previous]



def test_a_recorded_folder_under_the_working_directory_is_named_from_there(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A resumed run read its files' folder back from the store, in full, and printed
    'results: /home/.../.assay/runs/ID/results.json' where the fresh run had printed
    '.assay/runs/ID/results.json'."""
    from assay.review.finish import recorded_folder

    monkeypatch.chdir(tmp_path)
    assert recorded_folder(str(tmp_path / ".assay" / "runs" / "r1")) == \
        Path(".assay/runs/r1")
    assert recorded_folder("/srv/reports") == Path("/srv/reports")
