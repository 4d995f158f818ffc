"""The Gemini `generateContent` wire shape, for the fake server.

Gemini names roles `user` and `model`, carries text, `functionCall` and
`functionResponse` as parts of a turn, puts the system prompt in
`systemInstruction` and the sampling settings in `generationConfig`. A
rate limit says how long to wait in a `RetryInfo` detail, not a header.
"""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

from assay.testing.script import FakeRequest, Reply

_ids = itertools.count(1)

STATUS_NAMES = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 429: "RESOURCE_EXHAUSTED",
                500: "INTERNAL"}


def parse_gemini(path: str, headers: dict[str, str], body: dict[str, Any],
                 model: str) -> FakeRequest:
    """A received `generateContent` request in the neutral shape rules match on."""
    messages: list[dict[str, Any]] = []
    for turn in body.get("contents") or []:
        parts = [part for part in turn.get("parts") or [] if isinstance(part, dict)]
        results = [part["functionResponse"] for part in parts if "functionResponse" in part]
        if results:
            for result in results:
                messages.append({"role": "tool", "content": _result_text(result)})
            continue
        role = "assistant" if turn.get("role") == "model" else "user"
        messages.append({"role": role, "content": "".join(
            str(part.get("text", "")) for part in parts)})
    system = "".join(str(part.get("text", "")) for part in
                     (body.get("systemInstruction") or {}).get("parts") or [])
    tools = [declaration.get("name", "")
             for tool in body.get("tools") or []
             for declaration in tool.get("functionDeclarations") or []]
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    return FakeRequest(
        protocol="gemini", path=path, headers=headers, body=body, model=model, system=system,
        messages=messages, tools=tools, response_schema=schema, received_at=time.monotonic(),
    )


def gemini_body(request: FakeRequest, reply: Reply, text: str,
                input_tokens: int, output_tokens: int) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"text": text}] if text else []
    for call in reply.tool_calls:
        function_call: dict[str, Any] = {"name": call["name"],
                                         "args": call.get("arguments", {})}
        if call.get("id"):
            function_call["id"] = call["id"]
        parts.append({"functionCall": function_call})
    return {
        "candidates": [{"content": {"role": "model", "parts": parts},
                        "finishReason": reply.stop_reason or "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": input_tokens,
                          "candidatesTokenCount": output_tokens,
                          "totalTokenCount": input_tokens + output_tokens},
        "modelVersion": request.model,
        "responseId": f"resp_{next(_ids)}",
    }


def gemini_error(status: int, message: str, retry_after: float | None) -> dict[str, Any]:
    """A Google API error body; a rate limit carries its wait as `RetryInfo.retryDelay`."""
    error: dict[str, Any] = {"code": status, "message": message,
                             "status": STATUS_NAMES.get(status, "UNKNOWN")}
    if status == 429 and retry_after is not None:
        error["details"] = [{"@type": "type.googleapis.com/google.rpc.RetryInfo",
                             "retryDelay": f"{retry_after:g}s"}]
    return {"error": error}


def _result_text(result: dict[str, Any]) -> str:
    response = result.get("response")
    if isinstance(response, dict) and set(response) == {"output"}:
        response = response["output"]
    return response if isinstance(response, str) else json.dumps(response)
