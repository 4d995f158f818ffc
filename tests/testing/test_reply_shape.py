"""What reply a request asks for: read alike from the schema and from the instructions' example."""

from __future__ import annotations

import pytest

from assay.scorers.judges.formats import LabelFormat, NumberFormat, ReplyFormat, SchemaFormat
from assay.scorers.judges.rubric import DEFAULT_METRICS, DEFAULT_PASS_RULE, RubricFormat
from assay.testing.reply_shape import classify, closing_example, schema_of_example

FORMATS: dict[str, tuple[ReplyFormat, str]] = {
    "judge_score": (NumberFormat(0, 10, 7), "number"),
    "traits": (NumberFormat(1, 3, 2), "number"),
    "fractional": (NumberFormat(0, 1, 0.5, integer=False), "number"),
    "label": (LabelFormat(["good", "bad"], ["good"]), "label"),
    "rubric": (RubricFormat(DEFAULT_METRICS, DEFAULT_PASS_RULE), "rubric"),
    "schema": (SchemaFormat({"type": "object", "properties": {"ok": {"type": "boolean"}}},
                            value_field=None, passed_field="ok", threshold=None, scale=None),
               "json"),
}


@pytest.mark.parametrize("name", list(FORMATS))
def test_the_instructions_example_reads_back_as_the_same_shape_as_the_schema(name: str) -> None:
    reply_format, kind = FORMATS[name]
    system = "You grade answers.\n\n" + reply_format.instructions()
    example = closing_example(system)
    assert example is not None
    from_schema = classify(reply_format.response_schema())
    from_example = classify(schema_of_example(example))
    assert from_schema.kind == from_example.kind == kind
    for attribute in ("value_field", "scale", "integer", "choices", "metrics"):
        assert getattr(from_schema, attribute) == getattr(from_example, attribute), attribute


def test_the_rubric_shape_names_its_metrics_and_scale():
    shape = classify(RubricFormat(DEFAULT_METRICS, DEFAULT_PASS_RULE).response_schema())
    assert shape.metrics == ["factual_adherence", "completeness", "helpfulness"]
    assert shape.scale == (1.0, 5.0)


def test_text_that_does_not_end_in_a_json_object_asks_for_no_structure():
    assert closing_example("Answer the question. Use {braces} if you like.") is None
    assert closing_example('Reply like {"a": 1} and then explain.') is None
    assert closing_example('Reply like {"a": {"b": 1}}') == {"a": {"b": 1}}
