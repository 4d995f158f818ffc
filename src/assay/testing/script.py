"""What the fake LLM server says: replies, faults and the rules that pick them.

A script is a list of `Rule`s tried in order over a parsed `FakeRequest`;
the first rule that matches gives the `Reply`. Rules match on the last user
message, the system prompt, the model, the presence of tools or of a tool
result, the wire protocol, or any Python callable. A rule's reply may be a
sequence (the n-th match gets the n-th reply, the last one repeats), which
scripts a multi-turn tool loop or a judge that changes its mind.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

FaultKind = Literal[
    "rate_limit", "server_error", "timeout", "malformed", "unauthorized", "bad_request",
    "html", "cut"
]


@dataclass(slots=True)
class Fault:
    """A failure the server answers with instead of a reply.

    - `rate_limit`: HTTP 429 with `Retry-After` (seconds, may be fractional)
    - `server_error`: HTTP 500
    - `timeout`: the server holds the request for `hang_seconds` (beyond the client's timeout)
    - `malformed`: HTTP 200 whose body is not valid JSON
    - `unauthorized`: HTTP 401; `bad_request`: HTTP 400
    - `html`: HTTP 200 with an HTML page (a proxy's or a captive portal's)
    - `cut`: HTTP 200 whose body stops half-way and the connection closes
    """

    kind: FaultKind
    retry_after: float | None = 1.0
    hang_seconds: float = 300.0


@dataclass(slots=True)
class Reply:
    """One scripted answer, rendered in whichever wire protocol was asked.

    `json` (any JSON value) becomes the answer text as JSON, or the input of
    the forced tool when an Anthropic request forces one (structured output).
    `tool_calls` are `{"name": ..., "arguments": {...}}` dicts (an `id` is
    made up when missing). Token counts default to about one per 4 characters.
    """

    text: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    json: Any = None
    stop_reason: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    latency: float | None = None
    """Seconds to wait before answering; overrides the server's latency."""
    fault: Fault | None = None
    body: Any = None
    """When set, sent as the 200 body in place of the rendered reply (bytes as they are,
    anything else as JSON): a reply that breaks the wire protocol."""
    usage: bool = True
    """False: the reply carries no token usage, as some OpenAI-compatible servers send
    (OpenAI and Gemini wire protocols; Anthropic's always has it)."""


@dataclass(slots=True)
class FakeRequest:
    """A received request, parsed the same way for both wire protocols."""

    protocol: Literal["openai", "anthropic", "gemini"]
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    model: str
    system: str
    messages: list[dict[str, Any]]
    """Messages as `{"role": ..., "content": text}`; tool results have role `tool`."""
    tools: list[str]
    """Names of the tools offered."""
    forced_tool: str | None = None
    response_schema: dict[str, Any] | None = None
    received_at: float = 0.0
    platform: str = ""
    """Who serves this wire shape here: openai, anthropic, vertex, bedrock, azure or gemini."""
    query: str = ""
    """The URL's query string (Azure sends `api-version=` there)."""

    @property
    def last_user(self) -> str:
        for message in reversed(self.messages):
            if message["role"] == "user":
                return str(message["content"])
        return ""

    @property
    def after_tool_result(self) -> bool:
        """True when the last message carries a tool result (the loop's next turn)."""
        return bool(self.messages) and self.messages[-1]["role"] == "tool"

    @property
    def api_key(self) -> str | None:
        """The credential sent: a bearer token, an API key header, or (AWS SigV4) the
        access key id; the signature itself is not checked."""
        auth = self.headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            return auth[7:]
        if auth.startswith("AWS4-HMAC-SHA256 "):
            return auth.partition("Credential=")[2].partition("/")[0] or None
        for header in ("x-api-key", "api-key", "x-goog-api-key"):
            if header in self.headers:
                return self.headers[header]
        return None


TextMatch = str | re.Pattern[str] | None
ReplySource = Reply | str | Callable[[FakeRequest], "Reply | str"]


@dataclass
class Rule:
    """When every given condition holds, answer with `reply`.

    A `str` condition matches as a substring, a compiled `re.Pattern` with
    `search`. `reply` may be a Reply, a plain text, a callable of the request,
    or a sequence of those (consumed in order, the last one repeating).
    `times` limits how often the rule may match at all.
    """

    reply: ReplySource | Sequence[ReplySource]
    user: TextMatch = None
    system: TextMatch = None
    model: TextMatch = None
    has_tools: bool | None = None
    after_tool_result: bool | None = None
    protocol: Literal["openai", "anthropic", "gemini"] | None = None
    when: Callable[[FakeRequest], bool] | None = None
    times: int | None = None
    matched: int = field(default=0, init=False)

    def matches(self, request: FakeRequest) -> bool:
        if self.times is not None and self.matched >= self.times:
            return False
        checks = (
            _text_matches(self.user, request.last_user),
            _text_matches(self.system, request.system),
            _text_matches(self.model, request.model),
            self.has_tools is None or self.has_tools == bool(request.tools),
            self.after_tool_result is None or self.after_tool_result == request.after_tool_result,
            self.protocol is None or self.protocol == request.protocol,
        )
        if not all(checks):
            return False
        return self.when is None or bool(self.when(request))

    def take(self, request: FakeRequest) -> Reply:
        """The reply for this match (advancing a sequence)."""
        index = self.matched
        self.matched += 1
        source = self.reply
        if isinstance(source, Sequence) and not isinstance(source, str):
            if not source:
                raise ValueError("a Rule's reply sequence is empty")
            source = source[min(index, len(source) - 1)]
        return resolve_reply(source, request)


def resolve_reply(source: ReplySource, request: FakeRequest) -> Reply:
    """Turn a reply source (text, Reply or callable) into a Reply."""
    if callable(source) and not isinstance(source, Reply):
        source = source(request)
    if isinstance(source, str):
        return Reply(text=source)
    if isinstance(source, Reply):
        return source
    raise TypeError(f"a fake reply must be a Reply or a str, not {type(source).__name__}")


def _text_matches(pattern: TextMatch, text: str) -> bool:
    if pattern is None:
        return True
    if isinstance(pattern, re.Pattern):
        return pattern.search(text) is not None
    return pattern in text
