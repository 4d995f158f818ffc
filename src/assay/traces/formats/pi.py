"""pi coding-agent sessions: the legacy v1 layout and the tree layouts v2/v3.

v1 has a header without `version`, no `id`/`parentId`, and compaction
entries that point at `firstKeptEntryIndex`. v2 and v3 add `id`/`parentId`
on every entry (a tree that allows branches) and v3 renames the
`hookMessage` role to `custom`. Entries are read in file order, which is
the order they happened in, so branches need no special handling: a
question asked on a new branch is simply the next question.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from assay.case import content_text
from assay.traces.formats.base import Line, ParseStats, cost_amount, token_count
from assay.traces.formats.shapes import (
    BLOCK,
    CONTENT,
    NUMBER,
    OBJECT,
    TEXT,
    TIME,
    Shape,
    shape_problem,
)
from assay.traces.records import (
    AssistantText,
    Compaction,
    Event,
    Question,
    SessionInfo,
    Thinking,
    ToolOutput,
    ToolUse,
    Turn,
)

KNOWN_VERSIONS = (1, 2, 3)

# Entry types and message roles that never take part in a question/answer exchange.
IGNORED_ENTRIES = frozenset({
    "thinking_level_change", "label", "custom", "custom_message", "branch_summary",
})
IGNORED_ROLES = frozenset({
    "bashExecution", "custom", "hookMessage", "branchSummary", "compactionSummary",
})


LINE: Shape = {
    "type": TEXT, "timestamp": TIME, "id": TEXT, "modelId": TEXT, "cwd": TEXT, "name": TEXT,
    "version": NUMBER,
    "message": OBJECT, "message.role": TEXT, "message.content": CONTENT,
    "message.content[]": BLOCK, "message.content[].type": TEXT,
    "message.content[].text": TEXT, "message.content[].thinking": TEXT,
    "message.content[].id": TEXT, "message.content[].name": TEXT,
    "message.content[].arguments": OBJECT, "message.usage": OBJECT,
    "message.model": TEXT, "message.stopReason": TEXT, "message.errorMessage": TEXT,
    "message.toolCallId": TEXT,
}
"""The fields this reader uses and their JSON types."""


class PiReader:
    name = "pi"
    copy_keys: tuple[str, ...] = ("id", "timestamp")

    def sniff(self, first: dict[str, Any]) -> bool:
        kind = first.get("type")
        if kind == "session":
            return first.get("version", 1) in KNOWN_VERSIONS and "id" in first
        return kind == "message" and isinstance(first.get("message"), dict)

    def events(self, lines: Iterable[Line], stats: ParseStats) -> Iterator[Event]:
        for number, entry in lines:
            problem = shape_problem(entry, LINE)
            if problem is not None:
                stats.bad_line(number, problem)
                continue
            kind = entry.get("type")
            if kind == "message":
                message = entry.get("message")
                if not isinstance(message, dict):
                    stats.bad_line(number, "message entry without a message object")
                    continue
                yield from self._message(number, entry.get("timestamp"), message, stats)
            elif kind == "session":
                yield SessionInfo(
                    session_id=entry.get("id"), started=entry.get("timestamp"),
                    model=entry.get("modelId"), cwd=entry.get("cwd"),
                )
            elif kind == "session_info":
                yield SessionInfo(name=entry.get("name"))
            elif kind == "model_change":
                yield SessionInfo(model=entry.get("modelId"))
            elif kind == "compaction":
                yield Compaction(number, entry.get("timestamp"))
            elif kind in IGNORED_ENTRIES:
                stats.ignore(kind)
            else:
                stats.unknown_kind(str(kind), number)

    def _message(self, number: int, timestamp: str | None, message: dict[str, Any],
                 stats: ParseStats) -> Iterator[Event]:
        role = message.get("role")
        if role == "assistant":
            yield _turn(number, timestamp, message, stats)
            for block in message.get("content") or ():
                if not isinstance(block, dict):
                    continue
                btype = block.get("type")
                if btype == "text":
                    yield AssistantText(block.get("text") or "", number, timestamp)
                elif btype == "thinking":
                    yield Thinking(block.get("thinking") or "", number)
                elif btype == "toolCall":
                    yield ToolUse(str(block.get("id")), str(block.get("name")),
                                  block.get("arguments") or {}, number, timestamp)
        elif role == "toolResult":
            yield ToolOutput(str(message.get("toolCallId")), content_text(message.get("content")),
                             bool(message.get("isError")), number, timestamp)
        elif role == "user":
            yield Question(content_text(message.get("content")), number, timestamp)
        elif role in IGNORED_ROLES:
            stats.ignore(f"message:{role}")
        else:
            stats.unknown_kind(f"message:{role}", number)


def _turn(number: int, timestamp: str | None, message: dict[str, Any],
          stats: ParseStats) -> Turn:
    usage = message.get("usage") or {}
    cost = usage.get("cost")
    stop = message.get("stopReason")

    def tokens(key: str) -> int:
        return token_count(usage, (key,), number, stats, "message.usage")

    return Turn(
        line=number,
        model=message.get("model"),
        timestamp=timestamp,
        input_tokens=tokens("input"),
        output_tokens=tokens("output"),
        cache_read_tokens=tokens("cacheRead"),
        cache_write_tokens=tokens("cacheWrite"),
        cost_usd=cost_amount(cost.get("total"), "message.usage.cost.total", number, stats)
        if isinstance(cost, dict) else None,
        stop_reason=stop,
        error=message.get("errorMessage") if stop in ("error", "aborted") else None,
    )
