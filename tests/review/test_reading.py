"""One read of a finished run's trials feeds its summary, its comparisons and its files with
exactly what the separate reads of the store give."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import assay
from assay import Case
from assay.review.comparing import read_cases
from assay.review.finish import rewrite_files
from assay.review.reading import read_trials
from assay.review.result import Review
from assay.review.summary import summarize_run
from assay.store import Store

DATA = [{"id": f"c{i:02d}", "input": f"question <{i}>", "expected": f"answer {i}",
         "tags": [f"t{i % 3}", "all"], "difficulty": ("easy", "medium", "hard")[i % 3]}
        for i in range(24)]


def answer(case: Case, condition: Any = None) -> str:
    number = int(case.id[1:])
    if number % 7 == 3:
        raise RuntimeError(f"no answer for {case.id}")
    return f"the {case.expected}" if number % 4 else "something else"


def _evaluated(tmp_path: Path, **options: Any) -> tuple[Store, Review]:
    review = assay.evaluate("reading", data=DATA, task=answer,
                            scorers=["exact_match", "contains", "token_f1"],
                            store=tmp_path / "assay.db", output=tmp_path / "out", **options)
    return Store(str(tmp_path / "assay.db")), review


@pytest.mark.parametrize("options", [{}, {"epochs": 2, "conditions": {"a": {}, "b": {}}}],
                         ids=["one condition", "two conditions, two epochs"])
def test_one_read_gives_the_summary_and_cases_the_separate_reads_give(
        tmp_path: Path, options: dict[str, Any]) -> None:
    store, review = _evaluated(tmp_path, **options)
    run_id = review.run.id
    scorers, conditions = review.summary.scorer_names, review.summary.condition_names
    read = read_trials(store, run_id, scorers=scorers, conditions=conditions,
                       keep_cases=True, directory=None, epochs=review.run.epochs)
    separate = summarize_run(store, run_id, scorers=scorers, conditions=conditions)
    assert read.summary.to_dict() == separate.to_dict()
    assert read.summary.values == separate.values
    assert read.summary.to_dict()["conditions"][0]["errors"] > 0  # failed targets counted
    # and counted in their tags' and difficulties' rows, by either read
    assert all(sum(row["errors"] for row in read.summary.to_dict()[part]) > 0
               for part in ("by_tag", "by_difficulty"))
    assert read.cases == read_cases(store, run_id)
    store.close()


def test_the_files_written_from_one_read_are_the_files_read_again_from_the_store(
        tmp_path: Path) -> None:
    store, review = _evaluated(tmp_path, conditions={"a": {}, "b": {}})
    assert review.files is not None
    written = {path.name: path.read_bytes() for path in
               (review.files.results, review.files.markdown, review.files.html)}
    assert len(json.loads(written["results.json"])["trials"]) == 2 * len(DATA)
    rewrite_files(store, store.get_run(review.run.id) or review.run)
    again = {path.name: path.read_bytes() for path in
             (review.files.results, review.files.markdown, review.files.html)}
    assert again == written
    store.close()


def test_trials_stored_out_of_epoch_order_read_alike_by_rows_and_by_one_pass(
        tmp_path: Path) -> None:
    """Regression: the summary read from the trial rows took them in the order they were
    written within a case, the one pass over the trials in epoch order, so a case whose
    epoch 1 failed before its epoch 0 listed its errors the other way round in report.html
    (rows) from report.md and results.json (one pass) and the run's own files."""
    from assay.output import Output
    from assay.trial import TrialResult

    store = Store(str(tmp_path / "assay.db"))
    store.create_run(id="r1", experiment="order", status="completed",
                     started_at="2025-03-01T09:00:00+00:00", dataset_hash="d", total_trials=4,
                     config={"name": "order", "run": {"epochs": 2}})
    case = Case(id="c1", input="q", expected="a")
    store.write_trials("r1", [
        TrialResult(case, "plain", epoch, Output(error=f"failed on epoch {epoch}",
                                                  latency_ms=10.0 * epoch))
        for epoch in (1, 0)])
    read = read_trials(store, "r1", scorers=[], conditions=["plain"], keep_cases=True,
                       directory=None, epochs=2)
    rows = summarize_run(store, "r1", scorers=[], conditions=["plain"])
    assert rows.conditions[0].error_examples == read.summary.conditions[0].error_examples == [
        "c1: failed on epoch 0", "c1: failed on epoch 1"]
    store.close()
