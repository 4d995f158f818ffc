"""Claude on Vertex AI and Bedrock: the SDKs' own clients, their paths and their credentials."""

from __future__ import annotations

import asyncio

from assay.providers.base import ChatRequest
from assay.providers.config import ProviderConfig
from assay.providers.pool import ProviderPool
from assay.testing import FakeLLM


def ask(model: str) -> ChatRequest:
    return ChatRequest(model=model, messages=[{"role": "user", "content": "hello"}])


def one_request(model_string: str, environ_for) -> object:
    async def scenario():
        async with FakeLLM(default="hi") as llm:
            pool = ProviderPool({"bedrock": ProviderConfig(timeout=5.0)}, environ=environ_for(llm))
            provider, model = pool.resolve(model_string)
            response = await provider.chat(ask(model))
            await pool.aclose()
            assert response.text == "hi"
            return llm.requests[0]

    return asyncio.run(scenario())


def test_vertex_sends_the_access_token_to_the_projects_regional_raw_predict():
    seen = one_request("vertex_ai/claude-sonnet-4-5@20250929", lambda llm: {
        "ANTHROPIC_VERTEX_BASE_URL": llm.base_url, "VERTEXAI_LOCATION": "europe-west1",
        "VERTEXAI_PROJECT": "eval-project", "GOOGLE_OAUTH_ACCESS_TOKEN": "ya29.token"})
    assert seen.path == ("/v1/projects/eval-project/locations/europe-west1/publishers/anthropic/"
                         "models/claude-sonnet-4-5@20250929:rawPredict")
    assert seen.headers["authorization"] == "Bearer ya29.token"
    assert "anthropic_version" in seen.body and "model" not in seen.body


def test_bedrock_signs_with_sigv4_for_its_region():
    seen = one_request("bedrock/invoke/anthropic.claude-haiku-4-5-20251001-v1:0", lambda llm: {
        "ANTHROPIC_BEDROCK_BASE_URL": llm.root_url, "AWS_REGION": "eu-central-1",
        "AWS_ACCESS_KEY_ID": "AKIDSIGNER", "AWS_SECRET_ACCESS_KEY": "secret",
        "AWS_SESSION_TOKEN": "session"})
    assert seen.path == "/model/anthropic.claude-haiku-4-5-20251001-v1:0/invoke"
    authorization = seen.headers["authorization"]
    assert authorization.startswith("AWS4-HMAC-SHA256 Credential=AKIDSIGNER/")
    assert "/eu-central-1/bedrock/aws4_request" in authorization
    assert seen.headers["x-amz-security-token"] == "session"


def test_bedrock_sends_a_bedrock_api_key_as_a_bearer_token_without_signing():
    seen = one_request("bedrock/anthropic.claude-haiku-4-5-20251001-v1:0", lambda llm: {
        "ANTHROPIC_BEDROCK_BASE_URL": llm.root_url, "AWS_REGION": "us-east-1",
        "AWS_BEARER_TOKEN_BEDROCK": "bedrock-api-key"})
    assert seen.headers["authorization"] == "Bearer bedrock-api-key"
    assert "x-amz-date" not in seen.headers
