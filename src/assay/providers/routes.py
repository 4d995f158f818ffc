"""Which kind of provider serves a model string: LiteLLM's names, read the way LiteLLM reads them.

    anthropic/claude-sonnet-4-5                     Anthropic
    openai/gpt-4.1                                  OpenAI (or OPENAI_BASE_URL's server)
    vertex_ai/claude-opus-4-5                       Claude on Vertex AI
    vertex_ai/gemini-2.5-pro                        Gemini on Vertex AI
    bedrock/us.anthropic.claude-sonnet-4-5-...-v1:0 Claude on Bedrock (also bedrock/invoke/...)
    azure/my-deployment                             Azure OpenAI, by deployment name
    gemini/gemini-2.5-pro                           Gemini API
    litellm/<any LiteLLM model>                     LiteLLM, explicitly
    mistral/mistral-large-latest                    any other prefix: LiteLLM's provider of that name

What an official SDK serves goes to it; the rest of a platform's models
(Llama on Bedrock, Mistral on Vertex AI, Bedrock's `converse/` route) go
to LiteLLM, an optional extra imported only when such a model is named.
"""

from __future__ import annotations

from collections.abc import Callable

from assay.providers.config import ProviderKind

Route = tuple[ProviderKind, str]
"""The kind that serves a model, and the model name as that kind knows it."""


def _vertex_ai(model: str) -> Route:
    if model.startswith("claude"):
        return "anthropic_vertex", model
    if model.startswith("gemini"):
        return "gemini_vertex", model
    return "litellm", model


def _bedrock(model: str) -> Route:
    if model.startswith("invoke/"):
        model = model.removeprefix("invoke/")
    elif model.startswith("converse/"):
        return "litellm", model
    if is_bedrock_claude(model):
        return "anthropic_bedrock", model
    return "litellm", model


def is_bedrock_claude(model: str) -> bool:
    """`anthropic.claude-...`, with or without a cross-region prefix (`us.`, `global.`)."""
    vendor = model.split(".")[:2]
    return "anthropic" in vendor and "claude" in model


BUILT_IN_ROUTES: dict[str, Callable[[str], Route]] = {
    "anthropic": lambda model: ("anthropic", model),
    "openai": lambda model: ("openai", model),
    "vertex_ai": _vertex_ai,
    "bedrock": _bedrock,
    "azure": lambda model: ("azure_openai", model),
    "gemini": lambda model: ("gemini", model),
    "litellm": lambda model: ("litellm", model),
}
"""Model-string prefixes that need no `providers:` entry."""


def route(prefix: str, model: str) -> Route | None:
    """The kind serving `prefix/model` by the built-in names; None for another prefix."""
    routed = BUILT_IN_ROUTES.get(prefix)
    return routed(model) if routed is not None else None
