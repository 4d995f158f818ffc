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
