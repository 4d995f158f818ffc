"""The LLM judges: what they ask, what they record, and how they fail.

These tests answer the judge from an in-process scripted provider; the
end-to-end tests in `test_judges_e2e.py` go through the real SDK clients
and the fake LLM server.
"""

from __future__ import annotations

import asyncio
import statistics
from typing import Any

import pytest

from assay.config.models import EvalConfig
from assay.config.templates import template_hash
from assay.errors import RunFailed, UserError
from assay.output import Usage
from assay.providers.base import ChatResponse, RequestedToolCall
from assay.score import Score
from assay.scorers.judges.base import JudgeScorer
from assay.services import Services
from assay.testing.config import eval_config

from .judge_fakes import ScriptedProvider, answer, case, make_judge


def run(judge: JudgeScorer, the_case: Any = None, text: str = "Paris.") -> Score:
    return asyncio.run(judge.score(the_case or case(), answer(text)))


# --- judge_score -----------------------------------------------------------------------------

def test_judge_score_asks_with_question_reference_and_answer_at_temperature_zero() -> None:
    provider = ScriptedProvider(['{"reason": "correct", "score": 9}'])
    score = run(make_judge("judge_score", provider), text="It is Paris.")
    request = provider.requests[0]
    message = request.messages[0]["content"]
    assert "What is the capital of France?" in message
    assert "Paris is the capital of France." in message
    assert "It is Paris." in message
    assert request.temperature == 0.0
    assert request.model == "judge-model"
    assert request.response_schema["properties"]["score"]["maximum"] == 10
    assert (score.value, score.scale, score.passed, score.reason) == (9.0, (0.0, 10.0), True,
                                                                      "correct")


def test_judge_score_passes_at_seven_by_default_and_at_a_configured_threshold() -> None:
    seven = run(make_judge("judge_score", ScriptedProvider(["7"])))
    strict = run(make_judge("judge_score", ScriptedProvider(["7"]), threshold=8))
    assert (seven.passed, strict.passed) == (True, False)
    assert seven.value == strict.value == 7.0


def test_every_verdict_records_model_prompt_hash_fingerprint_and_usage() -> None:
    judge = make_judge("judge_score", ScriptedProvider(["8"]))
    details = run(judge).details
    assert details["judge_model"] == "openai/judge-model"
    assert details["prompt_hash"] == judge.prompt_hash
    assert len(judge.prompt_hash) == 16
    assert details["system_fingerprint"] == "fp_test"
    assert details["usage"]["input_tokens"] == 100
    assert details["usage"]["calls"] == 1
    assert details["usage"]["cost_usd"] == pytest.approx(0.001)


def test_identity_is_the_judge_model_and_prompt_hash_and_changes_with_the_prompt() -> None:
    provider = ScriptedProvider(["8"])
    default = make_judge("judge_score", provider)
    same = make_judge("judge_score", provider)
    reworded = make_judge("judge_score", provider, system="Grade harshly, 0 to 10.")
    other_model = make_judge("judge_score", provider, model="anthropic/other")
    assert default.identity() == same.identity() == {
        "type": "judge_score", "model": "openai/judge-model", "prompt_hash": default.prompt_hash,
        "rubric_version": default.rubric_version}
    assert reworded.identity()["prompt_hash"] != default.identity()["prompt_hash"]
    assert reworded.rubric_version == default.rubric_version  # the same pass line
    assert make_judge("judge_score", provider, threshold=8).rubric_version != \
        default.rubric_version
    assert other_model.identity()["model"] == "anthropic/other"
    assert default.prompt_hash == template_hash(
        f"{default.system}\n\x1e\n{default.reply_instructions}\n\x1e\n{default.template}")


@pytest.mark.parametrize(("kind", "stored_hash"), [
    ("judge_score", "aa819bb53ea0aa21"),
    ("rubric", "8d6785f833f97244"),
    ("traits", "be1de9c4fb6ea03e"),
])
def test_the_built_in_judges_prompt_hashes_stay_what_stored_runs_recorded(
        kind: str, stored_hash: str) -> None:
    """These hashes are in stored runs: a new value makes every earlier run incomparable.

    Change one only on purpose, when the prompt's wording changes, and say so in the notes.
    """
    assert make_judge(kind, ScriptedProvider(["3"])).prompt_hash == stored_hash


