"""Where each platform puts a request: the wire protocol and model a URL path stands for.

OpenAI and Anthropic name the model in the body. The cloud platforms carry
the same bodies under paths of their own and name the model in the path:

| platform | path | protocol |
| --- | --- | --- |
| Anthropic on Vertex AI | `.../publishers/anthropic/models/{model}:rawPredict` | Messages |
| Anthropic on Bedrock | `/model/{model}/invoke` | Messages |
| Azure OpenAI | `/openai/deployments/{deployment}/chat/completions?api-version=...` | Chat Completions |
| Gemini API | `/{version}/models/{model}:generateContent` | Gemini |
| Gemini on Vertex AI | `.../publishers/google/models/{model}:generateContent` | Gemini |

Streaming paths (`:streamRawPredict`, `/invoke-with-response-stream`,
`:streamGenerateContent`) are not served: assay's providers never stream.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote

Protocol = Literal["openai", "anthropic", "gemini"]
Platform = Literal["openai", "anthropic", "vertex", "bedrock", "azure", "gemini"]


@dataclass(frozen=True, slots=True)
class Route:
    """What a request path stands for."""

    protocol: Protocol
    platform: Platform
    model: str | None = None
    """The model named by the path (None when the body names it)."""


_PATTERNS: list[tuple[re.Pattern[str], Protocol, Platform]] = [
    (re.compile(r"/publishers/anthropic/models/(?P<model>[^/:]+):rawPredict$"),
     "anthropic", "vertex"),
    (re.compile(r"/model/(?P<model>[^/]+)/invoke$"), "anthropic", "bedrock"),
    (re.compile(r"/openai/deployments/(?P<model>[^/]+)/chat/completions$"), "openai", "azure"),
    (re.compile(r"/publishers/google/models/(?P<model>[^/:]+):generateContent$"),
     "gemini", "vertex"),
    (re.compile(r"/models/(?P<model>[^/:]+):generateContent$"), "gemini", "gemini"),
    (re.compile(r"/chat/completions$"), "openai", "openai"),
    (re.compile(r"/messages$"), "anthropic", "anthropic"),
]


def route_of(path: str) -> Route | None:
    """The route for a request path (without its query), or None when nothing serves it."""
    for pattern, protocol, platform in _PATTERNS:
        match = pattern.search(path)
        if match is not None:
            model = match.groupdict().get("model")
            return Route(protocol, platform, unquote(model) if model else None)
    return None
