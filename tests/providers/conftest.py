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
