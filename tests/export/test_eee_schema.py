"""The Every Eval Ever schemas' checks: a valid record passes the compiled check alone; a
broken one is named in full, every error with its path."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from assay.export import eee_schema
from assay.export.eee_schema import schema_errors

RECORD: dict[str, Any] = {
    "schema_version": "0.3.0", "evaluation_id": "capitals/python_target/default/1735812000",
    "model_id": "python/target", "sample_id": "fr", "sample_hash": "c766",
    "interaction_type": "single_turn",
    "input": {"raw": "Capital of France?", "reference": ["Paris"]},
    "output": {"raw": ["Paris"]}, "messages": None,
    "answer_attribution": [{"turn_idx": 0, "source": "output.raw", "extracted_value": "Paris",
                            "extraction_method": "final_answer", "is_terminal": True}],
    "token_usage": None, "performance": {"latency_ms": 120.0},
    "evaluation_name": "contains", "evaluation_result_id": "contains:pass_rate",
    "evaluation": {"score": 1.0, "is_correct": True}, "error": None,
    "metadata": {"condition": "default", "epoch": "0"}}


class _CountingValidator:
    """Stands for jsonschema's validator and counts the documents it is asked about."""

    def __init__(self, real: Any) -> None:
        self.real, self.documents = real, 0

    def iter_errors(self, document: Any) -> Any:
        self.documents += 1
        return self.real.iter_errors(document)


@pytest.fixture
def slow_validator(monkeypatch: pytest.MonkeyPatch) -> _CountingValidator:
    counting = _CountingValidator(eee_schema._validator("instance"))
    monkeypatch.setattr(eee_schema, "_validator", lambda kind: counting)
    return counting


def test_valid_records_are_checked_without_the_slow_validator(
        slow_validator: _CountingValidator) -> None:
    """jsonschema's validator took 4 min 50 s to check a 500,000-trial run's records."""
    for _ in range(3):
        assert schema_errors(copy.deepcopy(RECORD), "instance") == []
    assert slow_validator.documents == 0


def test_a_broken_record_names_every_error_with_its_path(
        slow_validator: _CountingValidator) -> None:
    broken = copy.deepcopy(RECORD)
    del broken["sample_id"]
    broken["evaluation"]["score"] = "high"
    assert schema_errors(broken, "instance") == [
        "(root): 'sample_id' is a required property",
        "evaluation/score: 'high' is not of type 'number'"]
    assert slow_validator.documents == 1

