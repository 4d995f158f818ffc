"""The OpenAI provider posts Chat Completions under the base URL it is given."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from assay.providers.base import ChatRequest
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
