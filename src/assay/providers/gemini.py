"""Gemini, on the Gemini API or on Vertex AI, through the official `google-genai` SDK.

Neutral messages differ from Gemini's turns in four ways: the assistant is
the `model` role, the system prompt is `system_instruction`, a tool call is
a `function_call` part, and a tool result is a `function_response` part
that names the function (found by the call's id). A response schema asks
for `application/json` with `response_json_schema`.

Gemini may give a call no id; one is made up (`call_<n>_<name>`), and a
call's thought signature (Gemini 3 refuses a tool result without it) is
kept by id and sent back with the call.

Google reports a rate limit's wait as `RetryInfo.retryDelay` in the error
body, not as a header: the retry loop is told it as a Retry-After.
"""

from __future__ import annotations

import sys
from typing import Any

from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from assay.case import content_text
from assay.output import Usage
from assay.providers.base import ChatRequest, ChatResponse, RequestedToolCall
from assay.providers.calling import SDKProvider
from assay.providers.failures import (
    CallFailure,
    malformed_body,
    parse_retry_after,
    status_failure,
)
from assay.providers.transport import transport_failure
from assay.redaction import redact

MAX_SIGNATURES = 100_000
"""Thought signatures kept at most (the oldest are dropped first)."""


class GeminiProvider(SDKProvider):
    default_endpoint = "https://generativelanguage.googleapis.com/"
    _sdk = genai_errors  # `_attempt` catches its APIError; `_classify` reads it

    def __init__(self, config: Any, *, vertex: bool, region: str | None = None,
                 project: str | None = None, **kwargs: Any) -> None:
        super().__init__(config, **kwargs)
        http_options = types.HttpOptions(
            base_url=kwargs["base_url"], timeout=int(config.timeout * 1000),
            headers=dict(config.headers) or None)  # no retry_options: the SDK never retries
        api_key = kwargs["api_key"]
        if vertex:
            self.client = genai.Client(vertexai=True, project=project, location=region,
                                       credentials=_access_token(api_key),
                                       http_options=http_options)
        else:
            self.client = genai.Client(api_key=api_key, http_options=http_options)
        self._signatures: dict[str, bytes] = {}

    async def _send(self, request: ChatRequest) -> ChatResponse:
        settings: dict[str, Any] = {
            "max_output_tokens": request.max_tokens,
            "automatic_function_calling": {"disable": True},
        }
        system = "\n\n".join(filter(None, [request.system, *(
            content_text(m.get("content")) for m in request.messages if m["role"] == "system")]))
        if system:
            settings["system_instruction"] = system
        if request.temperature is not None:
            settings["temperature"] = request.temperature
        if request.tools:
            settings["tools"] = [{"function_declarations": [
                {"name": t.name, "description": t.description,
                 "parameters_json_schema": t.input_schema} for t in request.tools]}]
        if request.response_schema is not None:
            settings["response_mime_type"] = "application/json"
            settings["response_json_schema"] = request.response_schema
        settings.update(request.extra)
        contents = to_contents(request.messages, self._signatures)
        try:
            response = await self.client.aio.models.generate_content(
                model=request.model, contents=contents,
                config=types.GenerateContentConfig.model_validate(settings))
        except _transport_errors() as exc:
            raise transport_failure(exc, endpoint=self.endpoint, timeout=self.config.timeout,
                                    sdk_says_timeout=False, secrets=self._secrets) from None
        return self._from_response(response)

    def _from_response(self, response: types.GenerateContentResponse) -> ChatResponse:
        if not response.candidates:
            feedback = response.prompt_feedback
            reason = feedback.block_reason if feedback is not None else None
            if reason is not None:
                raise CallFailure(f"the prompt was blocked ({_name(reason)})", False)
            raise malformed_body({}, KeyError("candidates"))
        candidate = response.candidates[0]
        parts = (candidate.content.parts if candidate.content is not None else None) or []
        texts = [part.text for part in parts if part.text and not part.thought]
        calls: list[RequestedToolCall] = []
        for index, part in enumerate(parts):
            call = part.function_call
            if call is None or not call.name:
                continue
            call_id = call.id or f"call_{index}_{call.name}"
            if part.thought_signature:
                self._keep_signature(call_id, part.thought_signature)
            calls.append(RequestedToolCall(id=call_id, name=call.name,
                                           arguments=dict(call.args or {})))
        usage = response.usage_metadata
        output_tokens = ((usage.candidates_token_count or 0) + (usage.thoughts_token_count or 0)
                         if usage is not None else 0)  # thinking is billed as output
        return ChatResponse(
            text="".join(texts), tool_calls=calls,
            stop_reason=_name(candidate.finish_reason) if candidate.finish_reason else None,
            model=response.model_version,
            usage=Usage(input_tokens=(usage.prompt_token_count or 0) if usage else 0,
                        output_tokens=output_tokens),
            usage_reported=usage is not None,
        )

    def _keep_signature(self, call_id: str, signature: bytes) -> None:
        if len(self._signatures) >= MAX_SIGNATURES:
            self._signatures.pop(next(iter(self._signatures)))
        self._signatures[call_id] = signature

    def _classify(self, exc: Exception) -> CallFailure:
        if isinstance(exc, genai_errors.APIError):
            detail = redact(str(exc.message or exc), self._secrets)
            wait = _retry_delay(exc.details)
            if wait is None:
                wait = parse_retry_after(getattr(exc.response, "headers", None))
            return status_failure(exc.code, detail, wait)
        return CallFailure("malformed response body (not the JSON the API promises)", True,
                           kind="malformed")

    async def aclose(self) -> None:
        await self.client.aio.aclose()


