"""OpenAI Chat Completions on the official `openai` SDK.

Also serves any OpenAI-compatible server by `base_url` (Ollama, vLLM,
llama.cpp server, LM Studio). Neutral messages are nearly the wire shape
already; tool calls carry JSON-encoded arguments, and a response schema
becomes `response_format: json_schema`.
"""

from __future__ import annotations

import json
from typing import Any, cast

from assay.output import Usage
from assay.providers import wire_values as wire
from assay.providers.base import ChatRequest, ChatResponse, RequestedToolCall, ToolSpec
from assay.providers.calling import SDKProvider
from assay.providers.failures import CallFailure, malformed_body
from assay.providers.openai_sdk import (
    AsyncOpenAI,
    DefaultAioHttpClient,
    DefaultAsyncHttpxClient,
    exceptions,
)
from assay.wire_tool_call import tool_arguments


class OpenAIProvider(SDKProvider):
    default_endpoint = "https://api.openai.com/v1"
    _sdk = exceptions

    def __init__(self, config: Any, *, api_key: str | None, base_url: str | None,
                 **kwargs: Any) -> None:
        super().__init__(config, api_key=api_key, base_url=base_url, **kwargs)
        self.client = self._client(api_key, base_url, self._client_settings(
            DefaultAioHttpClient, DefaultAsyncHttpxClient))
        self.max_tokens_field = config.max_tokens_field or (
            "max_completion_tokens" if base_url is None else "max_tokens"
        )
        self.chat_path = self._chat_path()

    def _client(self, api_key: str | None, base_url: str | None,
                common: dict[str, Any]) -> AsyncOpenAI:
        """The SDK client; Azure's subclass builds its own (`common`: `_client_settings`)."""
        # compatible servers may need no key; the SDK wants one
        return AsyncOpenAI(api_key=api_key or "unused", base_url=base_url, **common)

    def _chat_path(self) -> str:
        """Where Chat Completions are posted: the SDK's own merge of the client's base URL
        and `/chat/completions`, done once. The SDK reads the path with `httpx.URL(path)`,
        which takes a URL as it is; given the text, it parsed and merged it again for every
        call, a tenth of a millisecond of CPU each."""
        base = self.client.base_url
        url = base.copy_with(raw_path=base.raw_path + b"chat/completions")
        return cast(str, url)

    async def _send(self, request: ChatRequest) -> ChatResponse:
        params = wire_request(request, request.model, self.max_tokens_field)
        params.update(request.extra)
        # `client.post` is the SDK's documented way to send a body as is. `create()` would
        # first walk every key and nested JSON Schema through its TypedDict transform: about
        # 1 ms of CPU per call, a quarter of a core at a few hundred calls a second. The body
        # we build is already the wire shape, so the walk buys nothing. `cast_to=object`
        # returns the decoded JSON: building the SDK's models from it (unvalidated, only to
        # read five fields) cost another tenth of a millisecond per call.
        body = await self.client.post(self.chat_path, body=params, cast_to=object)
        return from_wire(body)

    async def aclose(self) -> None:
        await self.client.close()


def wire_request(request: ChatRequest, model: str,
                 max_tokens_field: str = "max_tokens") -> dict[str, Any]:
    """A request as a Chat Completions body (before its `extra`): the model as the server
    names it, the messages, the token limit under `max_tokens_field`, and the temperature,
    tools and response format when the request sets them."""
    params: dict[str, Any] = {
        "model": model,
        "messages": to_wire_messages(request.system, request.messages),
        max_tokens_field: request.max_tokens,
    }
    if request.temperature is not None:
        params["temperature"] = request.temperature
    if request.tools:
        params["tools"] = wire_tools(request.tools)
    if request.response_schema is not None:
        params["response_format"] = wire_response_format(request.response_schema)
    return params


def wire_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    """Tools as Chat Completions functions."""
    return [{"type": "function", "function": {"name": tool.name, "description": tool.description,
                                              "parameters": tool.input_schema}}
            for tool in tools]


def wire_response_format(schema: dict[str, Any]) -> dict[str, Any]:
    """Structured output as Chat Completions asks for it."""
    return {"type": "json_schema", "json_schema": {"name": "response", "schema": schema}}


def to_wire_messages(system: str | None, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    wire: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for message in messages:
        role = message["role"]
        if role == "assistant" and message.get("tool_calls"):
            wire.append({
                "role": "assistant",
                "content": message.get("content") or None,
                "tool_calls": [
                    {"id": call["id"], "type": "function",
                     "function": {"name": call["name"],
                                  "arguments": json.dumps(call.get("arguments") or {})}}
                    for call in message["tool_calls"]
                ],
            })
        elif role == "tool":
            content = message.get("content", "")
            if message.get("is_error"):
                content = f"Error: {content}"
            wire.append({"role": "tool", "tool_call_id": message["tool_call_id"],
                         "content": content})
        else:
            wire.append({"role": role, "content": message.get("content", "")})
    return wire


def from_wire(body: Any) -> ChatResponse:
    """The neutral response for a decoded Chat Completions body; a value of the wrong type
    is a malformed response naming its field (see `wire_values`)."""
    if not isinstance(body, dict):
        raise malformed_body(body, TypeError())
    if body.get("choices") == []:
        raise CallFailure("malformed response body (no choices)", True, kind="malformed")
    choice = wire.mapping(wire.item(wire.item(body, "choices", "'choices'"), 0, "choices.0"),
                          "choices.0")
    message = wire.mapping(wire.item(choice, "message", "'message'"), "choices.0.message")
    calls = []
    for at, call in enumerate(wire.listing(message.get("tool_calls"),
                                           "message.tool_calls", optional=True)):
        where = f"message.tool_calls.{at}"
        call = wire.mapping(call, where)
        if call.get("function") is None:
            continue  # not a function call (a custom tool's): not ours to run
        function = wire.mapping(call["function"], f"{where}.function")
        calls.append(RequestedToolCall(
            id=wire.text(wire.item(call, "id", f"{where}.id"), f"{where}.id"),
            name=wire.name(function.get("name"), f"{where}.function.name"),
            arguments=_arguments(function.get("arguments"), f"{where}.function.arguments")))
    usage = wire.mapping(body.get("usage"), "usage", optional=True)
    content = wire.text(message.get("content"), "message.content", optional=True)
    refusal = wire.text(message.get("refusal"), "message.refusal", optional=True) \
        if not content else ""
    return ChatResponse(  # a refusal's words are the answer: what the model said instead
        text=content or refusal,
        tool_calls=calls,
        stop_reason="refusal" if refusal else wire.label(choice.get("finish_reason"),
                                                         "choices.0.finish_reason"),
        model=wire.label(body.get("model"), "model"),
        system_fingerprint=wire.label(body.get("system_fingerprint"), "system_fingerprint"),
        usage=Usage(input_tokens=wire.count(usage.get("prompt_tokens"), "usage.prompt_tokens",
                                            optional=True),
                    output_tokens=wire.count(usage.get("completion_tokens"),
                                             "usage.completion_tokens", optional=True)),
        usage_reported=bool(usage),
    )


def _arguments(raw: Any, field: str) -> dict[str, Any]:
    """Tool arguments as a dict (`tool_arguments`: a model's invalid JSON is kept visible,
    not dropped). Some compatible servers send the arguments as an object rather than JSON
    text; anything else is a malformed response."""
    if raw is not None and not isinstance(raw, dict):
        wire.text(raw, field)
    return tool_arguments(raw)[0]
