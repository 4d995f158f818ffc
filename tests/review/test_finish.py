"""Finishing a run: its files are written before it is completed, and a failure to write
them is said plainly and repaired by a resume."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

import assay
from assay import Case
from assay.errors import FileWriteError
from assay.store import Store

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
