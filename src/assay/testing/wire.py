"""The wire protocols the fake server speaks: OpenAI Chat Completions, Anthropic Messages
and Gemini `generateContent`, on the paths each platform uses (see `platforms`).

Requests are parsed into one neutral `FakeRequest` so rules match the same
way whichever SDK sent them; replies are rendered back in the protocol that
was asked, as the real APIs would shape them.
"""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

from assay.testing.gemini_wire import gemini_body, gemini_error, parse_gemini
from assay.testing.platforms import Route, route_of
from assay.testing.script import FakeRequest, Fault, Reply

_ids = itertools.count(1)

FINGERPRINT = "fp_fake_llm"


def parse_request(path: str, headers: dict[str, str], body: dict[str, Any],
                  route: Route | None = None, query: str = "") -> FakeRequest:
    route = route or route_of(path) or Route("openai", "openai")
    if route.protocol == "gemini":
        request = parse_gemini(path, headers, body, route.model or "")
    elif route.protocol == "anthropic":
        request = _parse_anthropic(path, headers, body)
    else:
        request = _parse_openai(path, headers, body)
    if route.model is not None:
        request.model = route.model
    request.platform = route.platform
    request.query = query
    return request


def render_reply(request: FakeRequest, reply: Reply) -> dict[str, Any]:
    text = reply.text if reply.json is None else json.dumps(reply.json)
    output_tokens = reply.output_tokens
    if output_tokens is None:
        output_tokens = max(1, len(text) // 4 + 8 * len(reply.tool_calls))
    input_tokens = reply.input_tokens
    if input_tokens is None:
        input_tokens = max(1, _request_chars(request) // 4)
    if request.protocol == "anthropic":
        return _anthropic_body(request, reply, text, input_tokens, output_tokens)
    if request.protocol == "gemini":
        body = gemini_body(request, reply, text, input_tokens, output_tokens)
        if not reply.usage:
            body.pop("usageMetadata", None)
        return body
    body = _openai_body(request, reply, text, input_tokens, output_tokens)
    if not reply.usage:
        del body["usage"]
    return body


def render_fault(request: FakeRequest, fault: Fault) -> tuple[int, dict[str, str], dict[str, Any]]:
    """Status, extra headers and JSON body of an error response."""
    status, kind, message = {
        "rate_limit": (429, "rate_limit_error", "Rate limit reached; slow down."),
        "server_error": (500, "api_error", "Internal server error."),
        "unauthorized": (401, "authentication_error",
                         f"Invalid API key: {request.api_key or '(none)'}"),
        "bad_request": (400, "invalid_request_error", "Bad request: the request was rejected."),
    }[fault.kind]
    if request.protocol == "gemini":
        return status, {}, gemini_error(status, message, fault.retry_after)
    headers: dict[str, str] = {}
    if fault.kind == "rate_limit" and fault.retry_after is not None:
        headers["retry-after"] = f"{fault.retry_after:g}"
        headers["retry-after-ms"] = f"{fault.retry_after * 1000:g}"
    if request.protocol == "anthropic":
        body = {"type": "error", "error": {"type": kind, "message": message}}
    else:
        body = {"error": {"message": message, "type": kind, "code": None, "param": None}}
    return status, headers, body


def _parse_openai(path: str, headers: dict[str, str], body: dict[str, Any]) -> FakeRequest:
    system_parts: list[str] = []
    messages: list[dict[str, Any]] = []
    for message in body.get("messages") or []:
        role = message.get("role", "user")
        content = _text(message.get("content"))
        if role in ("system", "developer"):
            system_parts.append(content)
        else:
            messages.append({"role": role, "content": content})
    tools = [t.get("function", {}).get("name", "") for t in body.get("tools") or []]
    schema = None
    response_format = body.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema")
    return FakeRequest(
        protocol="openai", path=path, headers=headers, body=body,
        model=str(body.get("model", "")), system="\n".join(system_parts),
        messages=messages, tools=tools, response_schema=schema, received_at=time.monotonic(),
    )


def _parse_anthropic(path: str, headers: dict[str, str], body: dict[str, Any]) -> FakeRequest:
    system = body.get("system") or ""
    messages: list[dict[str, Any]] = []
    for message in body.get("messages") or []:
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        if results:
            for result in results:
                messages.append({"role": "tool", "content": _text(result.get("content"))})
        else:
            messages.append({"role": message.get("role", "user"), "content": _text(blocks)})
    tools = [t.get("name", "") for t in body.get("tools") or []]
    choice = body.get("tool_choice") or {}
    forced = choice.get("name") if choice.get("type") == "tool" else None
    schema = ((body.get("output_config") or {}).get("format") or {}).get("schema")
    if forced is not None:
        schema = next((t.get("input_schema") for t in body.get("tools") or []
                       if t.get("name") == forced), schema)
    return FakeRequest(
        protocol="anthropic", path=path, headers=headers, body=body,
        model=str(body.get("model", "")), system=_text(system), messages=messages,
        tools=tools, forced_tool=forced, response_schema=schema, received_at=time.monotonic(),
    )


def _openai_body(request: FakeRequest, reply: Reply, text: str,
                 input_tokens: int, output_tokens: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": call.get("id") or f"call_{next(_ids)}", "type": "function",
             "function": {"name": call["name"],
                          "arguments": json.dumps(call.get("arguments", {}))}}
            for call in reply.tool_calls
        ]
    finish = reply.stop_reason or ("tool_calls" if reply.tool_calls else "stop")
    return {
        "id": f"chatcmpl-{next(_ids)}", "object": "chat.completion", "created": int(time.time()),
        "model": request.model, "system_fingerprint": FINGERPRINT,
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {"prompt_tokens": input_tokens, "completion_tokens": output_tokens,
                  "total_tokens": input_tokens + output_tokens},
    }


def _anthropic_body(request: FakeRequest, reply: Reply, text: str,
                    input_tokens: int, output_tokens: int) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    calls = list(reply.tool_calls)
    if request.forced_tool is not None and reply.json is not None:
        calls.insert(0, {"name": request.forced_tool, "arguments": reply.json})
    elif text:
        content.append({"type": "text", "text": text})
    for call in calls:
        content.append({"type": "tool_use", "id": call.get("id") or f"toolu_{next(_ids)}",
                        "name": call["name"], "input": call.get("arguments", {})})
    stop = reply.stop_reason or ("tool_use" if calls else "end_turn")
    return {
        "id": f"msg_{next(_ids)}", "type": "message", "role": "assistant",
        "model": request.model, "content": content, "stop_reason": stop, "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    }


def _request_chars(request: FakeRequest) -> int:
    return len(request.system) + sum(len(m["content"]) for m in request.messages)


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(_text(part.get("text", part.get("content")))
                       for part in content if isinstance(part, dict))
    return str(content)
