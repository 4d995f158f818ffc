"""The judges end to end: the official SDK clients over HTTP to the fake LLM server.

Nothing is patched: the judge resolves its model through the run's provider
pool, the provider speaks Anthropic Messages or OpenAI Chat Completions to
the fake server on 127.0.0.1, and the scripted replies come back as verdicts.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from assay.case import Case
from assay.output import Output
from assay.providers.config import ProviderConfig
from assay.providers.pool import ProviderPool
from assay.registry import scorers
from assay.score import Score
from assay.services import Services
from assay.testing import FakeLLM, Reply, Rule

PROTOCOLS = ["anthropic/claude-judge", "openai/gpt-judge"]
ENVIRON = {"ANTHROPIC_API_KEY": "sk-ant-judge-test-0123456789",
           "OPENAI_API_KEY": "sk-openai-judge-test-0123456789"}

CASE = Case(id="ge_001", input="What does slices.Contains do?",
            expected="slices.Contains reports whether v is present in s.",
            expected_traits=["names the function", "says what it returns"])
ANSWER = Output(text="It reports whether a value is present in a slice.")

RUBRIC = {"factual_adherence": {"reasoning": "matches", "score": 5},
          "completeness": {"reasoning": "all there", "score": 4},
          "helpfulness": {"reasoning": "direct", "score": 4},
          "unverified_claims": ["E must be comparable"]}

KINDS: dict[str, tuple[dict[str, Any], Any]] = {
    "judge_score": ({}, {"reason": "substantially correct", "score": 8}),
    "rubric": ({}, RUBRIC),
    "traits": ({}, {"reason": "both traits present", "score": 3}),
    "judge": ({"prompt": "Is this answer right?\n{{ input }}\n{{ output }}",
               "output": {"type": "label", "labels": ["right", "wrong"], "pass": ["right"]}},
              {"reason": "it is", "label": "right"}),
}


def judge_services(llm: FakeLLM) -> Services:
    """Services whose provider pool sends `anthropic/` and `openai/` to the fake server."""
    configs = {name: ProviderConfig(name=name, kind=name, base_url=llm.base_url,
                                    backoff=0.001, max_backoff=0.05, timeout=5.0)
               for name in ("anthropic", "openai")}
    services = Services()
    services.providers = ProviderPool(configs, environ=ENVIRON, warn=services.warn)
    return services


async def judge_once(llm: FakeLLM, kind: str, model: str, **params: Any) -> Score:
    services = judge_services(llm)
    cls = scorers.get(kind)
    judge = cls(cls.Params.model_validate({"type": kind, "model": model, **params}), services)
    try:
        await judge.setup()
        return await judge.score(CASE, ANSWER)
    finally:
        await services.aclose()


@pytest.mark.parametrize("model", PROTOCOLS)
@pytest.mark.parametrize("kind", list(KINDS))
def test_every_judge_kind_gets_a_structured_verdict_over_both_protocols(kind: str,
                                                                       model: str) -> None:
    params, verdict = KINDS[kind]

    async def scenario() -> tuple[Score, Any]:
        async with FakeLLM(default=Reply(json=verdict)) as llm:
            score = await judge_once(llm, kind, model, **params)
            return score, llm.requests

    score, requests = asyncio.run(scenario())
    assert score.error is None, score.error
    assert score.passed is True
    [request] = requests
    assert request.model == model.split("/", 1)[1]
    assert request.response_schema is not None  # structured output was asked for
    assert request.body["temperature"] == 0
    assert "slices.Contains" in request.last_user
    assert score.details["judge_model"] == model
    assert score.details["usage"]["input_tokens"] > 0
    if model.startswith("openai/"):
        assert score.details["system_fingerprint"]  # OpenAI sends one; Anthropic does not


def test_the_rubric_verdict_keeps_metrics_and_unverified_claims_over_the_wire() -> None:
    async def scenario() -> Score:
        async with FakeLLM(default=Reply(json=RUBRIC)) as llm:
            return await judge_once(llm, "rubric", "anthropic/claude-judge")

    score = asyncio.run(scenario())
    assert score.details["metrics"] == {"factual_adherence": 5, "completeness": 4,
                                        "helpfulness": 4}
    assert score.details["unverified_claims"] == ["E must be comparable"]
    assert score.value == pytest.approx(13 / 3)


@pytest.mark.parametrize("model", PROTOCOLS)
def test_an_unparseable_judge_reply_is_recorded_as_a_judge_error(model: str) -> None:
    async def scenario() -> tuple[Score, int]:
        async with FakeLLM(default="I would rather not put a number on it.") as llm:
            score = await judge_once(llm, "judge_score", model, parse_retries=1)
            return score, llm.received

    score, received = asyncio.run(scenario())
    assert received == 2  # the first ask and one retry
    assert score.value is None and score.passed is None
    assert score.error is not None and score.error.startswith("unreadable judge reply")
    assert score.details["judge_errors"] == 1
    assert score.details["judgements"][0]["raw_replies"] == [
        "I would rather not put a number on it."] * 2


@pytest.mark.parametrize("model", PROTOCOLS)
def test_judge_repeats_over_the_wire_record_an_unstable_verdict(model: str) -> None:
    replies = [Reply(json={"reason": "good", "score": 8}),
               Reply(json={"reason": "missing the constraint", "score": 5}),
               Reply(json={"reason": "good", "score": 9})]

    async def scenario() -> tuple[Score, int]:
        async with FakeLLM([Rule(reply=replies)]) as llm:
            score = await judge_once(llm, "judge_score", model, repeats=3, reduce="median")
            return score, llm.received

    score, received = asyncio.run(scenario())
    assert received == 3
    assert sorted(v["value"] for v in score.details["judgements"]) == [5.0, 8.0, 9.0]
    assert (score.value, score.passed) == (8.0, True)
    assert score.details["unstable"] is True
    assert score.details["spread"] == 4.0


def test_a_second_judging_is_answered_from_the_cache_repeats_included() -> None:
    async def scenario() -> tuple[Score, Score, int]:
        async with FakeLLM([Rule(reply=[Reply(json={"reason": "a", "score": 7}),
                                        Reply(json={"reason": "b", "score": 6})])]) as llm:
            services = judge_services(llm)
            cls = scorers.get("judge_score")
            params = cls.Params.model_validate({"type": "judge_score", "repeats": 2,
                                                "model": "openai/gpt-judge"})
            first = await cls(params, services).score(CASE, ANSWER)
            again = await cls(params, services).score(CASE, ANSWER)
            await services.aclose()
            return first, again, llm.received

    first, again, received = asyncio.run(scenario())
    assert received == 2
    assert [v["cached"] for v in again.details["judgements"]] == [True, True]
    assert again.details["usage"]["cache_hits"] == 2
    assert [v["value"] for v in again.details["judgements"]] == [
        v["value"] for v in first.details["judgements"]]


def test_a_rate_limited_judge_still_gets_its_verdict() -> None:
    async def scenario() -> tuple[Score, int]:
        async with FakeLLM(default=Reply(json={"reason": "ok", "score": 9}),
                           fault_rates={"rate_limit": 0.5}, seed=3) as llm:
            score = await judge_once(llm, "judge_score", "anthropic/claude-judge", repeats=4)
            return score, llm.faults["rate_limit"]

    score, rate_limited = asyncio.run(scenario())
    assert rate_limited > 0
    assert score.error is None and score.value == 9.0
    assert score.details["usage"]["calls"] == 4  # retries are the provider's, not verdicts


@pytest.mark.parametrize("model", PROTOCOLS)
@pytest.mark.parametrize("reply", ["[" * 5000 + "]" * 5000, '{"score": NaN, "reason": "?"}',
                                   "9" * 5000])
def test_a_judge_reply_too_deep_nan_or_all_digits_is_recorded_unreadable_not_a_crash(
        model: str, reply: str) -> None:
    """Regression: a reply nested 5,000 deep raised RecursionError out of the judge (the
    trial's scoring crashed), `{"score": NaN}` from a custom schema judge was stored as the
    score NaN, and 5,000 digits took seconds of regex backtracking per reading."""
    schema_judge = {"prompt": "Grade it.\n{{ output }}", "output": {
        "type": "json", "schema": {"type": "object", "properties": {"score": {}}},
        "value_field": "score", "scale": [0, 10], "threshold": 5}}

    async def scenario() -> list[Score]:
        async with FakeLLM(default=reply) as llm:
            return [await judge_once(llm, "judge_score", model, parse_retries=0),
                    await judge_once(llm, "judge", model, parse_retries=0, **schema_judge)]

    for score in asyncio.run(scenario()):
        assert score.value is None and score.passed is None
        assert score.error is not None and score.error.startswith("unreadable judge reply")
