"""LLM providers on the official SDKs: retried, limited, cached and costed.

`get_pool(services).resolve("anthropic/claude-sonnet-4-5")` gives a
`Provider` and the model name it knows; `Provider.chat(ChatRequest)` gives
a `ChatResponse`. Model strings are LiteLLM's names (`routes`: Anthropic,
OpenAI, Claude on Vertex AI and Bedrock, Azure OpenAI, Gemini, the rest
through LiteLLM); each kind finds its endpoint and credentials in the
config and the environment (`endpoints`). SDKs are imported only when a
provider is first created.
"""

from assay.providers.base import ChatRequest, ChatResponse, Provider, RequestedToolCall, ToolSpec

__all__ = ["ChatRequest", "ChatResponse", "Provider", "RequestedToolCall", "ToolSpec",
           "get_pool"]


def __getattr__(name: str) -> object:
    if name == "get_pool":
        from assay.providers.pool import get_pool

        return get_pool
    raise AttributeError(f"module 'assay.providers' has no attribute {name!r}")