def test_a_case_without_expected_is_a_judge_error_and_asks_nothing() -> None:
    provider = ScriptedProvider(["9"])
    score = run(make_judge("judge_score", provider), case(expected=None))
    assert score.error is not None and "no `expected`" in score.error
    assert score.value is None and score.passed is None
    assert provider.requests == []


# --- unreadable replies, retries, provider failures -------------------------------------------

@pytest.mark.parametrize("stop_reason", ["length", "max_tokens", "MAX_TOKENS"])
def test_a_reply_cut_at_max_tokens_is_a_judge_error_not_the_number_it_stopped_on(
        stop_reason: str) -> None:
    """Regression: "Score: 10" cut after its first digit was read as a 1 (and failed the
    answer): a reply the provider stopped at max_tokens may hold any part of the verdict."""
    cut = ChatResponse(text="The answer names the capital correctly. Score: 1", model="m",
                       stop_reason=stop_reason, usage=Usage(input_tokens=100, output_tokens=64))
    provider = ScriptedProvider([cut])
    score = run(make_judge("judge_score", provider, parse_retries=1))
    assert score.value is None and score.passed is None
    assert score.error is not None and score.error.startswith(
        "unreadable judge reply: cut at max_tokens (1024); raise the scorer's max_tokens")
    assert len(provider.requests) == 2



def test_an_unreadable_reply_is_re_asked_as_a_new_request_then_recorded_as_a_judge_error() -> None:
    provider = ScriptedProvider(["Looks fine.", "Good answer overall.", "I agree with it."])
    score = run(make_judge("judge_score", provider, parse_retries=2))
    assert score.value is None and score.passed is None
    assert score.error is not None
    assert score.error.startswith("unreadable judge reply") and "after 3 attempts" in score.error
    # each retry has its own cache key, so it cannot be served the unreadable reply again
    assert [r.cache_tag for r in provider.requests] == [None, "repeat-1/retry-1",
                                                        "repeat-1/retry-2"]
    assert score.details["judge_errors"] == 1
    [record] = score.details["judgements"]
    assert record["raw_replies"] == ["Looks fine.", "Good answer overall.", "I agree with it."]
    assert score.details["usage"]["calls"] == 3


def test_a_retry_that_yields_a_verdict_scores_normally() -> None:
    provider = ScriptedProvider(["Hmm, decent.", "Score: 8/10"])
    score = run(make_judge("judge_score", provider))
    assert (score.value, score.passed, score.error) == (8.0, True, None)
    assert score.details["usage"]["calls"] == 2


def test_a_failed_call_is_a_judge_error_but_a_run_stopping_error_propagates() -> None:
    failing = run(make_judge("judge_score", ScriptedProvider([ConnectionError("refused")])))
    assert failing.error == "judge call failed: ConnectionError: refused"
    with pytest.raises(RunFailed):
        run(make_judge("judge_score", ScriptedProvider([RunFailed("401: bad API key")])))


def test_no_cache_run_bypasses_the_cache_for_every_ask() -> None:
    provider = ScriptedProvider(["8"])
    services = Services(use_cache=False)
    run(make_judge("judge_score", provider, services=services, repeats=2))
    assert provider.use_cache_flags == [False, False]
    cached = ScriptedProvider(["8"])
    run(make_judge("judge_score", cached, repeats=2))
    assert cached.use_cache_flags == [True, True]


def test_structured_output_can_be_turned_off() -> None:
    provider = ScriptedProvider(["8"])
    run(make_judge("judge_score", provider, structured_output=False))
    assert provider.requests[0].response_schema is None
    assert "JSON" in provider.requests[0].system  # the reply format is still given in words


def test_a_verdict_given_as_a_tool_call_is_read() -> None:
    reply = ChatResponse(text="", tool_calls=[RequestedToolCall(
        id="t1", name="verdict", arguments={"reason": "right", "score": 10})], usage=Usage())
    score = run(make_judge("judge_score", ScriptedProvider([reply])))
    assert (score.value, score.reason) == (10.0, "right")


# --- repeats -----------------------------------------------------------------------------------

