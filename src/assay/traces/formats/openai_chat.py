"""A neutral JSONL of OpenAI-style chat messages, for agents that log their own way.

One message per line (`{"role": "user", "content": ...}`), or one whole
conversation per line (`{"messages": [...]}`, the fine-tuning layout).
Assistant tool calls may use the OpenAI wire shape
(`{"id", "type": "function", "function": {"name", "arguments": "<json>"}}`) or
assay's neutral shape (`{"id", "name", "arguments": {...}}`); tool results are
`{"role": "tool", "tool_call_id", "content", "is_error"?}`. Optional per-line
keys: `timestamp`, `model`, `usage` (`prompt_tokens`/`completion_tokens` or
`input_tokens`/`output_tokens`), `cost_usd`, and `reasoning` for thinking.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from assay.case import content_text
from assay.traces.formats.base import Line, ParseStats, cost_amount, token_count
from assay.traces.formats.shapes import (
    BLOCK,
    CONTENT,
    LIST,
    OBJECT,
    TEXT,
    TIME,
    Shape,
    shape_problem,
)
from assay.traces.records import (
    AssistantText,
    Event,
    Question,
    Thinking,
    ToolOutput,
    ToolUse,
    Turn,
)
from assay.wire_tool_call import read_tool_call

ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})


MESSAGE: Shape = {
    "role": TEXT, "content": CONTENT, "content[]": BLOCK, "content[].type": TEXT,
    "timestamp": TIME, "model": TEXT, "usage": OBJECT, "finish_reason": TEXT,
    "tool_calls": LIST, "tool_calls[]": OBJECT, "tool_calls[].id": TEXT,
    "tool_calls[].name": TEXT, "tool_calls[].function": OBJECT,
    "tool_calls[].function.name": TEXT, "tool_call_id": TEXT, "name": TEXT,
}
"""The fields of one message this reader uses and their JSON types."""


class OpenAIChatReader:
    name = "openai-chat"
    copy_keys: tuple[str, ...] = ()  # a line may hold only a role and text ("ok"), typed twice

    def sniff(self, first: dict[str, Any]) -> bool:
        if isinstance(first.get("messages"), list):
            return True
        role = first.get("role")
        return isinstance(role, str) and role in ROLES and "type" not in first

    def events(self, lines: Iterable[Line], stats: ParseStats) -> Iterator[Event]:
        for number, obj in lines:
            if isinstance(obj.get("messages"), list):
                for message in obj["messages"]:
                    if isinstance(message, dict):
                        yield from self._message(number, message, stats)
                    else:
                        stats.bad_line(number, "a message that is not an object")
            elif "role" in obj:
                yield from self._message(number, obj, stats)
            else:
                stats.unknown_kind("line without role or messages", number)

    def _message(self, number: int, message: dict[str, Any], stats: ParseStats) -> Iterator[Event]:
        problem = shape_problem(message, MESSAGE)
        if problem is not None:
            stats.bad_line(number, problem)
            return
        role = message.get("role")
        timestamp = message.get("timestamp")
        if role == "user":
            yield Question(content_text(message.get("content")), number, timestamp)
        elif role == "assistant":
            yield _turn(number, message, stats)
            reasoning = message.get("reasoning") or message.get("reasoning_content")
            if isinstance(reasoning, str) and reasoning:
                yield Thinking(reasoning, number)
            text = content_text(message.get("content"))
            if text:
                yield AssistantText(text, number, timestamp)
            for call in message.get("tool_calls") or ():
                yield _tool_use(number, call, timestamp, stats)
        elif role in ("tool", "function"):
            call_id = message.get("tool_call_id") or message.get("name")
            yield ToolOutput(str(call_id), content_text(message.get("content")),
                             bool(message.get("is_error")), number, timestamp)
        elif role in ("system", "developer"):
            stats.ignore(f"message:{role}")
        else:
            stats.unknown_kind(f"message:{role}", number)


def _turn(number: int, message: dict[str, Any], stats: ParseStats) -> Turn:
    usage = message.get("usage") or {}
    return Turn(
        line=number,
        model=message.get("model"),
        timestamp=message.get("timestamp"),
        input_tokens=token_count(usage, ("prompt_tokens", "input_tokens"), number, stats),
        output_tokens=token_count(usage, ("completion_tokens", "output_tokens"), number, stats),
        cost_usd=cost_amount(message.get("cost_usd"), "cost_usd", number, stats),
        stop_reason=message.get("finish_reason"),
    )


def _tool_use(number: int, call: Any, timestamp: str | None, stats: ParseStats) -> ToolUse:
    if not isinstance(call, dict):
        stats.bad_line(number, "a tool call that is not an object")
        return ToolUse("", "?", {}, number, timestamp)
    read = read_tool_call(call)
    if read.invalid_json:
        stats.bad_line(number, f"tool call {read.name!r}: arguments not JSON, kept as text")
    return ToolUse(str(read.id), str(read.name), read.arguments, number, timestamp)
