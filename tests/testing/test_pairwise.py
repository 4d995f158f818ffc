"""Pairwise requests: recognised by two positioned answers and a choice of positions."""

from __future__ import annotations

import asyncio
import json

import anthropic
import openai
import pytest

from assay.testing import FakeJudge, FakeLLM, JudgeBiases
from assay.testing.pairwise import is_positional, position_of

QUESTION = "How often does the compactor run by default?"
REFERENCE = "Every 15 minutes."
SHORT = "Every 15 minutes, by default."
VAGUE = "From time to time."
SCHEMA = {"type": "object", "additionalProperties": False, "required": ["reason", "winner"],
          "properties": {"reason": {"type": "string"},
                         "winner": {"type": "string", "enum": ["A", "B", "tie"]}}}
SYSTEM = ("You compare two answers to a question against a reference answer and say which "
          "is better, or tie.")


def message(first: str, second: str) -> str:
    return (f"Question:\n{QUESTION}\n\nReference answer:\n{REFERENCE}\n\n"
            f"Answer A:\n{first}\n\nAnswer B:\n{second}")


async def ask_openai(llm: FakeLLM, first: str, second: str) -> dict[str, str]:
    client = openai.AsyncOpenAI(base_url=llm.base_url, api_key="k", max_retries=0)
    reply = await client.chat.completions.create(
        model="judge", messages=[{"role": "system", "content": SYSTEM},
                                 {"role": "user", "content": message(first, second)}],
        response_format={"type": "json_schema",
                         "json_schema": {"name": "verdict", "schema": SCHEMA}})
    await client.close()
    return json.loads(reply.choices[0].message.content or "")


async def ask_anthropic_without_schema(llm: FakeLLM, first: str, second: str) -> str:
    client = anthropic.AsyncAnthropic(base_url=llm.root_url, api_key="k", max_retries=0)
    reply = await client.messages.create(
        model="judge", max_tokens=200,
        system=SYSTEM + '\n\nReply with JSON shaped like: {"reason": "<text>", '
                        '"winner": "A | B | tie"}',
        messages=[{"role": "user", "content": message(first, second)}])
    await client.close()
    return json.loads(reply.content[0].text)["winner"]  # type: ignore[union-attr]


def test_a_hand_built_pairwise_request_gets_the_better_answer_in_either_order() -> None:
    async def scenario() -> list[object]:
        async with FakeLLM(judge=FakeJudge()) as llm:
            return [await ask_openai(llm, SHORT, VAGUE), await ask_openai(llm, VAGUE, SHORT),
                    await ask_anthropic_without_schema(llm, VAGUE, SHORT),
                    await ask_anthropic_without_schema(llm, SHORT, SHORT)]

    ab, ba, from_example, same = asyncio.run(scenario())
    assert isinstance(ab, dict) and isinstance(ba, dict)
    assert (ab["winner"], ba["winner"], from_example, same) == ("A", "B", "B", "tie")
    assert "15" in ab["reason"] or "minutes" in ab["reason"]


def test_a_judge_that_always_prefers_the_first_position_says_so_in_its_reason() -> None:
    judge = FakeJudge(JudgeBiases(first_position_rate=1.0))
    verdict = judge.verdict(message(VAGUE, SHORT), SCHEMA)
    assert verdict["winner"] == "A"
    assert "position" in verdict["reason"]


@pytest.mark.parametrize(("options", "positions"), [
    (["A", "B"], ["first", "second"]),
    (["A", "B", "C"], ["first", "second", "tie"]),
    (["first", "second", "equal"], ["first", "second", "tie"]),
    (["answer_1", "answer_2"], ["first", "second"]),
    (["Response A", "Response B", "tie"], ["first", "second", "tie"]),
])
def test_choices_name_positions_in_the_common_spellings(options: list[str],
                                                        positions: list[str]) -> None:
    assert [position_of(option, options) for option in options] == positions
    assert is_positional(options)


def test_labels_that_name_no_positions_are_not_a_pairwise_choice() -> None:
    assert not is_positional(["correct", "incorrect"])
    assert not is_positional(["A", "C"])
