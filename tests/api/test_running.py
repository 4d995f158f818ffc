"""One config run and reviewed: what a failure after the last trial leaves to resume."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assay.errors import StoreError, StoreGone
from assay.store import Store
from tests.cli.evalproject import assay, write_project


def review_fails_with(monkeypatch: pytest.MonkeyPatch, error: StoreError) -> None:
    """The review's first write to the store raises `error` (a disk that filled meanwhile)."""
    def finish_run(*_args: Any, **_kwargs: Any) -> Any:
        raise error

    monkeypatch.setattr("assay.api.running.finish_run", finish_run)


def test_a_store_that_fills_while_the_run_is_reviewed_names_the_run_to_resume(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Before, every trial was stored and the run left 'reviewing', but the error only said
    '(free some space, then resume the run)', naming neither the run nor the command."""
    write_project(tmp_path, {"only": {"rate": 1.0}}, cases=5)
    monkeypatch.chdir(tmp_path)
    review_fails_with(monkeypatch, StoreError(
        "the store assay.db is full: its disk has no room left (free some space, then resume "
        "the run)"))
    code, printed = assay(capsys, "run", "assay.yaml", "--store", "assay.db", "--no-progress")
    [run] = Store(str(tmp_path / "assay.db")).list_runs("coin")
    assert code == 3
    assert (f"  run {run.id} keeps the trials stored before; once the store works again, "
            f"resume with: assay run assay.yaml --resume {run.id}") in printed


def test_a_store_deleted_while_the_run_is_reviewed_names_no_run_to_resume(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    write_project(tmp_path, {"only": {"rate": 1.0}}, cases=5)
    monkeypatch.chdir(tmp_path)
    review_fails_with(monkeypatch, StoreGone("the store assay.db was deleted"))
    code, printed = assay(capsys, "run", "assay.yaml", "--store", "assay.db", "--no-progress")
    assert code == 3 and "resume with" not in printed

