"""LiteLLM-style model names find the provider that serves them, by platform and model family."""

from __future__ import annotations

import asyncio

import pytest

from assay.errors import UserError
from assay.providers.config import ProviderConfig
from assay.providers.pool import ProviderPool
from assay.providers.routes import route

ENVIRON = {
    "GOOGLE_OAUTH_ACCESS_TOKEN": "token", "CLOUD_ML_REGION": "us-east5",
    "ANTHROPIC_VERTEX_PROJECT_ID": "proj", "AWS_REGION": "us-east-1",
    "AWS_BEARER_TOKEN_BEDROCK": "bedrock-key", "AZURE_OPENAI_ENDPOINT": "https://r.example",
    "AZURE_OPENAI_API_KEY": "azure-key", "GEMINI_API_KEY": "gemini-key",
}


@pytest.mark.parametrize("prefix, model, kind, name", [
    ("vertex_ai", "claude-opus-4-5", "anthropic_vertex", "claude-opus-4-5"),
    ("vertex_ai", "claude-sonnet-4-5@20250929", "anthropic_vertex", "claude-sonnet-4-5@20250929"),
    ("vertex_ai", "gemini-2.5-pro", "gemini_vertex", "gemini-2.5-pro"),
    ("vertex_ai", "mistral-large-2411", "litellm", "mistral-large-2411"),
    ("bedrock", "anthropic.claude-3-5-sonnet-20240620-v1:0", "anthropic_bedrock",
     "anthropic.claude-3-5-sonnet-20240620-v1:0"),
    ("bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "anthropic_bedrock",
     "us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
    ("bedrock", "invoke/anthropic.claude-haiku-4-5-20251001-v1:0", "anthropic_bedrock",
     "anthropic.claude-haiku-4-5-20251001-v1:0"),
    ("bedrock", "converse/anthropic.claude-haiku-4-5-20251001-v1:0", "litellm",
     "converse/anthropic.claude-haiku-4-5-20251001-v1:0"),
    ("bedrock", "meta.llama3-1-70b-instruct-v1:0", "litellm", "meta.llama3-1-70b-instruct-v1:0"),
    ("azure", "my-gpt-deployment", "azure_openai", "my-gpt-deployment"),
    ("gemini", "gemini-2.5-flash", "gemini", "gemini-2.5-flash"),
    ("litellm", "groq/llama-3.1-8b-instant", "litellm", "groq/llama-3.1-8b-instant"),
    ("anthropic", "claude-haiku-4-5", "anthropic", "claude-haiku-4-5"),
    ("openai", "gpt-4.1", "openai", "gpt-4.1"),
])
def test_a_built_in_prefix_routes_by_model_family(prefix, model, kind, name):
    assert route(prefix, model) == (kind, name)


def test_any_other_prefix_has_no_built_in_route():
    assert route("mistral", "mistral-large-latest") is None


@pytest.mark.parametrize("model_string, provider_class", [
    ("vertex_ai/claude-opus-4-5", "AnthropicVertexProvider"),
    ("vertex_ai/gemini-2.5-pro", "GeminiProvider"),
    ("bedrock/anthropic.claude-opus-4-5-20251101-v1:0", "AnthropicBedrockProvider"),
    ("azure/gpt-4.1", "AzureOpenAIProvider"),
    ("gemini/gemini-2.5-pro", "GeminiProvider"),
])
def test_the_pool_serves_each_platform_with_its_sdk_provider(model_string, provider_class):
    pool = ProviderPool(environ=ENVIRON)
    provider, _model = pool.resolve(model_string)
    assert type(provider).__name__ == provider_class
    asyncio.run(pool.aclose())


def test_claude_and_gemini_on_vertex_are_two_providers_under_one_name():
    pool = ProviderPool(environ=ENVIRON)
    claude, _ = pool.resolve("vertex_ai/claude-opus-4-5")
    gemini, _ = pool.resolve("vertex_ai/gemini-2.5-pro")
    again, _ = pool.resolve("vertex_ai/claude-haiku-4-5")
    assert claude is again and claude is not gemini
    assert claude.name == gemini.name == "vertex_ai"
    asyncio.run(pool.aclose())


def test_a_configured_built_in_name_keeps_its_routing_and_takes_the_settings():
    pool = ProviderPool({"vertex_ai": ProviderConfig(max_connections=3, region="europe-west1")},
                        environ=ENVIRON)
    provider, _ = pool.resolve("vertex_ai/claude-opus-4-5")
    assert type(provider).__name__ == "AnthropicVertexProvider"
    assert provider.config.max_connections == 3 and provider.region == "europe-west1"
    assert provider.endpoint == "https://europe-west1-aiplatform.googleapis.com/v1"
    asyncio.run(pool.aclose())


def test_a_declared_provider_without_a_kind_is_openai_compatible():
    pool = ProviderPool({"lab": ProviderConfig(base_url="http://127.0.0.1:9/v1")}, environ={})
    provider, model = pool.resolve("lab/qwen")
    assert type(provider).__name__ == "OpenAIProvider" and model == "qwen"
    asyncio.run(pool.aclose())


def test_a_prefix_neither_built_in_nor_litellms_is_a_clear_error():
    with pytest.raises(UserError, match="unknown provider 'nosuch'.*LiteLLM knows no provider"):
        ProviderPool(environ={}).resolve("nosuch/model")
