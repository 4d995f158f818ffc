"""Retries are bounded, back off, honour Retry-After, and never retry what cannot succeed."""

from __future__ import annotations

import asyncio

import pytest

from assay.errors import RunFailed
from assay.providers.base import ChatRequest
from assay.providers.failures import ProviderError
from assay.testing import FakeLLM, Fault, Reply, Rule

PROTOCOLS = ["anthropic/claude-haiku-4-5", "openai/gpt-4.1"]


def ask(text: str, model: str) -> ChatRequest:
    return ChatRequest(model=model, messages=[{"role": "user", "content": text}])


@pytest.mark.parametrize("model_string", PROTOCOLS)
def test_a_30_percent_fault_rate_still_completes_every_call(make_pool, model_string):
    async def scenario():
        faults = {"rate_limit": 0.15, "server_error": 0.15}
        async with FakeLLM(default="fine", fault_rates=faults, retry_after=0.001, seed=7) as llm:
            pool = make_pool(llm, max_retries=8)
            provider, model = pool.resolve(model_string)
            answers = await asyncio.gather(*(provider.chat(ask(f"q{i}", model))
                                             for i in range(60)))
            await pool.aclose()
            return answers, llm, pool.stats()

    answers, llm, stats = asyncio.run(scenario())
    assert [a.text for a in answers] == ["fine"] * 60
    sent = llm.faults["rate_limit"] + llm.faults["server_error"]
    assert sent > 0 and llm.faults["rate_limit"] > 0 and llm.faults["server_error"] > 0
    assert llm.received == 60 + sent
    assert stats.total.retries == sent and stats.total.calls == 60


def test_retry_after_is_honoured(make_pool):
    rules = [Rule(user="busy", times=1, reply=Reply(fault=Fault("rate_limit", retry_after=0.4)))]

    async def scenario():
        async with FakeLLM(rules, default="done") as llm:
            pool = make_pool(llm, backoff=0.001)
            provider, model = pool.resolve("openai/gpt-4.1")
            response = await provider.chat(ask("busy", model))
            await pool.aclose()
            return response, [r.received_at for r in llm.requests]

    response, times = asyncio.run(scenario())
    assert response.text == "done"
    assert len(times) == 2 and times[1] - times[0] >= 0.4


@pytest.mark.parametrize("model_string", PROTOCOLS)
def test_attempts_are_bounded_and_the_error_says_so(make_pool, model_string):
    rules = [Rule(reply=Reply(fault=Fault("server_error")))]

    async def scenario():
        async with FakeLLM(rules) as llm:
            pool = make_pool(llm, max_retries=3)
            provider, model = pool.resolve(model_string)
            with pytest.raises(ProviderError) as caught:
                await provider.chat(ask("anything", model))
            await pool.aclose()
            return caught.value, llm.received, pool.stats()

    error, received, stats = asyncio.run(scenario())
    assert received == 4
    assert "HTTP 500" in str(error) and "gave up after 4 attempts" in str(error)
    assert error.status == 500 and stats.total.failures == 1


def test_a_call_without_retries_gave_up_after_1_attempt(make_pool):
    """Regression: `max_retries: 0` failed with '(gave up after 1 attempts)'."""
    rules = [Rule(reply=Reply(fault=Fault("server_error")))]

    async def scenario():
        async with FakeLLM(rules) as llm:
            pool = make_pool(llm, max_retries=0)
            provider, model = pool.resolve(PROTOCOLS[0])
            with pytest.raises(ProviderError) as caught:
                await provider.chat(ask("anything", model))
            await pool.aclose()
            return caught.value

    assert "(gave up after 1 attempt)" in str(asyncio.run(scenario()))


@pytest.mark.parametrize("model_string", PROTOCOLS)
def test_a_401_stops_the_run_at_the_first_attempt(make_pool, model_string):
    async def scenario():
        async with FakeLLM(api_key="the-right-key") as llm:
            pool = make_pool(llm)
            provider, model = pool.resolve(model_string)
            with pytest.raises(RunFailed) as caught:
                await provider.chat(ask("hello", model))
            await pool.aclose()
            return caught.value, llm.received

    error, received = asyncio.run(scenario())
    assert received == 1
    assert "authentication failed" in str(error) and "_API_KEY" in str(error)


def test_a_400_fails_fast_without_retrying(make_pool):
    rules = [Rule(reply=Reply(fault=Fault("bad_request")))]

    async def scenario():
        async with FakeLLM(rules) as llm:
            pool = make_pool(llm)
            provider, model = pool.resolve("anthropic/claude-haiku-4-5")
            with pytest.raises(ProviderError) as caught:
                await provider.chat(ask("hello", model))
            await pool.aclose()
            return caught.value, llm.received

    error, received = asyncio.run(scenario())
    assert received == 1 and error.status == 400
    assert "HTTP 400 bad request" in str(error) and "gave up" not in str(error)


@pytest.mark.parametrize("model_string", PROTOCOLS)
def test_a_hanging_server_times_out_and_is_retried(make_pool, model_string):
    rules = [Rule(user="slow", times=1, reply=Reply(fault=Fault("timeout", hang_seconds=30)))]

    async def scenario():
        async with FakeLLM(rules, default="eventually") as llm:
            pool = make_pool(llm, timeout=0.3)
            provider, model = pool.resolve(model_string)
            response = await provider.chat(ask("slow", model))
            await pool.aclose()
            return response, llm.received, pool.stats()

    response, received, stats = asyncio.run(scenario())
    assert response.text == "eventually"
    assert received == 2 and stats.total.retries == 1


def test_a_server_that_always_hangs_ends_in_a_timeout_error(make_pool):
    rules = [Rule(reply=Reply(fault=Fault("timeout", hang_seconds=30)))]

    async def scenario():
        async with FakeLLM(rules) as llm:
            pool = make_pool(llm, timeout=0.2, max_retries=1)
            provider, model = pool.resolve("openai/gpt-4.1")
            with pytest.raises(ProviderError) as caught:
                await provider.chat(ask("slow", model))
            await pool.aclose()
            return caught.value

    error = asyncio.run(scenario())
    assert "timed out after 0.2s" in str(error) and "gave up after 2 attempts" in str(error)


@pytest.mark.parametrize("model_string", PROTOCOLS)
def test_a_malformed_body_is_retried_then_reported_as_malformed(make_pool, model_string):
    once = [Rule(user="glitch", times=1, reply=Reply(fault=Fault("malformed")))]
    always = [Rule(reply=Reply(fault=Fault("malformed")))]

    async def scenario():
        async with FakeLLM(once, default="recovered") as llm:
            pool = make_pool(llm)
            provider, model = pool.resolve(model_string)
            recovered = await provider.chat(ask("glitch", model))
            await pool.aclose()
        async with FakeLLM(always) as llm:
            pool = make_pool(llm, max_retries=2)
            provider, model = pool.resolve(model_string)
            with pytest.raises(ProviderError) as caught:
                await provider.chat(ask("glitch", model))
            await pool.aclose()
        return recovered, caught.value

    recovered, error = asyncio.run(scenario())
    assert recovered.text == "recovered"
    assert "malformed response body" in str(error) and "3 attempts" in str(error)
