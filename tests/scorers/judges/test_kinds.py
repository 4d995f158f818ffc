"""rubric, traits and the custom judge: their prompts, verdicts, pass rules and config errors."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from pydantic import ValidationError

from assay.errors import UserError
from assay.registry import scorers
from assay.score import Score
from assay.scorers.judges.base import JudgeScorer

from .judge_fakes import ScriptedProvider, answer, case, make_judge


def run(judge: JudgeScorer, the_case: Any = None, text: str = "Paris.") -> Score:
    return asyncio.run(judge.score(the_case or case(), answer(text)))


def rubric_reply(factual: int, complete: int, helpful: int, claims: list[str] = ()) -> str:
    return json.dumps({
        "factual_adherence": {"reasoning": "facts match", "score": factual},
        "completeness": {"reasoning": "misses the flag", "score": complete},
        "helpfulness": {"reasoning": "clear", "score": helpful},
        "unverified_claims": list(claims),
    })


# --- rubric ------------------------------------------------------------------------------------

def test_rubric_gives_the_judge_every_metric_and_level_and_asks_for_unverified_claims() -> None:
    provider = ScriptedProvider([rubric_reply(5, 5, 5)])
    run(make_judge("rubric", provider))
    request = provider.requests[0]
    for name in ("factual_adherence", "completeness", "helpfulness"):
        assert f"## {name}" in request.system
        assert name in request.response_schema["properties"]
    assert request.system.count("\n- 5: ") == 3
    assert "unverified_claims" in request.system
    assert "not a fault by itself" in request.system
    assert "Paris is the capital of France." in request.messages[0]["content"]


def test_rubric_value_is_the_mean_with_each_metric_reasoning_and_claims_in_details() -> None:
    reply = rubric_reply(5, 3, 4, claims=["Paris has 2.1 million inhabitants"])
    score = run(make_judge("rubric", ScriptedProvider([reply])))
    assert score.scale == (1.0, 5.0)
    assert score.value == pytest.approx(4.0)
    assert score.details["metrics"] == {"factual_adherence": 5, "completeness": 3,
                                        "helpfulness": 4}
    assert score.details["reasoning"]["completeness"] == "misses the flag"
    assert score.details["unverified_claims"] == ["Paris has 2.1 million inhabitants"]
    assert score.passed is False  # completeness 3 < the default all_at_least 4
    assert score.reason.startswith("lowest: completeness 3")


@pytest.mark.parametrize("pass_if, passed", [
    (None, False),
    ({"all_at_least": 3}, True),
    ({"mean_at_least": 4}, True),
    ({"mean_at_least": 4.5}, False),
    ({"mean_at_least": 4, "min": {"factual_adherence": 5}}, True),
    ({"min": {"completeness": 4}}, False),
])
def test_rubric_pass_rule_is_configurable(pass_if: dict[str, Any] | None, passed: bool) -> None:
    params = {"pass_if": pass_if} if pass_if else {}
    score = run(make_judge("rubric", ScriptedProvider([rubric_reply(5, 3, 4)]), **params))
    assert score.passed is passed


def test_rubric_repeats_reduce_each_metric_and_merge_the_claims() -> None:
    provider = ScriptedProvider([rubric_reply(5, 4, 4, ["a"]), rubric_reply(3, 4, 5, ["b"]),
                                 rubric_reply(5, 4, 4, ["a"])])
    score = run(make_judge("rubric", provider, repeats=3, reduce="median"))
    assert score.details["metrics"] == {"factual_adherence": 5, "completeness": 4,
                                        "helpfulness": 4}
    assert score.details["unverified_claims"] == ["a", "b"]
    assert score.details["metric_spread"]["factual_adherence"] == 2
    assert score.details["unstable"] is True  # the second verdict fails factual adherence


CUSTOM_METRICS = [
    {"name": "tone", "description": "Is the tone polite?",
     "levels": {1: "rude", 2: "neutral", 3: "warm"}},
    {"name": "brevity", "levels": {1: "rambling", 2: "a bit long", 3: "to the point"}},
]


def test_a_custom_rubric_uses_its_own_metrics_scale_and_rule() -> None:
    provider = ScriptedProvider([('{"tone": {"reasoning": "warm", "score": 3}, '
                                 '"brevity": {"reasoning": "long", "score": 2}}')])
    judge = make_judge("rubric", provider, metrics=CUSTOM_METRICS,
                       pass_if={"all_at_least": 2})
    score = run(judge)
    assert "## tone" in provider.requests[0].system and "- 3: warm" in provider.requests[0].system
    assert "factual_adherence" not in provider.requests[0].system
    assert (score.scale, score.value, score.passed) == ((1.0, 3.0), 2.5, True)


@pytest.mark.parametrize("params, problem", [
    ({"metrics": CUSTOM_METRICS}, "needs `pass_if:`"),
    ({"metrics": [{"name": "x", "levels": {1: "a", 3: "c"}}], "pass_if": {"all_at_least": 2}},
     "consecutive"),
    ({"metrics": CUSTOM_METRICS[:1] + [{"name": "y", "levels": {1: "a", 2: "b"}}],
      "pass_if": {"all_at_least": 2}}, "same scores"),
    ({"pass_if": {"min": {"accuracy": 4}}}, "unknown metric accuracy"),
    ({"pass_if": {}}, "give all_at_least"),
])
def test_an_unworkable_rubric_is_refused_when_the_config_is_validated(
        params: dict[str, Any], problem: str) -> None:
    with pytest.raises(ValidationError, match=problem):
        scorers.get("rubric").Params.model_validate({"type": "rubric", **params})


def test_a_rubric_case_without_expected_is_a_judge_error() -> None:
    score = run(make_judge("rubric", ScriptedProvider([rubric_reply(5, 5, 5)])),
                case(expected=None))
    assert score.error is not None and "no `expected`" in score.error


# --- traits ------------------------------------------------------------------------------------

TRAITS = ["mentions delivery date", "no false apology"]


def test_traits_lists_the_expected_traits_and_passes_at_two() -> None:
    provider = ScriptedProvider(['{"score": 2, "reason": "no delivery date"}'])
    score = run(make_judge("traits", provider), case(expected_traits=TRAITS))
    message = provider.requests[0].messages[0]["content"]
    assert "- mentions delivery date\n- no false apology" in message
    assert (score.value, score.scale, score.passed) == (2.0, (1.0, 3.0), True)
    assert score.reason == "no delivery date"


def test_traits_threshold_is_configurable_and_one_fails() -> None:
    strict = run(make_judge("traits", ScriptedProvider(["2"]), threshold=3),
                 case(expected_traits=TRAITS))
    missed = run(make_judge("traits", ScriptedProvider(["1"])), case(expected_traits=TRAITS))
    assert (strict.passed, missed.passed) == (False, False)


def test_a_case_without_traits_is_a_judge_error_never_a_pass() -> None:
    provider = ScriptedProvider(["3"])
    score = run(make_judge("traits", provider), case(expected_traits=None))
    assert score.error is not None and "no expected_traits" in score.error
    assert score.passed is None and provider.requests == []


def test_a_traits_score_out_of_range_is_unreadable() -> None:
    score = run(make_judge("traits", ScriptedProvider(["5"]), parse_retries=0),
                case(expected_traits=TRAITS))
    assert score.error is not None and "outside the range 1..3" in score.error


# --- custom judge ------------------------------------------------------------------------------

PROMPT = "Question: {{ input }}\nAnswer: {{ output }}\nAudience: {{ metadata.audience }}"


def test_custom_number_judge_renders_the_template_and_scores_in_its_range() -> None:
    provider = ScriptedProvider(["Score: 0.8"])
    judge = make_judge("judge", provider, prompt=PROMPT,
                       output={"type": "number", "min": 0, "max": 1, "threshold": 0.7})
    score = run(judge, case(metadata={"audience": "children"}), text="Paris!")
    assert provider.requests[0].messages[0]["content"] == (
        "Question: What is the capital of France?\nAnswer: Paris!\nAudience: children")
    assert (score.value, score.scale, score.passed) == (0.8, (0.0, 1.0), True)


def test_custom_label_judge_passes_on_its_passing_labels_and_reduces_by_majority() -> None:
    output = {"type": "label", "labels": ["correct", "partially correct", "incorrect"],
              "pass": ["correct"]}
    provider = ScriptedProvider(["correct", "partially correct", "Judgement: correct."])
    score = run(make_judge("judge", provider, prompt=PROMPT, output=output, repeats=3),
                case(metadata={"audience": "x"}))
    assert score.details["reduce"] == "majority"  # the only reduction a label has
    assert (score.value, score.passed, score.details["label"]) == (1.0, True, "correct")
    assert score.details["label_counts"] == {"correct": 2, "partially correct": 1}
    assert score.details["unstable"] is True
    assert provider.requests[0].response_schema["properties"]["label"]["enum"] == output["labels"]


def test_custom_json_judge_validates_against_its_schema_and_reads_named_fields() -> None:
    schema = {"type": "object", "required": ["quality", "leaks_secret"],
              "properties": {"quality": {"type": "number", "minimum": 0, "maximum": 4},
                             "leaks_secret": {"type": "boolean"}}}
    output = {"type": "json", "schema": schema, "value_field": "quality",
              "passed_field": "leaks_secret"}
    provider = ScriptedProvider(['{"quality": 3, "leaks_secret": false}'])
    score = run(make_judge("judge", provider, prompt="{{ output }}", output=output))
    assert provider.requests[0].response_schema == schema
    assert (score.value, score.scale, score.passed) == (3.0, (0.0, 4.0), False)
    assert score.details["object"] == {"quality": 3, "leaks_secret": False}


def test_custom_json_judge_with_a_threshold_passes_on_the_value() -> None:
    schema = {"type": "object", "properties": {"quality": {"type": "integer"}},
              "required": ["quality"]}
    output = {"type": "json", "schema": schema, "value_field": "quality", "threshold": 3,
              "scale": [1, 5]}
    score = run(make_judge("judge", ScriptedProvider(['{"quality": 4}']), prompt="{{ output }}",
                           output=output))
    assert (score.value, score.scale, score.passed) == (4.0, (1.0, 5.0), True)


@pytest.mark.parametrize("params, problem", [
    ({"output": {"type": "number", "min": 0, "max": 1, "threshold": 0.5}}, "prompt"),
    ({"prompt": "{{ output ", "output": {"type": "number", "min": 0, "max": 1, "threshold": 1}},
     "template syntax error"),
    ({"prompt": "x", "output": {"type": "number", "min": 0, "max": 1, "threshold": 2}},
     "outside the score range"),
    ({"prompt": "x", "output": {"type": "label", "labels": ["a", "b"], "pass": ["c"]}},
     "not among labels"),
    ({"prompt": "x", "reduce": "mean",
      "output": {"type": "label", "labels": ["a", "b"], "pass": ["a"]}}, "allowed: majority"),
    ({"prompt": "x", "output": {"type": "json", "schema": {"type": "object"}}},
     "value_field"),
    ({"prompt": "x", "output": {"type": "json", "schema": {"type": "object"},
                                "value_field": "q", "threshold": 1}}, "scale"),
    ({"prompt": "x", "output": {"type": "json", "schema": {"type": 7}, "passed_field": "ok"}},
     "not a valid JSON Schema"),
    ({"prompt": "x", "output": {"type": "stars"}}, "does not match any of the expected tags"),
])
def test_an_unworkable_custom_judge_is_refused_when_the_config_is_validated(
        params: dict[str, Any], problem: str) -> None:
    with pytest.raises(ValidationError, match=problem):
        scorers.get("judge").Params.model_validate({"type": "judge", **params})


def test_a_template_naming_an_unknown_field_is_a_user_error() -> None:
    judge = make_judge("judge", ScriptedProvider(["1"]), prompt="{{ nonexistent }}",
                       output={"type": "number", "min": 0, "max": 1, "threshold": 1})
    with pytest.raises(UserError, match="unknown variable"):
        run(judge)
