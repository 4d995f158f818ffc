"""The fake judge answers every judge kind of assay's, read by the real scorers over the wire.

Each judge is the registered scorer (its real prompts and reply formats),
asking through the official SDKs, with structured output and without; the
fake recognises the request from its content and gives a verdict that the
scorer reads without a judge error, and that tells a right answer from a
wrong one.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from assay.case import Case
from assay.score import Score
from assay.testing import FakeJudge, FakeLLM

from .conftest import PROTOCOLS, judge

CASE = Case(id="contains", input="What does slices.Contains do?",
            expected="slices.Contains reports whether the value v is present in the slice s.",
            expected_traits=["names slices.Contains", "says whether the value is present"])
RIGHT = "slices.Contains reports whether the value v is present in the slice s."
PARTLY = "It reports whether it is there."
WRONG = "I don't know."

CUSTOM_PROMPT = ("Question: {{ input }}\n\nReference: {{ expected }}\n\n"
                 "Candidate answer: {{ output }}")
LEVELS = {1: "wrong", 2: "partly right", 3: "right"}
KINDS: dict[str, tuple[str, dict[str, Any]]] = {
    "judge_score": ("judge_score", {}),
    "rubric": ("rubric", {}),
    "custom rubric": ("rubric", {
        "metrics": [{"name": "accuracy", "levels": LEVELS}, {"name": "clarity", "levels": LEVELS}],
        "pass_if": {"mean_at_least": 2.5}}),
    "traits": ("traits", {}),
    "number": ("judge", {"prompt": CUSTOM_PROMPT,
                         "output": {"type": "number", "min": 1, "max": 5, "threshold": 4}}),
    "label": ("judge", {"prompt": CUSTOM_PROMPT, "output": {
        "type": "label", "labels": ["correct", "partially_correct", "incorrect"],
        "pass": ["correct"]}}),
    "json": ("judge", {"prompt": CUSTOM_PROMPT, "output": {
        "type": "json", "passed_field": "grounded", "value_field": "confidence",
        "schema": {"type": "object", "required": ["grounded", "confidence", "why"],
                   "properties": {"grounded": {"type": "boolean"},
                                  "confidence": {"type": "number", "minimum": 0,
                                                 "maximum": 1},
                                  "why": {"type": "string"}}}}}),
}


def verdicts(answers: list[str], kind: str, model: str, **params: Any) -> list[Score]:
    async def scenario() -> list[Score]:
        async with FakeLLM(judge=FakeJudge()) as llm:
            return [await judge(llm, CASE, answer, kind, model, **params) for answer in answers]

    return asyncio.run(scenario())


@pytest.mark.parametrize("structured", [True, False], ids=["schema", "instructions"])
@pytest.mark.parametrize("model", PROTOCOLS)
@pytest.mark.parametrize("name", list(KINDS))
def test_every_judge_kind_passes_the_right_answer_and_fails_a_wrong_one(
        name: str, model: str, structured: bool) -> None:
    kind, params = KINDS[name]
    right, wrong = verdicts([RIGHT, WRONG], kind, model, structured_output=structured,
                            parse_retries=0, **params)
    assert right.error is None and wrong.error is None, (right.error, wrong.error)
    assert (right.passed, wrong.passed) == (True, False)
    assert right.value is not None and wrong.value is not None
    assert right.value > wrong.value
    assert right.reason and wrong.reason


def test_the_0_to_10_judge_gives_a_partial_answer_a_middle_score_and_says_what_is_missing():
    right, partly, wrong = verdicts([RIGHT, PARTLY, WRONG], "judge_score", PROTOCOLS[0])
    assert right.value == 10 and wrong.value == 0
    assert partly.value is not None and 0 < partly.value < 10
    assert "slices" in (partly.reason or "") and "contains" in (partly.reason or "")


def test_a_label_judge_picks_the_partial_label_for_a_partial_answer():
    kind, params = KINDS["label"]
    scores = verdicts([RIGHT, PARTLY, WRONG], kind, PROTOCOLS[1], **params)
    assert [score.details["label"] for score in scores] == [
        "correct", "partially_correct", "incorrect"]


def test_the_rubric_scores_each_metric_and_lists_claims_the_reference_does_not_support():
    padded = RIGHT + " It was written by the Go team in a single afternoon in Zurich."
    [score] = verdicts([padded], "rubric", PROTOCOLS[1])
    assert set(score.details["metrics"]) == {"factual_adherence", "completeness",
                                             "helpfulness"}
    assert score.details["metrics"]["completeness"] == 5
    assert score.details["unverified_claims"] == [
        "It was written by the Go team in a single afternoon in Zurich."]
    assert all(score.details["reasoning"].values())


def test_a_longer_answer_with_more_of_the_reference_never_scores_lower():
    words = RIGHT.rstrip(".").split()
    answers = [" ".join(words[:count]) for count in range(1, len(words) + 1)]
    values = [score.value for score in verdicts(answers, "judge_score", PROTOCOLS[0])]
    assert values == sorted(values) and values[0] < values[-1]


def test_the_same_request_gets_the_same_verdict_every_time():
    first = verdicts([PARTLY, PARTLY], "judge_score", PROTOCOLS[0], repeats=3)
    assert first[0].details.get("unstable") is False
    assert first[0].value == first[1].value


def test_a_request_asking_for_no_structure_is_left_to_the_rules_and_the_default():
    async def scenario() -> str:
        import openai

        async with FakeLLM(default="plain text", judge=FakeJudge()) as llm:
            client = openai.AsyncOpenAI(base_url=llm.base_url, api_key="k", max_retries=0)
            reply = await client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "Answer to grade: 42"}])
            await client.close()
            return reply.choices[0].message.content or ""

    assert asyncio.run(scenario()) == "plain text"
