"""Every platform's provider end to end, through its own SDK over HTTP to the fake server:
the answer, a tool loop, structured output, retries, a refused key, the cache and the cost."""

from __future__ import annotations

import asyncio
import json

import pytest

from assay.errors import RunFailed
from assay.providers.base import ChatRequest, ToolSpec
from assay.providers.failures import ProviderError
from assay.testing import FakeLLM, Fault, Reply, Rule

PLATFORM = {
    "vertex_ai/claude-opus-4-5": "vertex",
    "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0": "bedrock",
    "azure/gpt-4.1": "azure",
    "gemini/gemini-2.5-pro": "gemini",
    "vertex_ai/gemini-2.5-flash": "vertex",
    "mistral/mistral-small-latest": "openai",  # LiteLLM speaks Chat Completions to Mistral
}
PRICE_PER_MTOK = {
    "vertex_ai/claude-opus-4-5": (5.0, 25.0),
    "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0": (3.0, 15.0),
    "azure/gpt-4.1": (2.0, 8.0),
    "gemini/gemini-2.5-pro": (1.25, 10.0),
    "vertex_ai/gemini-2.5-flash": (0.30, 2.50),
    "mistral/mistral-small-latest": (0.15, 0.60),  # from LiteLLM's bundled price list
}
CLOUD_MODELS = list(PLATFORM)
"""One model string per platform provider: Claude on Vertex AI and Bedrock, Azure OpenAI,
Gemini on the Gemini API and on Vertex AI, and a LiteLLM provider (`make_cloud_pool`)."""
LOOKUP = ToolSpec("lookup", "Look a country up.", {
    "type": "object", "properties": {"country": {"type": "string"}}, "required": ["country"]})


def ask(model: str, text: str = "What is the capital of France?", **fields) -> ChatRequest:
    return ChatRequest(model=model, messages=[{"role": "user", "content": text}], **fields)


@pytest.mark.parametrize("model_string", CLOUD_MODELS)
def test_a_question_reaches_the_platform_and_is_answered_priced(make_cloud_pool, model_string):
    reply = Reply(text="Paris", input_tokens=1000, output_tokens=200)

    async def scenario():
        async with FakeLLM([Rule(user="France", system="geography", reply=reply)]) as llm:
            pool = make_cloud_pool(llm)
            provider, model = pool.resolve(model_string)
            response = await provider.chat(ask(model, system="You answer geography questions."))
            await pool.aclose()
            return response, llm.requests[0], pool.stats()

    response, seen, stats = asyncio.run(scenario())
    assert response.text == "Paris" and response.latency_ms > 0
    assert (response.usage.input_tokens, response.usage.output_tokens) == (1000, 200)
    price_in, price_out = PRICE_PER_MTOK[model_string]
    assert response.usage.cost_usd == pytest.approx((1000 * price_in + 200 * price_out) / 1e6)
    assert stats.by_model[model_string].calls == 1
    assert seen.platform == PLATFORM[model_string]
    assert seen.system == "You answer geography questions."
    assert seen.model.endswith(model_string.split("/", 1)[1])


@pytest.mark.parametrize("model_string", CLOUD_MODELS)
def test_a_tool_loop_round_trips_the_call_and_its_result(make_cloud_pool, model_string):
    rules = [Rule(after_tool_result=True, reply="Paris, says the atlas."),
             Rule(has_tools=True, reply=Reply(tool_calls=[{"name": "lookup",
                                                           "arguments": {"country": "France"}}]))]

    async def scenario():
        async with FakeLLM(rules) as llm:
            pool = make_cloud_pool(llm)
            provider, model = pool.resolve(model_string)
            messages = [{"role": "user", "content": "Capital of France?"}]
            first = await provider.chat(ChatRequest(model=model, messages=messages,
                                                    tools=[LOOKUP]))
            call = first.tool_calls[0]
            messages += [
                {"role": "assistant", "content": first.text,
                 "tool_calls": [{"id": call.id, "name": call.name, "arguments": call.arguments}]},
                {"role": "tool", "tool_call_id": call.id, "content": "capital: Paris"},
            ]
            second = await provider.chat(ChatRequest(model=model, messages=messages,
                                                     tools=[LOOKUP]))
            await pool.aclose()
            return first, second, llm.requests

    first, second, requests = asyncio.run(scenario())
    assert [(c.name, c.arguments) for c in first.tool_calls] == [("lookup", {"country": "France"})]
    assert second.text == "Paris, says the atlas." and not second.tool_calls
    assert requests[0].tools == ["lookup"]
    assert requests[1].messages[-1] == {"role": "tool", "content": "capital: Paris"}


