"""Anthropic Messages on the official `anthropic` SDK.

Neutral messages differ from the wire in three ways: the system prompt is
a separate field, an assistant's tool calls are `tool_use` blocks, and tool
results travel in the next user turn as `tool_result` blocks (consecutive
turns of one role are merged, as the API requires alternation). Structured
output is a forced tool whose input schema is the response schema; when
the request offers its own tools too, `output_config.format` is used.
"""

from __future__ import annotations

import json
from typing import Any

import anthropic

from assay.case import content_text
from assay.output import Usage
from assay.providers import wire_values as wire
from assay.providers.base import ChatRequest, ChatResponse, RequestedToolCall
from assay.providers.calling import SDKProvider
from assay.providers.failures import malformed_body

RESPONSE_TOOL = "respond"
"""Name of the forced tool that carries a structured answer."""


class AnthropicProvider(SDKProvider):
    default_endpoint = "https://api.anthropic.com"
    _sdk = anthropic

    def __init__(self, config: Any, *, api_key: str | None, base_url: str | None,
                 **kwargs: Any) -> None:
        super().__init__(config, api_key=api_key, base_url=base_url, **kwargs)
        self.client = self._client(api_key, base_url, self._client_settings(
            anthropic.DefaultAioHttpClient, anthropic.DefaultAsyncHttpxClient))

    def _client(self, api_key: str | None, base_url: str | None,
                common: dict[str, Any]) -> anthropic.AsyncAnthropic:
        """The SDK client; the cloud platforms' subclasses build their own (`common`:
        `_client_settings`)."""
        return anthropic.AsyncAnthropic(api_key=api_key, base_url=base_url, **common)

    async def _send(self, request: ChatRequest) -> ChatResponse:
        system, messages = to_wire_messages(request.system, request.messages)
        params: dict[str, Any] = {
            "model": request.model, "max_tokens": request.max_tokens, "messages": messages,
        }
        if system:
            params["system"] = system
        tools: list[dict[str, Any]] = [
            {"name": t.name, "description": t.description, "input_schema": t.input_schema}
            for t in request.tools]
        structured_by_tool = request.response_schema is not None and not tools
        if structured_by_tool:
            tools = [{"name": RESPONSE_TOOL, "description": "Give the answer in this shape.",
                      "input_schema": request.response_schema}]
            params["tool_choice"] = {"type": "tool", "name": RESPONSE_TOOL}
        elif request.response_schema is not None:
            params["output_config"] = {
                "format": {"type": "json_schema", "schema": request.response_schema}
            }
        if tools:
            params["tools"] = tools
        params.update(request.extra)  # as the SDK's `extra_body` did: over the built fields,
        if request.temperature is not None:  # except the request's own temperature
            params["temperature"] = request.temperature
        # As for OpenAI: `client.post` sends the body as built (it is already the wire shape)
        # and `cast_to=object` returns the decoded JSON, skipping `messages.create()`'s
        # per-call argument handling and the construction of the SDK's response models.
        body = await self.client.post("/v1/messages", body=params, cast_to=object)
        return from_wire(body, structured_by_tool)

    async def aclose(self) -> None:
        await self.client.close()


def to_wire_messages(system: str | None,
                     messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """The system text and the Messages-API turns for neutral messages."""
    system_parts = [system] if system else []
    wire: list[dict[str, Any]] = []
    for message in messages:
        role = message["role"]
        if role == "system":
            system_parts.append(content_text(message.get("content")))
            continue
        if role == "tool":
            role, blocks = "user", [{
                "type": "tool_result", "tool_use_id": message["tool_call_id"],
                "content": content_text(message.get("content")),
                **({"is_error": True} if message.get("is_error") else {}),
            }]
        else:
            blocks = _blocks(message.get("content"))
            for call in message.get("tool_calls") or []:
                blocks.append({"type": "tool_use", "id": call["id"], "name": call["name"],
                               "input": call.get("arguments") or {}})
        if wire and wire[-1]["role"] == role:
            wire[-1]["content"].extend(blocks)
        else:
            wire.append({"role": role, "content": blocks})
    return "\n\n".join(system_parts), wire


def from_wire(body: Any, structured_by_tool: bool) -> ChatResponse:
    """The neutral response for a decoded Messages body; a value of the wrong type is a
    malformed response naming its field (see `wire_values`)."""
    if not isinstance(body, dict):
        raise malformed_body(body, TypeError())
    texts: list[str] = []
    calls: list[RequestedToolCall] = []
    for at, block in enumerate(wire.listing(wire.item(body, "content", "'content'"),
                                            "content")):
        where = f"content.{at}"
        block = wire.mapping(block, where)
        kind = wire.item(block, "type", f"{where}.type")
        if kind == "text":
            texts.append(wire.text(wire.item(block, "text", f"{where}.text"), f"{where}.text"))
        elif kind == "tool_use":
            tool = wire.name(wire.item(block, "name", f"'name' in {where}"), f"{where}.name")
            arguments = wire.mapping(block.get("input"), f"{where}.input", optional=True)
            if structured_by_tool and tool == RESPONSE_TOOL:
                texts.append(json.dumps(arguments, ensure_ascii=False))
            else:
                calls.append(RequestedToolCall(
                    id=wire.text(wire.item(block, "id", f"{where}.id"), f"{where}.id"),
                    name=tool, arguments=dict(arguments)))
    usage = wire.mapping(wire.item(body, "usage", "'usage'"), "usage")
    input_tokens = (wire.count(wire.item(usage, "input_tokens", "usage.input_tokens"),
                               "usage.input_tokens")
                    + wire.count(usage.get("cache_creation_input_tokens"),
                                 "usage.cache_creation_input_tokens", optional=True)
                    + wire.count(usage.get("cache_read_input_tokens"),
                                 "usage.cache_read_input_tokens", optional=True))
    return ChatResponse(
        text="".join(texts),
        tool_calls=calls,
        stop_reason=wire.label(body.get("stop_reason"), "stop_reason"),
        model=wire.label(body.get("model"), "model"),
        usage=Usage(input_tokens=input_tokens, output_tokens=wire.count(
            wire.item(usage, "output_tokens", "usage.output_tokens"), "usage.output_tokens")),
    )


def _blocks(content: Any) -> list[dict[str, Any]]:
    if content is None or content == "":
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [part if isinstance(part, dict) else {"type": "text", "text": str(part)}
            for part in content]
