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


def test_a_gate_left_out_by_condition_is_left_out_of_this_run_only(tmp_path: Path) -> None:
    """The gates left out of a `--condition` run came off the loaded config itself, so a
    program running the same loaded config again, whole, ran it without them."""
    from assay.api.running import _without_gates_left_out
    from assay.config.loading import load_config
    from assay.runner.options import RunOptions

    config = write_project(tmp_path, {"base": {"rate": 0.5}, "v2": {"rate": 0.9}}, cases=4,
                           extra={"gates": [
                               {"scorer": "exact_match", "condition": "v2", "min_pass_rate": 0.5},
                               {"scorer": "exact_match", "condition": "base",
                                "min_pass_rate": 0.5}]})
    loaded = load_config(config)
    narrowed, options = _without_gates_left_out(loaded, RunOptions(), ["base"])
    assert [gate.condition for gate in narrowed.config.gates] == ["base"]
    assert [gate.condition for gate in loaded.config.gates] == ["v2", "base"]
    assert options.warnings == ["1 gate not checked: exact_match@v2, on a condition this run "
                                "leaves out (--condition base)"]
