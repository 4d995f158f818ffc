"""The fake LLM server: rules, sequences, faults and latency, as the real SDKs see them."""

from __future__ import annotations

import asyncio
import json
import re
import time
import urllib.request

import anthropic
import openai
import pytest

from assay.testing import FakeLLM, Fault, Reply, Rule


def openai_client(llm: FakeLLM) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=llm.base_url, api_key="test", max_retries=0)


async def ask_openai(client: openai.AsyncOpenAI, text: str, *, system: str | None = None,
                     tools: bool = False) -> str:
    messages = ([{"role": "system", "content": system}] if system else []) + [
        {"role": "user", "content": text}]
    extra = {"tools": [{"type": "function", "function": {
        "name": "lookup", "parameters": {"type": "object"}}}]} if tools else {}
    completion = await client.chat.completions.create(model="m", messages=messages, **extra)
    message = completion.choices[0].message
    if message.tool_calls:
        return "tool:" + message.tool_calls[0].function.name
    return message.content or ""


def test_rules_match_on_user_text_regex_system_tools_and_callables():
    rules = [
        Rule(user=re.compile(r"\b\d+ \+ \d+\b"), reply="arithmetic"),
        Rule(system="pirate", reply="arr"),
        Rule(has_tools=True, reply=Reply(tool_calls=[{"name": "lookup", "arguments": {}}])),
        Rule(when=lambda request: request.last_user.isupper(), reply="why shout"),
        Rule(user="weather", reply=lambda request: f"echo: {request.last_user}"),
    ]

    async def scenario():
        async with FakeLLM(rules, default="default") as llm:
            client = openai_client(llm)
            answers = [
                await ask_openai(client, "what is 2 + 2"),
                await ask_openai(client, "hello", system="talk like a pirate"),
                await ask_openai(client, "find it", tools=True),
                await ask_openai(client, "HELLO"),
                await ask_openai(client, "weather today"),
                await ask_openai(client, "anything else"),
            ]
            await client.close()
            return answers

    assert asyncio.run(scenario()) == [
        "arithmetic", "arr", "tool:lookup", "why shout", "echo: weather today", "default"]


def test_a_reply_sequence_advances_per_match_and_times_limits_a_rule():
    rules = [Rule(user="once", times=1, reply="first time only"),
             Rule(user="again", reply=["one", "two", "three"])]

    async def scenario():
        async with FakeLLM(rules, default="fallback") as llm:
            client = openai_client(llm)
            answers = [await ask_openai(client, text)
                       for text in ("once", "once", "again", "again", "again", "again")]
            await client.close()
            return answers

    assert asyncio.run(scenario()) == [
        "first time only", "fallback", "one", "two", "three", "three"]


def test_anthropic_gets_tool_use_blocks_and_usage():
    reply = Reply(text="Let me look.", tool_calls=[{"name": "lookup", "arguments": {"q": "go"}}],
                  input_tokens=42, output_tokens=7)

    async def scenario():
        async with FakeLLM(default=reply) as llm:
            client = anthropic.AsyncAnthropic(base_url=llm.root_url, api_key="t", max_retries=0)
            message = await client.messages.create(
                model="claude-haiku-4-5", max_tokens=50,
                messages=[{"role": "user", "content": "search"}])
            await client.close()
            return message, llm.requests[0]

    message, seen = asyncio.run(scenario())
    assert [block.type for block in message.content] == ["text", "tool_use"]
    assert message.content[1].input == {"q": "go"} and message.stop_reason == "tool_use"
    assert (message.usage.input_tokens, message.usage.output_tokens) == (42, 7)
    assert seen.protocol == "anthropic" and seen.path == "/v1/messages"


def test_fault_rates_are_seeded_and_counted():
    def run(seed: int) -> dict[str, int]:
        async def scenario():
            async with FakeLLM(fault_rates={"server_error": 0.3}, seed=seed) as llm:
                client = openai_client(llm)
                for i in range(40):
                    try:
                        await ask_openai(client, f"q{i}")
                    except openai.InternalServerError:
                        pass
                await client.close()
                return dict(llm.faults)
        return asyncio.run(scenario())

    first, again = run(3), run(3)
    assert first == again and 0 < first["server_error"] < 40


def test_latency_is_applied_per_request():
    async def scenario():
        async with FakeLLM(latency=0.1) as llm:
            client = openai_client(llm)
            started = time.perf_counter()
            await asyncio.gather(*(ask_openai(client, f"q{i}") for i in range(5)))
            elapsed = time.perf_counter() - started
            await client.close()
            return elapsed

    assert 0.1 <= asyncio.run(scenario()) < 0.5  # concurrent, not serial


def test_the_sync_form_serves_from_a_background_thread():
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "ping"}]})
    with FakeLLM([Rule(user="ping", reply="pong")]) as llm:
        request = urllib.request.Request(f"{llm.base_url}/chat/completions", data=body.encode(),
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as response:
            data = json.loads(response.read())
        assert llm.received == 1
    assert data["choices"][0]["message"]["content"] == "pong"


def test_a_wrong_api_key_gets_401():
    async def scenario():
        async with FakeLLM(api_key="right") as llm:
            client = openai.AsyncOpenAI(base_url=llm.base_url, api_key="wrong", max_retries=0)
            try:
                await ask_openai(client, "hi")
            except openai.AuthenticationError as exc:
                return exc.status_code
            finally:
                await client.close()

    assert asyncio.run(scenario()) == 401


def test_a_rate_limit_fault_carries_retry_after():
    async def scenario():
        rules = [Rule(reply=Reply(fault=Fault("rate_limit", retry_after=2.5)))]
        async with FakeLLM(rules) as llm:
            client = openai_client(llm)
            try:
                await ask_openai(client, "hi")
            except openai.RateLimitError as exc:
                return exc.response.headers["retry-after"]
            finally:
                await client.close()

    assert asyncio.run(scenario()) == "2.5"


def test_a_fault_kind_the_server_cannot_send_is_refused_when_it_is_built():
    with pytest.raises(ValueError, match="unknown fault kind 'ratelimit'"):
        FakeLLM(fault_rates={"ratelimit": 0.1})  # type: ignore[dict-item]