@pytest.mark.parametrize("model_string", CLOUD_MODELS)
def test_a_response_schema_gets_json_in_that_shape(make_cloud_pool, model_string):
    schema = {"type": "object", "properties": {"city": {"type": "string"}},
              "required": ["city"]}

    async def scenario():
        async with FakeLLM(default=Reply(json={"city": "Paris"})) as llm:
            pool = make_cloud_pool(llm)
            provider, model = pool.resolve(model_string)
            response = await provider.chat(ask(model, response_schema=schema))
            await pool.aclose()
            return response, llm.requests[0]

    response, seen = asyncio.run(scenario())
    assert json.loads(response.text) == {"city": "Paris"}
    assert seen.response_schema == schema


@pytest.mark.parametrize("model_string", CLOUD_MODELS)
def test_a_30_percent_fault_rate_still_completes_every_call(make_cloud_pool, model_string):
    async def scenario():
        faults = {"rate_limit": 0.15, "server_error": 0.15}
        async with FakeLLM(default="fine", fault_rates=faults, retry_after=0.001, seed=3) as llm:
            pool = make_cloud_pool(llm, max_retries=8)
            provider, model = pool.resolve(model_string)
            answers = await asyncio.gather(*(provider.chat(ask(model, f"q{i}"))
                                             for i in range(20)))
            await pool.aclose()
            return answers, llm, pool.stats()

    answers, llm, stats = asyncio.run(scenario())
    assert [a.text for a in answers] == ["fine"] * 20
    sent = llm.faults["rate_limit"] + llm.faults["server_error"]
    assert llm.faults["rate_limit"] > 0 and llm.faults["server_error"] > 0
    assert stats.total.retries == sent and stats.total.calls == 20


@pytest.mark.parametrize("model_string", CLOUD_MODELS)
def test_attempts_are_bounded_and_the_error_says_so(make_cloud_pool, model_string):
    async def scenario():
        async with FakeLLM([Rule(reply=Reply(fault=Fault("server_error")))]) as llm:
            pool = make_cloud_pool(llm, max_retries=2)
            provider, model = pool.resolve(model_string)
            with pytest.raises(ProviderError) as caught:
                await provider.chat(ask(model))
            await pool.aclose()
            return caught.value, llm.received

    error, received = asyncio.run(scenario())
    assert received == 3 and error.status == 500
    assert "gave up after 3 attempts" in str(error)


@pytest.mark.parametrize("model_string", CLOUD_MODELS)
def test_a_refused_credential_stops_the_run_at_the_first_attempt(make_cloud_pool, model_string):
    async def scenario():
        async with FakeLLM(api_key="not-the-one-sent") as llm:
            pool = make_cloud_pool(llm)
            provider, model = pool.resolve(model_string)
            with pytest.raises(RunFailed) as caught:
                await provider.chat(ask(model))
            await pool.aclose()
            return caught.value, llm.received

    error, received = asyncio.run(scenario())
    assert received == 1
    assert "HTTP 401" in str(error) and "the run is stopped" in str(error)


@pytest.mark.parametrize("model_string", CLOUD_MODELS)
def test_a_repeated_question_is_answered_from_the_cache(make_cloud_pool, model_string):
    async def scenario():
        async with FakeLLM(default=Reply(text="Paris", input_tokens=50, output_tokens=5)) as llm:
            pool = make_cloud_pool(llm)
            provider, model = pool.resolve(model_string)
            first = await provider.chat(ask(model))
            again = await provider.chat(ask(model))
            await pool.aclose()
            return first, again, llm.received, pool.stats()

    first, again, received, stats = asyncio.run(scenario())
    assert received == 1 and not first.cached and again.cached
    assert again.text == "Paris" and again.usage.cost_usd == 0.0
    assert (stats.total.calls, stats.total.cache_hits) == (1, 1)
