"""One concurrency limit per endpoint, shared by everything that calls it."""

from __future__ import annotations

import asyncio

from assay.providers.base import ChatRequest
from assay.providers.config import ProviderConfig
from assay.providers.pool import ProviderPool
from assay.testing import FakeLLM


def test_the_server_never_sees_more_than_max_connections_in_flight(make_pool):
    async def scenario():
        async with FakeLLM(latency=0.02) as llm:
            pool = make_pool(llm, max_connections=4)
            provider, model = pool.resolve("openai/gpt-4.1")
            await asyncio.gather(*(
                provider.chat(ChatRequest(model=model, messages=[
                    {"role": "user", "content": f"q{i}"}]))
                for i in range(40)))
            await pool.aclose()
            return llm.max_in_flight

    assert asyncio.run(scenario()) == 4


def test_two_providers_on_one_endpoint_share_its_limit():
    """A target and a judge named differently but calling the same server."""

    async def scenario():
        async with FakeLLM(latency=0.02) as llm:
            configs = {name: ProviderConfig(name=name, kind="openai_compatible",
                                            base_url=llm.base_url, max_connections=3)
                       for name in ("target", "judge")}
            pool = ProviderPool(configs, environ={})
            calls = []
            for i in range(30):
                provider, model = pool.resolve(("target/m", "judge/m")[i % 2])
                calls.append(provider.chat(ChatRequest(
                    model=model, messages=[{"role": "user", "content": f"q{i}"}])))
            await asyncio.gather(*calls)
            await pool.aclose()
            return llm.max_in_flight, llm.received

    max_in_flight, received = asyncio.run(scenario())
    assert received == 30 and max_in_flight == 3
