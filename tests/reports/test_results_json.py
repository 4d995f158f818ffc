"""`results.json` trial lines: fast to write, and the same JSON whatever the values."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from assay.reports.results_json import trial_json


def test_a_trial_line_reads_back_as_the_trial():
    record = {"case_id": "q1", "input": "Schön? ✓", "expected": ["a", 2],
              "scores": {"contains": {"value": 1.0, "scale": [0, 1], "passed": True}}}
    line = trial_json(record)
    assert "\n" not in line and "Schön? ✓" in line  # one line, text not escaped
    assert json.loads(line) == record


def test_integers_past_64_bits_and_non_text_keys_are_written_too():
    record = {"expected": 10**30, "metadata": {1: "one"}}
    assert json.loads(trial_json(record)) == {"expected": 10**30, "metadata": {"1": "one"}}


def test_dates_and_dataclasses_are_written_as_text_as_before():
    from dataclasses import dataclass
    from datetime import datetime

    @dataclass
    class Point:
        x: int

    record = {"at": datetime(2026, 1, 2, 3, 4, 5), "point": Point(1)}
    assert json.loads(trial_json(record)) == json.loads(json.dumps(record, default=str))


def _review() -> Any:
    from assay.analysis.conditions import compare_conditions
    from assay.analysis.summary import summarize
    from assay.records import RunRecord
    from assay.review.result import Review

    run = RunRecord(id="r1", experiment="e", kind="eval", status="completed",
                    started_at="2026-01-01T00:00:00+00:00")
    return Review(run=run, summary=summarize([], []), comparisons=compare_conditions({}, []),
                  previous=None, gates=[])


def _trial(case_id: str, text: str) -> Any:
    from assay.output import Output
    from assay.records import TrialRecord
    from assay.score import Score

    return TrialRecord(case_id=case_id, condition="default", epoch=0, input="q",
                       expected=None, output=Output(text=text),
                       scores={"s": Score(value=1.0, passed=True, details={"k": [1]})})


@pytest.mark.parametrize("binary", [True, False], ids=["file", "text handle"])
def test_trials_gathered_first_make_the_same_file_as_trials_streamed(tmp_path: Path,
                                                                    binary: bool) -> None:
    """The head of results.json is known only after the last trial: the trials wait in a
    temporary file, and a lone surrogate is written as `atomic_writer` writes it."""
    from assay.reports.atomic import atomic_writer
    from assay.reports.results_json import TrialLines, write_results_json

    trials = [_trial("q1", "Schön ✓"), _trial("q2", "half \udc80 a pair"), _trial("q3", "")]
    streamed, gathered = tmp_path / "streamed.json", tmp_path / "gathered.json"
    with atomic_writer(streamed) as handle:
        assert write_results_json(handle, _review(), trials) == 3
    lines = TrialLines(tmp_path)
    for trial in trials:
        lines.add(trial)
    if binary:
        with atomic_writer(gathered) as handle:
            assert write_results_json(handle, _review(), lines) == 3
    else:
        text = io.StringIO()
        assert write_results_json(text, _review(), lines) == 3
        gathered.write_bytes(text.getvalue().encode("utf-8", "backslashreplace"))
    assert gathered.read_bytes() == streamed.read_bytes()
    assert [t["case_id"] for t in json.loads(gathered.read_text())["trials"]] == \
        ["q1", "q2", "q3"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gathered.json", "streamed.json"]
