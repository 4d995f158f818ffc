"""Pools wired to a fake LLM server, with retry waits short enough for tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from assay.providers.config import ProviderConfig
from assay.providers.pool import ProviderPool
from assay.testing import FakeLLM

ANTHROPIC_KEY = "sk-ant-test-0123456789abcdef"
OPENAI_KEY = "sk-openai-test-0123456789abcdef"


@pytest.fixture
def make_pool() -> Callable[..., ProviderPool]:
    """`make_pool(llm, **provider_settings)`: `anthropic/` and `openai/` both served by `llm`."""

    def make(llm: FakeLLM, *, store: Any = None, use_cache: bool = True,
             max_cost_usd: float | None = None, warnings: list[str] | None = None,
             **settings: Any) -> ProviderPool:
        settings = {"backoff": 0.001, "max_backoff": 1.0, "timeout": 5.0, **settings}
        configs = {
            name: ProviderConfig(name=name, kind=name, base_url=llm.base_url, **settings)
            for name in ("anthropic", "openai")
        }
        sink = warnings if warnings is not None else []
        return ProviderPool(
            configs, store=store, use_cache=use_cache, max_cost_usd=max_cost_usd,
            environ={"ANTHROPIC_API_KEY": ANTHROPIC_KEY, "OPENAI_API_KEY": OPENAI_KEY},
            warn=sink.append,
        )

    return make


@pytest.fixture
def api_keys() -> tuple[str, str]:
    """The keys `make_pool` puts in the environment of its pools."""
    return ANTHROPIC_KEY, OPENAI_KEY


GOOGLE_TOKEN = "ya29.test-access-token-0123456789"
AWS_KEY_ID = "AKIATESTKEYID0123456"
AWS_SECRET = "aws-secret-test-0123456789abcdef"
AZURE_KEY = "azure-key-test-0123456789abcdef"
GEMINI_KEY = "gemini-key-test-0123456789abcdef"
MISTRAL_KEY = "mistral-key-test-0123456789abcdef"

def cloud_environ(llm: FakeLLM) -> dict[str, str]:
    """The environment that points every platform's SDK at `llm`, with dummy credentials:
    the variables each SDK (or LiteLLM) reads, as a user would set them."""
    return {
        "ANTHROPIC_VERTEX_BASE_URL": llm.base_url, "GOOGLE_VERTEX_BASE_URL": llm.root_url,
        "CLOUD_ML_REGION": "us-east5", "ANTHROPIC_VERTEX_PROJECT_ID": "assay-test",
        "GOOGLE_OAUTH_ACCESS_TOKEN": GOOGLE_TOKEN,
        "ANTHROPIC_BEDROCK_BASE_URL": llm.root_url, "AWS_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": AWS_KEY_ID, "AWS_SECRET_ACCESS_KEY": AWS_SECRET,
        "AZURE_OPENAI_ENDPOINT": llm.root_url, "AZURE_OPENAI_API_KEY": AZURE_KEY,
        "OPENAI_API_VERSION": "2024-10-21",
        "GEMINI_API_KEY": GEMINI_KEY, "GOOGLE_GEMINI_BASE_URL": llm.root_url,
        "MISTRAL_API_KEY": MISTRAL_KEY,
    }


@pytest.fixture
def make_cloud_pool() -> Callable[..., ProviderPool]:
    """`make_cloud_pool(llm, **provider_settings)`: `vertex_ai/`, `bedrock/`, `azure/`,
    `gemini/` and (through LiteLLM) `mistral/` served by `llm`, each through its own SDK,
    found from the environment alone (`cloud_environ`)."""

    def make(llm: FakeLLM, *, store: Any = None, use_cache: bool = True,
             warnings: list[str] | None = None, **settings: Any) -> ProviderPool:
        settings = {"backoff": 0.001, "max_backoff": 1.0, "timeout": 5.0, **settings}
        configs = {name: ProviderConfig(name=name, **settings)
                   for name in ("vertex_ai", "bedrock", "azure", "gemini")}
        configs["mistral"] = ProviderConfig(name="mistral", kind="litellm",
                                            base_url=llm.base_url,
                                            api_key_env="MISTRAL_API_KEY", **settings)
        sink = warnings if warnings is not None else []
        return ProviderPool(configs, store=store, use_cache=use_cache,
                            environ=cloud_environ(llm), warn=sink.append)

    return make
