"""Any other LiteLLM model, through `litellm.acompletion` (the `litellm` extra).

For the providers no official SDK of ours serves: `mistral/...`,
`groq/...`, `ollama/...`, Llama on `bedrock/...`, `vertex_ai/` models
other than Claude and Gemini, or anything written `litellm/<model>`.
LiteLLM takes and returns the Chat Completions shape, so the OpenAI
provider's translation serves; its exceptions are the `openai` SDK's
classes, so the shared call path classifies them as it does OpenAI's.
LiteLLM's own retries are off: ours are the only ones, and bounded.

LiteLLM is imported when the first such model is named, never before, and
is told to read its bundled price list instead of fetching one. Prices
come from the provider's `prices:`, then assay's table, then LiteLLM's.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import Any

import openai

from assay.providers.base import ChatRequest, ChatResponse
from assay.providers.calling import SDKProvider
from assay.providers.config import Price
from assay.providers.openai import from_wire, wire_request


def load_litellm() -> Any:
    """The `litellm` module, configured for offline, quiet use."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no price fetch at import
    import litellm

    litellm.suppress_debug_info = True
    litellm.telemetry = False
    return litellm


class LiteLLMProvider(SDKProvider):
    default_endpoint = "litellm"
    _sdk = openai

    def __init__(self, config: Any, *, prices: Mapping[str, Price], **kwargs: Any) -> None:
        self.litellm = load_litellm()
        self.prefix = "" if config.name == "litellm" else config.name
        """LiteLLM's provider name, put back before the model (`mistral` of `mistral/large`)."""
        self.default_endpoint = f"litellm:{self.prefix or 'any'}"  # one limit per provider
        super().__init__(config, prices=LiteLLMPrices(prices, self.litellm.model_cost,
                                                       self.prefix), **kwargs)
        self.api_key = kwargs.get("api_key")
        self.base_url = kwargs.get("base_url")

    def litellm_model(self, model: str) -> str:
        return f"{self.prefix}/{model}" if self.prefix else model

    async def _send(self, request: ChatRequest) -> ChatResponse:
        params = wire_request(request, self.litellm_model(request.model))
        params.update(timeout=self.config.timeout, num_retries=0, max_retries=0)
        if self.base_url:
            params["api_base"] = self.base_url
        if self.api_key:
            params["api_key"] = self.api_key
        if self.config.headers:
            params["extra_headers"] = dict(self.config.headers)
        params.update(request.extra)
        response = await self.litellm.acompletion(**params)
        return from_wire(response.model_dump())

    async def aclose(self) -> None:
        """LiteLLM keeps its HTTP clients in a module-level cache; nothing is ours to close."""


class LiteLLMPrices(Mapping[str, Price]):
    """The price table, falling back to LiteLLM's per-token prices for what it lacks."""

    def __init__(self, table: Mapping[str, Price], model_cost: Mapping[str, Any],
                 prefix: str) -> None:
        self.table = table
        self.model_cost = model_cost
        self.prefix = prefix

    def __getitem__(self, model: str) -> Price:
        if model in self.table:
            return self.table[model]
        for name in (f"{self.prefix}/{model}" if self.prefix else model, model):
            entry = self.model_cost.get(name)
            if isinstance(entry, dict) and entry.get("input_cost_per_token") is not None:
                return Price(input_per_mtok=entry["input_cost_per_token"] * 1e6,
                             output_per_mtok=(entry.get("output_cost_per_token") or 0.0) * 1e6)
        raise KeyError(model)

    def __contains__(self, model: object) -> bool:
        try:
            self[str(model)]
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        """The configured names only: prefix matching (dated names) stays within them."""
        return iter(self.table)

    def __len__(self) -> int:
        return len(self.table)
