"""The OpenAI provider posts Chat Completions under the base URL it is given."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from assay.providers.base import ChatRequest, ToolSpec
from assay.providers.openai import wire_request
from assay.providers.pool import ProviderPool
from assay.testing import FakeLLM


def test_every_call_goes_to_chat_completions_under_the_base_urls_path(
        make_pool: Callable[..., ProviderPool]) -> None:
    async def scenario() -> list[str]:
        async with FakeLLM(default="hi") as llm:
            pool = make_pool(llm)
            provider, model = pool.resolve("openai/gpt-4.1")
            for _ in range(2):  # the path merged once serves every call
                await provider.chat(ChatRequest(
                    model=model, max_tokens=16, messages=[{"role": "user", "content": "q"}]),
                    use_cache=False)
            await pool.aclose()
            return [request.path for request in llm.requests]

    paths = asyncio.run(scenario())
    assert paths == ["/v1/chat/completions"] * 2


def test_a_chat_completions_body_sets_only_what_the_request_sets() -> None:
    plain = ChatRequest(model="gpt-4.1", messages=[{"role": "user", "content": "q"}],
                        system="Be brief.", max_tokens=50)
    assert wire_request(plain, "gpt-4.1", "max_completion_tokens") == {
        "model": "gpt-4.1", "max_completion_tokens": 50,
        "messages": [{"role": "system", "content": "Be brief."},
                     {"role": "user", "content": "q"}]}
    full = ChatRequest(model="m", messages=[], temperature=0.0, tools=[ToolSpec("add")],
                       response_schema={"type": "object"})
    body = wire_request(full, "mistral/m")  # LiteLLM's name for the model; max_tokens
    assert (body["model"], body["max_tokens"], body["temperature"]) == ("mistral/m", 1024, 0.0)
    assert body["tools"][0]["function"]["name"] == "add"
    assert body["response_format"]["json_schema"]["schema"] == {"type": "object"}