def test_repeats_record_every_verdict_the_spread_and_an_unstable_flip() -> None:
    provider = ScriptedProvider(["8", "5", "9"])
    score = run(make_judge("judge_score", provider, repeats=3))
    assert [r.cache_tag for r in provider.requests] == [None, "repeat-2", "repeat-3"]
    assert score.value == pytest.approx(statistics.fmean([8, 5, 9]))
    assert score.passed is True
    details = score.details
    assert [v["value"] for v in details["judgements"]] == [8.0, 5.0, 9.0]
    assert [v["passed"] for v in details["judgements"]] == [True, False, True]
    assert (details["repeats"], details["reduce"], details["spread"]) == (3, "mean", 4.0)
    assert details["unstable"] is True and details["pass_votes"] == 2
    assert details["usage"]["calls"] == 3


def test_agreeing_repeats_are_stable() -> None:
    score = run(make_judge("judge_score", ScriptedProvider(["8", "9", "8"]), repeats=3))
    assert score.details["unstable"] is False
    assert score.details["spread"] == 1.0


@pytest.mark.parametrize("reduce, replies, value, passed", [
    ("mean", ["9", "6", "6"], 7.0, True),
    ("median", ["9", "6", "6"], 6.0, False),
    ("majority", ["9", "6", "9"], 9.0, True),
    ("majority", ["9", "6", "7", "6", "9"], 6.0, False),  # a tie goes to the failing side
])
def test_repeated_verdicts_reduce_by_mean_median_or_majority(
        reduce: str, replies: list[str], value: float, passed: bool) -> None:
    score = run(make_judge("judge_score", ScriptedProvider(replies), repeats=len(replies),
                           reduce=reduce))
    assert (score.value, score.passed) == (value, passed)


def test_one_unreadable_repeat_makes_the_whole_score_a_judge_error() -> None:
    provider = ScriptedProvider(["8", "no idea", "9"])
    score = run(make_judge("judge_score", provider, repeats=2, parse_retries=0))
    assert score.error is not None and score.value is None
    assert score.details["judge_errors"] == 1
    assert score.details["judgements"][0]["value"] == 8.0
    assert score.details["judgements"][1]["raw_replies"] == ["no idea"]


# --- model, temperature and self-grading --------------------------------------------------------

def config(**sections: Any) -> EvalConfig:
    sections.setdefault("target", {"type": "model"})
    return eval_config(**sections)


def test_the_judge_model_and_temperature_default_to_the_config_judge_section() -> None:
    provider = ScriptedProvider(["8"])
    cfg = config(judge={"model": "anthropic/claude-judge", "temperature": 0.2})
    judge = make_judge("judge_score", provider, config=cfg, model=None)
    run(judge)
    assert judge.model == "anthropic/claude-judge"
    assert provider.requests[0].model == "claude-judge"
    assert provider.requests[0].temperature == 0.2


def test_no_judge_model_anywhere_is_a_clear_user_error() -> None:
    with pytest.raises(UserError, match="needs a judge model"):
        make_judge("judge_score", ScriptedProvider(["8"]), config=config(), model=None)


def test_a_judge_whose_model_is_the_target_model_warns_when_set_up() -> None:
    cfg = config(target={"type": "model", "model": "openai/gpt-4.1"})
    services = Services(config=cfg)
    judge = make_judge("judge_score", ScriptedProvider(["8"]), services=services,
                       model="openai/gpt-4.1")
    run(judge)
    assert any("also the target model" in warning for warning in services.warnings)


def test_self_grading_is_recognised_across_providers_and_condition_overrides() -> None:
    from assay.scorers.judges.base import warn_if_self_grading

    services = Services(config=config(target={"type": "model", "model": "openai/gpt-4.1"}))
    warn_if_self_grading("judge_score", "openai/gpt-4.1", services)
    assert len(services.warnings) == 1 and "also the target model" in services.warnings[0]

    by_condition = Services(config=config(conditions={"big": {"model": "local/llama-3"}}))
    warn_if_self_grading("judge_score", "ollama/llama-3", by_condition)
    assert len(by_condition.warnings) == 1

    different = Services(config=config(target={"type": "model", "model": "openai/gpt-4.1"}))
    warn_if_self_grading("judge_score", "anthropic/claude-opus", different)
    assert different.warnings == []


def test_the_four_judge_kinds_are_found_by_the_lazy_registry() -> None:
    from assay.registry import scorers

    for kind in ("judge_score", "rubric", "traits", "judge"):
        cls = scorers.get(kind)
        assert cls.__module__ == "assay.scorers.judges.kinds" and cls.kind == kind
