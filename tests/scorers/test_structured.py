"""json_valid and json_schema: structured answers, with or without Markdown fences."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from assay.case import Case
from assay.errors import UserError
from assay.output import Output

CASE = Case(id="s1", input="Give me the order as JSON.")

ORDER_SCHEMA = {
    "type": "object",
    "required": ["id", "items"],
    "properties": {
        "id": {"type": "string"},
        "items": {
            "type": "array",
            "items": {"type": "object", "required": ["price"],
                      "properties": {"price": {"type": "number"}}},
        },
    },
}


def out(text: str) -> Output:
    return Output(text=text)


def fenced(body: str, prose: str = "") -> str:
    return f"{prose}```json\n{body}\n```{prose}"


# json_valid


def test_json_valid_accepts_any_json_value(make_scorer):
    scorer = make_scorer("json_valid")
    for text, kind in [('{"a": 1}', "object"), ("[1, 2]", "array"), ("3.5", "number"),
                       ('"x"', "string"), ("null", "null")]:
        score = scorer.check(CASE, out(text))
        assert score.passed is True and score.details["json_type"] == kind


def test_json_valid_reads_a_fenced_block_even_with_prose_around_it(make_scorer):
    scorer = make_scorer("json_valid")
    assert scorer.check(CASE, out(fenced('{"a": 1}'))).passed is True
    assert scorer.check(CASE, out(fenced('{"a": 1}', prose="Here you go:\n"))).passed is True
    assert scorer.check(CASE, out('```\n[1]\n```')).passed is True


def test_json_valid_with_fences_disallowed_needs_bare_json(make_scorer):
    scorer = make_scorer("json_valid", allow_fences=False)
    assert scorer.check(CASE, out(fenced('{"a": 1}'))).passed is False


def test_json_valid_says_where_the_json_breaks(make_scorer):
    score = make_scorer("json_valid").check(CASE, out('{"a": 1,\n "b": }'))
    assert (score.value, score.passed, score.error) == (0.0, False, None)
    assert score.reason == "output is not JSON: Expecting value at line 2 column 7"


def test_json_valid_broken_fenced_block_is_reported_as_such(make_scorer):
    score = make_scorer("json_valid").check(CASE, out(fenced('{"a": }')))
    assert score.reason.startswith("fenced block is not JSON")


def test_json_valid_empty_output(make_scorer):
    assert make_scorer("json_valid").check(CASE, out("  ")).reason == "output is empty"


def test_json_valid_keeps_unicode(make_scorer):
    assert make_scorer("json_valid").check(CASE, out('{"city": "東京"}')).passed is True


# json_schema


def test_json_schema_passes_a_conforming_answer(make_scorer):
    scorer = make_scorer("json_schema", schema=ORDER_SCHEMA)
    answer = {"id": "A1", "items": [{"price": 3.5}, {"price": 2}]}
    assert scorer.check(CASE, out(json.dumps(answer))).passed is True


def test_json_schema_reason_names_the_first_failing_path(make_scorer):
    scorer = make_scorer("json_schema", schema=ORDER_SCHEMA)
    answer = {"id": "A1", "items": [{"price": 3.5}, {"price": "cheap"}, {"price": None}]}
    score = scorer.check(CASE, out(fenced(json.dumps(answer))))
    assert score.passed is False
    assert score.reason == "$.items[1].price: 'cheap' is not of type 'number' (and 1 more)"
    assert [error["path"] for error in score.details["errors"]] == [
        "$.items[1].price", "$.items[2].price"]
    assert score.details["error_count"] == 2


def test_json_schema_missing_property_is_reported_at_its_parent(make_scorer):
    score = make_scorer("json_schema", schema=ORDER_SCHEMA).check(CASE, out('{"id": "A1"}'))
    assert score.reason == "$: 'items' is a required property"


def test_json_schema_output_that_is_not_json_fails_before_validation(make_scorer):
    score = make_scorer("json_schema", schema=ORDER_SCHEMA).check(CASE, out("sorry, no"))
    assert score.passed is False and score.reason.startswith("output is not JSON")


def test_json_schema_from_a_json_or_yaml_file_relative_to_the_config(make_scorer, tmp_path):
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "order.json").write_text(json.dumps(ORDER_SCHEMA))
    (tmp_path / "schemas" / "order.yaml").write_text(
        "type: object\nrequired: [id]\nproperties: {id: {type: string}}\n")
    for name in ("schemas/order.json", "schemas/order.yaml"):
        scorer = make_scorer("json_schema", schema_file=name)
        assert scorer.check(CASE, out('{"id": 7, "items": []}')).reason == \
            "$.id: 7 is not of type 'string'"


def test_json_schema_file_problems_are_config_errors_naming_the_file(make_scorer, tmp_path):
    with pytest.raises(UserError, match=r"cannot read schema_file .*missing\.json"):
        make_scorer("json_schema", schema_file="missing.json")
    (tmp_path / "broken.json").write_text("{nope")
    with pytest.raises(UserError, match=r"broken\.json does not parse"):
        make_scorer("json_schema", schema_file="broken.json")


def test_json_schema_an_invalid_schema_is_a_config_error(make_scorer):
    with pytest.raises(UserError, match=r"not a valid JSON Schema.*\$\.type"):
        make_scorer("json_schema", schema={"type": "bogus"})


def test_json_schema_needs_exactly_one_of_schema_and_schema_file(make_scorer):
    with pytest.raises(ValidationError, match="exactly one"):
        make_scorer("json_schema")
    with pytest.raises(ValidationError, match="exactly one"):
        make_scorer("json_schema", schema={}, schema_file="x.json")


def test_json_schema_checks_formats(make_scorer):
    scorer = make_scorer("json_schema", schema={"type": "string", "format": "date"})
    assert scorer.check(CASE, out('"2026-03-15"')).passed is True
    assert scorer.check(CASE, out('"15/03/2026"')).passed is False
