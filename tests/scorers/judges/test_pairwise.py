"""The pairwise judge: both orders asked, consistent verdicts win, a planted position bias shows.

Run against the fake LLM server's judge over the real SDK clients.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from assay.analysis.pairwise_verdicts import OrderedVerdicts, pairwise_result
from assay.case import Case
from assay.output import Output
from assay.registry import scorers
from assay.score import Score
from assay.scorers.judges.pairwise import PairwiseJudge
from assay.testing import FakeJudge, FakeLLM, JudgeBiases
from tests.scorers.judges.judge_fakes import ScriptedProvider, make_judge
from tests.scorers.judges.test_judges_e2e import judge_services

REFERENCE = "Jupiter is the largest planet of the Solar System, a gas giant."
GOOD = "Jupiter, a gas giant, is the largest planet of the Solar System."
POOR = "It is a planet."


def case(i: int) -> Case:
    return Case(id=f"q{i}", input=f"Which planet is the largest? (variant {i})",
                expected=REFERENCE)


async def judge_pairs(biases: JudgeBiases, pairs: list[tuple[Case, str, str]],
                      **params: Any) -> tuple[list[Score], list[Any]]:
    async with FakeLLM(judge=FakeJudge(biases)) as llm:
        services = judge_services(llm)
        judge = scorers.get("pairwise")(PairwiseJudge.Params.model_validate(
            {"type": "pairwise", "model": "openai/gpt-judge", **params}), services)
        try:
            scores = await asyncio.gather(*(judge.judge_pair(c, a, b, against="base")
                                            for c, a, b in pairs))
        finally:
            await services.aclose()
        return list(scores), list(llm.requests)


def test_both_orders_are_asked_and_an_unbiased_judge_picks_the_better_answer() -> None:
    scores, requests = asyncio.run(judge_pairs(JudgeBiases(), [(case(1), POOR, GOOD)]))
    [score] = scores
    assert len(requests) == 2
    first, second = (r.body["messages"][-1]["content"] for r in requests)
    assert first.index(POOR) < first.index(GOOD) and second.index(GOOD) < second.index(POOR)
    assert score.details["a_first"] == score.details["b_first"] == "b"
    assert score.details["winner"] == "b" and score.details["consistent"]
    assert score.value == 1.0 and score.passed is None
    assert score.details["judge_model"] == "openai/gpt-judge"


def test_a_judge_that_always_picks_the_first_answer_gives_position_inconsistent_ties() -> None:
    scores, _ = asyncio.run(judge_pairs(JudgeBiases(first_position_rate=1.0),
                                        [(case(i), POOR, GOOD) for i in range(5)]))
    for score in scores:
        assert (score.details["a_first"], score.details["b_first"]) == ("a", "b")
        assert score.details["winner"] == "tie" and not score.details["consistent"]
        assert score.value == 0.5
        assert "position-inconsistent" in score.reason


def test_a_planted_first_position_rate_of_70_percent_is_recovered_within_its_interval() -> None:
    pairs = [(case(i), POOR, GOOD) if i % 2 else (case(i), GOOD, POOR) for i in range(150)]
    scores, _ = asyncio.run(judge_pairs(JudgeBiases(first_position_rate=0.7, seed=3), pairs))
    verdicts = [OrderedVerdicts(f"q{i}", s.details["a_first"], s.details["b_first"])
                for i, s in enumerate(scores)]
    result = pairwise_result(verdicts)
    positions = result.positions
    assert positions.first_position_ci is not None
    assert positions.first_position_ci.contains(0.7), positions
    assert not positions.first_position_ci.contains(0.5)
    # merit decides the rest: 60% of verdicts are on merit, so both orders agree on ~60%
    assert positions.consistency == pytest.approx(0.6, abs=0.12)


def test_against_the_reference_the_answer_is_b_and_the_reference_a() -> None:
    async def scenario() -> Score:
        async with FakeLLM(judge=FakeJudge()) as llm:
            services = judge_services(llm)
            judge = scorers.get("pairwise")(PairwiseJudge.Params.model_validate(
                {"type": "pairwise", "model": "openai/gpt-judge", "against": "reference"}),
                services)
            try:
                return await judge.score(case(1), Output(text=POOR))
            finally:
                await services.aclose()

    score = asyncio.run(scenario())
    assert score.details["winner"] == "a" and score.value == 0.0
    assert "worse than the reference" in score.reason
    assert not scorers.get("pairwise")(PairwiseJudge.Params.model_validate(
        {"type": "pairwise", "model": "openai/x", "against": "reference"}),
        judge_services_stub()).deferred


def judge_services_stub() -> Any:
    from assay.services import Services

    return Services()


def test_a_pair_whose_replies_hold_no_choice_says_after_how_many_attempts_as_every_judge() -> None:
    """It read 'unreadable judge reply: no single choice of A, B, tie in the reply' where a
    0-10 judge's read '... (after 3 attempts)'."""
    judge = make_judge("pairwise", ScriptedProvider(["Both have merits."]), parse_retries=2)
    assert isinstance(judge, PairwiseJudge)
    score = asyncio.run(judge.judge_pair(case(1), POOR, GOOD, against="base"))
    assert score.error == ("unreadable judge reply: no single choice of A, B, tie in the "
                           "reply (after 3 attempts)")
    assert score.details["judge_errors"] == 2
