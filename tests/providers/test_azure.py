"""Azure OpenAI: the deployment in the path, the api-version in the query, Azure's key header."""

from __future__ import annotations

import asyncio

from assay.providers.base import ChatRequest
from assay.providers.pool import ProviderPool
from assay.testing import FakeLLM


def one_request(environ_for) -> object:
    async def scenario():
        async with FakeLLM(default="hi") as llm:
            pool = ProviderPool(environ=environ_for(llm))
            provider, model = pool.resolve("azure/eval-gpt")
            response = await provider.chat(ChatRequest(
                model=model, max_tokens=64, messages=[{"role": "user", "content": "hello"}]))
            await pool.aclose()
            assert response.text == "hi"
            return llm.requests[0]

    return asyncio.run(scenario())


def test_a_deployment_is_called_with_the_api_key_header_and_the_api_version():
    seen = one_request(lambda llm: {"AZURE_OPENAI_ENDPOINT": llm.root_url,
                                    "AZURE_OPENAI_API_KEY": "azure-key",
                                    "OPENAI_API_VERSION": "2025-03-01-preview"})
    assert seen.path == "/openai/deployments/eval-gpt/chat/completions"
    assert seen.query == "api-version=2025-03-01-preview"
    assert seen.headers["api-key"] == "azure-key"
    assert seen.body["max_completion_tokens"] == 64 and "max_tokens" not in seen.body


def test_an_entra_id_token_is_sent_as_a_bearer_token():
    seen = one_request(lambda llm: {"AZURE_API_BASE": llm.root_url,
                                    "AZURE_OPENAI_AD_TOKEN": "entra-token"})
    assert seen.headers["authorization"] == "Bearer entra-token"
    assert "api-key" not in seen.headers