def to_contents(messages: list[dict[str, Any]],
                signatures: dict[str, bytes] | None = None) -> list[types.Content]:
    """Gemini turns for neutral messages (system messages travel apart, as the instruction)."""
    signatures = signatures or {}
    names: dict[str, str] = {}
    turns: list[types.Content] = []
    for message in messages:
        role = message["role"]
        if role == "system":
            continue
        parts: list[types.Part] = []
        if role == "tool":
            call_id = message.get("tool_call_id", "")
            key = "error" if message.get("is_error") else "output"
            parts.append(types.Part(function_response=types.FunctionResponse(
                id=call_id or None, name=names.get(call_id, call_id),
                response={key: content_text(message.get("content"))})))
            role = "user"
        else:
            text = content_text(message.get("content"))
            if text:
                parts.append(types.Part(text=text))
            for call in message.get("tool_calls") or []:
                names[call["id"]] = call["name"]
                parts.append(types.Part(
                    function_call=types.FunctionCall(id=call["id"], name=call["name"],
                                                     args=call.get("arguments") or {}),
                    thought_signature=signatures.get(call["id"])))
            role = "model" if role == "assistant" else "user"
        if turns and turns[-1].role == role:
            turns[-1].parts = [*(turns[-1].parts or []), *parts]
        else:
            turns.append(types.Content(role=role, parts=parts))
    return turns


def _access_token(token: str | None) -> Any:
    """Credentials for an access token; None lets the SDK find Application Default ones."""
    if token is None:
        return None
    from google.oauth2.credentials import Credentials

    return Credentials(token=token)  # type: ignore[no-untyped-call]


def _retry_delay(details: Any) -> float | None:
    """Seconds from a Google error's `RetryInfo` detail (`"retryDelay": "2.5s"`)."""
    error = details.get("error") if isinstance(details, dict) else None
    for detail in (error or {}).get("details") or []:
        delay = detail.get("retryDelay") if isinstance(detail, dict) else None
        if isinstance(delay, str) and delay.endswith("s"):
            try:
                return max(0.0, float(delay[:-1]))
            except ValueError:
                return None
    return None


def _transport_errors() -> tuple[type[BaseException], ...]:
    """What the SDK's HTTP clients raise when no HTTP answer came (aiohttp or httpx)."""
    errors: list[type[BaseException]] = [OSError, TimeoutError]
    for module, name in (("aiohttp", "ClientError"), ("httpx", "TransportError"),
                         ("httpx2", "TransportError")):
        loaded = sys.modules.get(module)
        if loaded is not None and hasattr(loaded, name):
            errors.append(getattr(loaded, name))
    return tuple(errors)


def _name(value: Any) -> str:
    return str(getattr(value, "value", value))
