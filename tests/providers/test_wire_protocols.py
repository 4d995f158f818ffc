"""Both wire protocols end to end: the official SDKs over HTTP to the fake server."""

from __future__ import annotations

import asyncio
import json

import pytest

from assay.providers.base import ChatRequest, ToolSpec
from assay.testing import FakeLLM, Reply, Rule

PROTOCOLS = ["anthropic/claude-haiku-4-5", "openai/gpt-4.1"]
ADD = ToolSpec("add", "Add two numbers.", {"type": "object", "properties": {
    "a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]})


@pytest.mark.parametrize("model_string", PROTOCOLS)
def test_a_plain_question_gets_the_scripted_answer_with_usage(make_pool, model_string):
    async def scenario():
        rules = [Rule(user="capital of France", system="geography", reply="Paris")]
        async with FakeLLM(rules) as llm:
            pool = make_pool(llm)
            provider, model = pool.resolve(model_string)
            response = await provider.chat(ChatRequest(
                model=model, system="You answer geography questions.",
                messages=[{"role": "user", "content": "What is the capital of France?"}]))
            await pool.aclose()
            return response, llm.requests[0]

    response, seen = asyncio.run(scenario())
    assert response.text == "Paris"
    assert response.usage.input_tokens > 0 and response.usage.output_tokens > 0
    assert response.usage.calls == 1 and response.latency_ms > 0
    assert seen.system == "You answer geography questions."
    assert seen.model == model_string.split("/", 1)[1]


@pytest.mark.parametrize("model_string", PROTOCOLS)
def test_a_tool_loop_round_trips_calls_and_results(make_pool, model_string):
    """The model asks for a tool, gets the result, then answers: the agent's loop."""
    rules = [
        Rule(after_tool_result=True, reply="The sum is 5."),
        Rule(has_tools=True, reply=Reply(tool_calls=[{"name": "add",
                                                      "arguments": {"a": 2, "b": 3}}])),
    ]

    async def scenario():
        async with FakeLLM(rules) as llm:
            pool = make_pool(llm)
            provider, model = pool.resolve(model_string)
            messages = [{"role": "user", "content": "What is 2 + 3?"}]
            first = await provider.chat(ChatRequest(model=model, messages=messages, tools=[ADD]))
            call = first.tool_calls[0]
            messages += [
                {"role": "assistant", "content": first.text,
                 "tool_calls": [{"id": call.id, "name": call.name, "arguments": call.arguments}]},
                {"role": "tool", "tool_call_id": call.id, "content": "5"},
            ]
            second = await provider.chat(ChatRequest(model=model, messages=messages, tools=[ADD]))
            await pool.aclose()
            return first, second, llm.requests

    first, second, requests = asyncio.run(scenario())
    assert [(c.name, c.arguments) for c in first.tool_calls] == [("add", {"a": 2, "b": 3})]
    assert first.stop_reason in ("tool_use", "tool_calls")
    assert second.text == "The sum is 5." and not second.tool_calls
    assert requests[1].messages[-1] == {"role": "tool", "content": "5"}
    body = requests[1].body
    if requests[1].protocol == "anthropic":
        tool_use = body["messages"][1]["content"][-1]
        result = body["messages"][2]["content"][0]
        assert tool_use["type"] == "tool_use" and tool_use["input"] == {"a": 2, "b": 3}
        assert result == {"type": "tool_result", "tool_use_id": tool_use["id"], "content": "5"}
        assert body["tools"][0]["input_schema"] == ADD.input_schema
    else:
        wire_call = body["messages"][1]["tool_calls"][0]
        assert json.loads(wire_call["function"]["arguments"]) == {"a": 2, "b": 3}
        assert body["messages"][2] == {"role": "tool", "tool_call_id": wire_call["id"],
                                       "content": "5"}
        assert body["tools"][0]["function"]["parameters"] == ADD.input_schema


@pytest.mark.parametrize("model_string", PROTOCOLS)
def test_a_response_schema_asks_for_structured_output(make_pool, model_string):
    schema = {"type": "object", "properties": {"score": {"type": "integer"}},
              "required": ["score"]}
    rules = [Rule(when=lambda r: r.response_schema == schema, reply=Reply(json={"score": 8}))]

    async def scenario():
        async with FakeLLM(rules, default="no schema seen") as llm:
            pool = make_pool(llm)
            provider, model = pool.resolve(model_string)
            response = await provider.chat(ChatRequest(
                model=model, messages=[{"role": "user", "content": "Grade it."}],
                response_schema=schema))
            await pool.aclose()
            return response, llm.requests[0].body

    response, body = asyncio.run(scenario())
    assert json.loads(response.text) == {"score": 8}
    assert not response.tool_calls
    if model_string.startswith("anthropic"):
        assert body["tool_choice"] == {"type": "tool", "name": "respond"}
    else:
        assert body["response_format"]["type"] == "json_schema"


def test_openai_reports_the_system_fingerprint_and_sampling_parameters(make_pool):
    async def scenario():
        async with FakeLLM() as llm:
            pool = make_pool(llm)
            provider, model = pool.resolve("openai/gpt-4.1")
            response = await provider.chat(ChatRequest(
                model=model, messages=[{"role": "user", "content": "hi"}], temperature=0,
                max_tokens=55, extra={"top_p": 0.5}))
            await pool.aclose()
            return response, llm.requests[0].body

    response, body = asyncio.run(scenario())
    assert response.system_fingerprint == "fp_fake_llm"
    assert body["temperature"] == 0 and body["top_p"] == 0.5
    assert body["max_tokens"] == 55  # a compatible endpoint (custom base_url)


def test_anthropic_gets_temperature_and_merges_system_messages(make_pool):
    async def scenario():
        async with FakeLLM() as llm:
            pool = make_pool(llm)
            provider, model = pool.resolve("anthropic/claude-haiku-4-5")
            await provider.chat(ChatRequest(
                model=model, system="Be brief.", temperature=0.0,
                messages=[{"role": "system", "content": "Cite sources."},
                          {"role": "user", "content": "hi"}]))
            await pool.aclose()
            return llm.requests[0].body

    body = asyncio.run(scenario())
    assert body["system"] == "Be brief.\n\nCite sources."
    assert body["temperature"] == 0.0
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
