"""The provider interface: one chat call in a wire-neutral shape.

Targets, agents and judges speak only these types; each provider adapts
them to its SDK (Anthropic Messages, OpenAI Chat Completions).

Messages use a neutral, OpenAI-like shape:
- `{"role": "system" | "user" | "assistant", "content": str}`
- an assistant turn with tool calls:
  `{"role": "assistant", "content": str, "tool_calls": [{"id", "name", "arguments": dict}]}`
- a tool result: `{"role": "tool", "tool_call_id": str, "content": str, "is_error": bool}`
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from assay.output import Usage


@dataclass(slots=True)
class ToolSpec:
    """A tool offered to the model: a name, a description and a JSON Schema for its input."""

    name: str
    description: str = ""
    input_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object"})


@dataclass(slots=True)
class ChatRequest:
    model: str
    """The model name as the provider knows it (no `provider/` prefix)."""
    messages: list[dict[str, Any]]
    system: str | None = None
    tools: list[ToolSpec] = field(default_factory=list)
    temperature: float | None = None
    max_tokens: int = 1024
    response_schema: dict[str, Any] | None = None
    """Ask for JSON matching this schema (structured output) where the provider can."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Provider-specific parameters passed through as is."""
    cache_tag: str | None = None
    """Part of the cache key only, never sent: tells apart requests that are otherwise
    identical but must be asked separately (e.g. `repeat-2` of a judge), so each is
    still cached and a resumed run pays for none of them twice."""


@dataclass(slots=True)
class RequestedToolCall:
    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(slots=True)
class ChatResponse:
    text: str
    tool_calls: list[RequestedToolCall] = field(default_factory=list)
    stop_reason: str | None = None
    model: str | None = None
    system_fingerprint: str | None = None
    usage: Usage = field(default_factory=Usage)
    latency_ms: float = 0.0
    cached: bool = False
    usage_reported: bool = True
    """False when the reply carried no token usage: its tokens (0 in `usage`) and so its
    cost are unknown, never a cost of $0."""


class Provider(Protocol):
    """Something that answers chat requests. Implementations retry, limit and cache."""

    name: str

    async def chat(self, request: ChatRequest, *, use_cache: bool = True) -> ChatResponse: ...

    async def aclose(self) -> None: ...
