"""Fuzz: 160 provider replies damaged the ways real endpoints damage them reach the real
anthropic and openai SDK clients, and each ends as an answer of the right types or as a
ProviderError: never another exception, never a hang.

Every reply starts as the fake server's correct body for the request (text, tool calls,
usage) and is then damaged: a field dropped or of another type, a list emptied or repeated,
very deep nesting, a huge number; or the body is an HTML page, cut half-way, or bytes that
are not JSON. An answer that comes through must still be an answer: text as text, tool
calls with a name and a dict of arguments, token counts as counts.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

from assay.providers.base import ChatRequest, ChatResponse, ToolSpec
from assay.providers.failures import ProviderError
from assay.providers.pool import ProviderPool
from assay.testing import FakeLLM
from assay.testing.script import FakeRequest, Fault, Reply
from assay.testing.wire import render_reply
from tests.fuzzing import Mutator, Tally, run_input

INPUTS = 160
MODELS = ["anthropic/claude-haiku-4-5", "openai/gpt-4.1"]
TOOL = ToolSpec("lookup", "Look a term up.",
                {"type": "object", "properties": {"term": {"type": "string"}}})


def _damaged_reply(mutator: Mutator) -> Callable[[FakeRequest], Reply]:
    def reply(request: FakeRequest) -> Reply:
        roll = mutator.random.random()
        if roll < 0.05:
            return Reply(fault=Fault(mutator.random.choice(["html", "cut", "malformed"])))
        good = Reply(text="Paris is the capital.", tool_calls=[
            {"name": "lookup", "arguments": {"term": "Paris"}}] if roll < 0.5 else [])
        body = render_reply(request, good)
        if roll < 0.15:
            return Reply(body=mutator.damage(json.dumps(body).encode()))
        return Reply(body=mutator.mutate(body, mutator.random.randint(1, 3)))
    return reply


def _is_answer(response: ChatResponse) -> list[str]:
    """What is wrong with an answer that came through (nothing, for a sound one)."""
    wrong = []
    if not isinstance(response.text, str):
        wrong.append(f"text is {type(response.text).__name__}")
    for call in response.tool_calls:
        if not isinstance(call.name, str) or not call.name:
            wrong.append(f"tool call name {call.name!r}")
        if not isinstance(call.arguments, dict):
            wrong.append(f"tool arguments {type(call.arguments).__name__}")
        if not isinstance(call.id, str):
            wrong.append(f"tool call id {call.id!r}")
    for name in ("input_tokens", "output_tokens"):
        value = getattr(response.usage, name)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            wrong.append(f"{name} {value!r}")
    for name in ("stop_reason", "model"):
        value = getattr(response, name)
        if value is not None and not isinstance(value, str):
            wrong.append(f"{name} {value!r}")
    return wrong


def test_damaged_replies_are_answers_or_provider_errors(
        make_pool: Callable[..., ProviderPool]) -> None:
    mutator = Mutator(seed=19)
    tally = Tally(INPUTS, accepted="answer", refused="provider error")

    async def one(pool: ProviderPool, model_string: str) -> ChatResponse:
        provider, model = pool.resolve(model_string)
        return await provider.chat(ChatRequest(
            model=model, messages=[{"role": "user", "content": "Capital of France?"}],
            tools=[TOOL] if mutator.random.random() < 0.5 else []))

    with FakeLLM(default=_damaged_reply(mutator)) as llm:
        pool = make_pool(llm, max_retries=0, timeout=2.0, use_cache=False)
        for model_string in MODELS:  # the SDKs are imported here, outside any input's time
            pool.resolve(model_string)
        loop = asyncio.new_event_loop()
        try:
            for index in range(INPUTS):
                model_string = MODELS[index % 2]
                label = f"input {index} ({model_string})"
                ended = run_input(ProviderError, loop.run_until_complete,
                                  one(pool, model_string))
                if tally.record(label, ended) and (wrong := _is_answer(ended.result)):
                    tally.fail(label, "answer with " + ", ".join(wrong))
        finally:
            loop.run_until_complete(pool.aclose())
            loop.close()
    tally.check({"answer": 30, "provider error": 30}, shown=25)
