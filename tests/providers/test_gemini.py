"""Gemini's own ways: function responses name their function, Google's RetryInfo sets the wait,
thinking is billed as output, thought signatures go back with their calls."""

from __future__ import annotations

import asyncio

import pytest
from google.genai import types

from assay.providers.base import ChatRequest, ToolSpec
from assay.providers.failures import CallFailure
from assay.providers.gemini import to_contents
from assay.providers.pool import ProviderPool
from assay.testing import FakeLLM, Fault, Reply, Rule

LOOKUP = ToolSpec("lookup", "Look a country up.", {"type": "object"})


def gemini_pool(llm: FakeLLM) -> ProviderPool:
    from assay.providers.config import ProviderConfig

    return ProviderPool({"gemini": ProviderConfig(backoff=0.001, timeout=5.0)},
                        environ={"GEMINI_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": llm.root_url})


def test_a_tool_result_names_its_function_though_gemini_gave_the_call_no_id():
    rules = [Rule(after_tool_result=True, reply="done"),
             Rule(has_tools=True, reply=Reply(tool_calls=[{"name": "lookup", "arguments": {}}]))]

    async def scenario():
        async with FakeLLM(rules) as llm:
            pool = gemini_pool(llm)
            provider, model = pool.resolve("gemini/gemini-2.5-pro")
            messages = [{"role": "user", "content": "go"}]
            first = await provider.chat(ChatRequest(model=model, messages=messages,
                                                    tools=[LOOKUP]))
            call = first.tool_calls[0]
            messages += [{"role": "assistant", "content": "", "tool_calls": [
                {"id": call.id, "name": call.name, "arguments": call.arguments}]},
                {"role": "tool", "tool_call_id": call.id, "content": "found", "is_error": True}]
            await provider.chat(ChatRequest(model=model, messages=messages, tools=[LOOKUP]))
            await pool.aclose()
            return call, llm.requests[1].body

    call, body = asyncio.run(scenario())
    assert call.id == "call_0_lookup"
    response = body["contents"][-1]["parts"][0]["functionResponse"]
    assert response["name"] == "lookup" and response["response"] == {"error": "found"}


def test_a_rate_limits_retry_delay_is_waited_for():
    rules = [Rule(user="busy", times=1, reply=Reply(fault=Fault("rate_limit", retry_after=0.4)))]

    async def scenario():
        async with FakeLLM(rules, default="done") as llm:
            pool = gemini_pool(llm)
            provider, model = pool.resolve("gemini/gemini-2.5-flash")
            response = await provider.chat(ChatRequest(
                model=model, messages=[{"role": "user", "content": "busy"}]))
            await pool.aclose()
            return response, [r.received_at for r in llm.requests]

    response, times = asyncio.run(scenario())
    assert response.text == "done"
    assert len(times) == 2 and times[1] - times[0] >= 0.4


def provider_for_responses():
    pool = ProviderPool(environ={"GEMINI_API_KEY": "k"})
    provider, _ = pool.resolve("gemini/gemini-3-pro-preview")
    return pool, provider


def test_thinking_tokens_are_counted_as_output_and_thoughts_are_not_the_answer():
    pool, provider = provider_for_responses()
    response = provider._from_response(types.GenerateContentResponse(
        candidates=[types.Candidate(finish_reason=types.FinishReason.STOP, content=types.Content(
            role="model", parts=[types.Part(text="pondering", thought=True),
                                 types.Part(text="Paris")]))],
        usage_metadata=types.GenerateContentResponseUsageMetadata(
            prompt_token_count=10, candidates_token_count=3, thoughts_token_count=40)))
    assert response.text == "Paris" and response.stop_reason == "STOP"
    assert (response.usage.input_tokens, response.usage.output_tokens) == (10, 43)
    asyncio.run(pool.aclose())


def test_a_calls_thought_signature_goes_back_with_the_call():
    pool, provider = provider_for_responses()
    response = provider._from_response(types.GenerateContentResponse(candidates=[types.Candidate(
        content=types.Content(role="model", parts=[types.Part(
            function_call=types.FunctionCall(id="fc1", name="lookup", args={"q": 1}),
            thought_signature=b"signed-thoughts")]))]))
    call = response.tool_calls[0]
    contents = to_contents([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": call.id, "name": call.name, "arguments": call.arguments}]},
        {"role": "tool", "tool_call_id": call.id, "content": "1"}], provider._signatures)
    sent = contents[1].parts[0]
    assert sent.function_call.id == "fc1" and sent.thought_signature == b"signed-thoughts"
    assert [c.role for c in contents] == ["user", "model", "user"]
    asyncio.run(pool.aclose())


def test_a_blocked_prompt_is_an_error_that_is_not_retried():
    pool, provider = provider_for_responses()
    with pytest.raises(CallFailure) as caught:
        provider._from_response(types.GenerateContentResponse(
            prompt_feedback=types.GenerateContentResponsePromptFeedback(
                block_reason=types.BlockedReason.SAFETY)))
    assert "blocked (SAFETY)" in caught.value.reason and not caught.value.retryable
    asyncio.run(pool.aclose())
