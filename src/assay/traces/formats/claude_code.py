"""Claude Code transcripts (`~/.claude/projects/<project>/<session>.jsonl`).

The shape, and how it differs across CLI versions:
- An assistant response is split one content block per line; the lines share
  `message.id` and repeat its usage, so a turn is counted once per id.
- Tool results arrive as `type: user` lines holding `tool_result` blocks linked
  by `tool_use_id` (2.x adds `sourceToolAssistantUUID` and `toolUseResult`).
- Subagents: 1.0.x writes their lines inline with `isSidechain: true`; 2.x
  writes them to separate files (all lines `isSidechain: true`) and mirrors
  them into the parent as `progress` lines of type `agent_progress`. Both are
  read as subagent activity: their reads and tool calls count for the
  exchange, their text is not the answer.
- Compaction: 2.x writes a `system` line of subtype `compact_boundary`, then a
  user line with `isCompactSummary`; 1.0.x has only the summary user line.
- `summary` lines (1.0.x) and `custom-title` lines name the session.

What counts as a question is decided in `classify_user_text`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from assay.case import content_text
from assay.traces.formats.base import Line, ParseStats, cost_amount, token_count
from assay.traces.formats.shapes import BLOCK, CONTENT, OBJECT, TEXT, TIME, Shape, shape_problem
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

# Top-level line types that carry nothing for exchanges.
IGNORED_TYPES = frozenset({
    "file-history-snapshot", "queue-operation", "last-prompt", "pr-link", "agent-name",
    "agent-setting", "mode", "attachment",
})
# Top-level types that only Claude Code writes, used to recognise a file.
MARKER_TYPES = frozenset({"summary", "file-history-snapshot", "queue-operation", "custom-title"})
LINE_TYPES = frozenset({"user", "assistant", "system", "progress"}) | IGNORED_TYPES | MARKER_TYPES

_COMMAND_NAME = re.compile(r"<command-name>(.*?)</command-name>", re.DOTALL)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
_LOCAL_PREFIXES = ("<local-command-", "<bash-input>", "<bash-stdout>", "<bash-stderr>")


def classify_user_text(text: str) -> tuple[str, str]:
    """Sort a user line's text: ("question" | "command" | a reason it is not one, text).

    Not questions: interrupt markers the CLI writes, the output of local
    commands and `!` shell commands. A slash command is a question only if
    the model replies to it (custom commands do, `/model` or `/mcp` do not);
    the exchange builder drops a command that got no reply.
    """
    stripped = text.lstrip()
    if not stripped:
        return "empty", text
    if stripped.startswith("[Request interrupted by user"):
        return "interrupt", text
    if stripped.startswith(_LOCAL_PREFIXES):
        return "local-output", text
    name = _COMMAND_NAME.search(stripped[:2000])
    if name and stripped.startswith("<command-"):
        args = _COMMAND_ARGS.search(stripped)
        command = name.group(1).strip()
        argument = args.group(1).strip() if args else ""
        return "command", f"{command} {argument}".strip()
    return "question", text


MESSAGE: Shape = {
    "message": OBJECT, "message.id": TEXT, "message.model": TEXT, "message.stop_reason": TEXT,
    "message.usage": OBJECT, "message.content": CONTENT, "message.content[]": BLOCK,
    "message.content[].type": TEXT, "message.content[].text": TEXT,
    "message.content[].thinking": TEXT, "message.content[].id": TEXT,
    "message.content[].name": TEXT, "message.content[].input": OBJECT,
    "message.content[].tool_use_id": TEXT, "message.content[].content": CONTENT,
}
LINE: Shape = {
    "type": TEXT, "timestamp": TIME, "sessionId": TEXT, "cwd": TEXT, "subtype": TEXT,
    "summary": TEXT, "customTitle": TEXT, **MESSAGE,
    "data": OBJECT, "data.type": TEXT, "data.message": OBJECT,
}
"""The fields this reader uses and their JSON types; a subagent line mirrored in a
`progress` line (`data.message`) is itself checked against `LINE`."""


class ClaudeCodeReader:
    name = "claude-code"
    copy_keys: tuple[str, ...] = ("uuid", "timestamp")

    def sniff(self, first: dict[str, Any]) -> bool:
        kind = first.get("type")
        if not isinstance(kind, str):
            return False
        if kind in MARKER_TYPES:
            return True
        return kind in LINE_TYPES and "sessionId" in first

    def events(self, lines: Iterable[Line], stats: ParseStats) -> Iterator[Event]:
        state = _State(stats)
        for number, obj in lines:
            problem = shape_problem(obj, LINE)
            if problem is None and isinstance(obj.get("data"), dict) and isinstance(
                    obj["data"].get("message"), dict):
                problem = shape_problem(obj["data"]["message"], LINE)
            if problem is not None:
                stats.bad_line(number, problem)
                continue
            session_id = obj.get("sessionId")
            if isinstance(session_id, str) and session_id and session_id != state.session_id:
                state.session_id = session_id  # the file's session, or the next one it holds
                yield SessionInfo(session_id=session_id, started=obj.get("timestamp"),
                                  cwd=obj.get("cwd"))
            kind = obj.get("type")
            if kind == "assistant":
                yield from state.assistant(number, obj, bool(obj.get("isSidechain")))
            elif kind == "user":
                yield from self._user(number, obj, state, stats)
            elif kind == "progress":
                data = obj.get("data") or {}
                if data.get("type") == "agent_progress" and isinstance(data.get("message"), dict):
                    yield from self._nested(number, data["message"], state, stats)
                else:
                    stats.ignore(f"progress:{data.get('type')}")
            elif kind == "system":
                if obj.get("subtype") == "compact_boundary":
                    yield Compaction(number, obj.get("timestamp"))
                else:
                    stats.ignore(f"system:{obj.get('subtype') or 'message'}")
            elif kind == "summary":
                yield SessionInfo(name=obj.get("summary"))
            elif kind == "custom-title":
                yield SessionInfo(name=obj.get("customTitle"))
            elif kind in IGNORED_TYPES:
                stats.ignore(kind)
            else:
                stats.unknown_kind(str(kind), number)

    def _nested(self, number: int, inner: dict[str, Any], state: _State,
                stats: ParseStats) -> Iterator[Event]:
        """A subagent line mirrored into a `progress` line of the parent (2.x)."""
        if inner.get("type") == "assistant":
            yield from state.assistant(number, inner, True)
        elif inner.get("type") == "user":
            yield from _tool_outputs(number, inner, stats, subagent=True)
        else:
            stats.ignore(f"progress:agent_progress:{inner.get('type')}")

    def _user(self, number: int, obj: dict[str, Any], state: _State,
              stats: ParseStats) -> Iterator[Event]:
        if obj.get("isCompactSummary"):
            yield Compaction(number, obj.get("timestamp"))
            return
        if obj.get("isSidechain"):
            yield from _tool_outputs(number, obj, stats, subagent=True)
            return
        content = (obj.get("message") or {}).get("content")
        if isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") == "tool_result" for b in content
        ):
            yield from _tool_outputs(number, obj, stats, subagent=False)
            return
        if obj.get("isMeta"):
            stats.ignore("user:meta")
            return
        verdict, text = classify_user_text(content_text(content))
        if verdict in ("question", "command"):
            yield Question(text, number, obj.get("timestamp"), is_command=verdict == "command")
        else:
            stats.ignore(f"user:{verdict}")


class _State:
    """Per-file memory: the turn each split assistant message belongs to, and the file's
    statistics, where a usage or cost it cannot read is said.

    Recent turns are kept by message id because a subagent's lines can come
    between two lines of the same parent message.
    """

    RECENT = 256

    def __init__(self, stats: ParseStats) -> None:
        self.stats = stats
        self.session_id: str | None = None
        self.turns: dict[str, Turn] = {}

    def assistant(self, number: int, obj: dict[str, Any], subagent: bool) -> Iterator[Event]:
        message = obj.get("message") or {}
        timestamp = obj.get("timestamp")
        message_id = message.get("id")
        usage = message.get("usage") or {}
        turn = self.turns.get(message_id) if message_id else None
        if turn is None:
            turn = Turn(line=number, model=message.get("model"), timestamp=timestamp,
                        subagent=subagent)
            if message_id:
                self.turns[message_id] = turn
                if len(self.turns) > self.RECENT:
                    del self.turns[next(iter(self.turns))]
            yield turn
        def tokens(key: str) -> int:
            return token_count(usage, (key,), number, self.stats, "message.usage")

        # Streaming lines repeat the usage; later ones may carry the final output count.
        turn.input_tokens = max(turn.input_tokens, tokens("input_tokens"))
        turn.output_tokens = max(turn.output_tokens, tokens("output_tokens"))
        turn.cache_read_tokens = max(turn.cache_read_tokens, tokens("cache_read_input_tokens"))
        turn.cache_write_tokens = max(turn.cache_write_tokens,
                                      tokens("cache_creation_input_tokens"))
        turn.stop_reason = message.get("stop_reason") or turn.stop_reason
        cost = cost_amount(obj.get("costUSD"), "costUSD", number, self.stats)  # 1.0.x only
        if cost is not None:
            turn.cost_usd = (turn.cost_usd or 0.0) + cost
        content = message.get("content")
        if obj.get("isApiErrorMessage"):
            turn.error = content_text(content) or "API error"
            return
        if isinstance(content, str):
            yield AssistantText(content, number, timestamp, subagent)
            return
        for block in content or ():
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            if btype == "text":
                yield AssistantText(block.get("text") or "", number, timestamp, subagent)
            elif btype == "thinking":
                yield Thinking(block.get("thinking") or "", number, subagent)
            elif btype in ("tool_use", "server_tool_use"):
                yield ToolUse(str(block.get("id")), str(block.get("name")),
                              block.get("input") or {}, number, timestamp, subagent)
            elif (btype or "").endswith("_tool_result") and block.get("tool_use_id"):
                yield ToolOutput(str(block["tool_use_id"]), content_text(block.get("content")),
                                 False, number, timestamp)


def _tool_outputs(number: int, obj: dict[str, Any], stats: ParseStats,
                  subagent: bool) -> Iterator[Event]:
    content = (obj.get("message") or {}).get("content")
    if not isinstance(content, list):
        stats.ignore("user:subagent-prompt" if subagent else "user:non-question")
        return
    for block in content:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            yield ToolOutput(str(block.get("tool_use_id")), content_text(block.get("content")),
                             bool(block.get("is_error")), number, obj.get("timestamp"))
        elif subagent:
            stats.ignore("user:subagent-prompt")
        else:
            stats.ignore("user:text-beside-tool-results")
