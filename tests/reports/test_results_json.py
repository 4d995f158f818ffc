"""`results.json` trial lines: fast to write, and the same JSON whatever the values."""

from __future__ import annotations

import json

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
