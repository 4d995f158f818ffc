"""The neutral event stream every session format is read into.

A reader turns one file into these events, in file order. The exchange
builder then needs to know nothing about pi, Claude Code or chat JSONL.
Timestamps stay raw strings here: parsing every one would cost more than
reading the line, and only the first and last of an exchange are needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class SessionInfo:
    """Facts about the session as a whole (header, title, name entries)."""

    session_id: str | None = None
    name: str | None = None
    started: str | None = None
    model: str | None = None
    cwd: str | None = None


@dataclass(slots=True)
class Question:
    """A message a person typed to the agent; it opens an exchange."""

    text: str
    line: int
    timestamp: str | None = None
    is_command: bool = False
    """A slash command: it is a question only if the model answers it."""


@dataclass(slots=True)
class AssistantText:
    text: str
    line: int
    timestamp: str | None = None
    subagent: bool = False


@dataclass(slots=True)
class Thinking:
    text: str
    line: int
    subagent: bool = False


@dataclass(slots=True)
class ToolUse:
    id: str
    name: str
    arguments: dict[str, Any]
    line: int
    timestamp: str | None = None
    subagent: bool = False


@dataclass(slots=True)
class ToolOutput:
    """The result of a tool call, linked to it by `tool_use_id`."""

    tool_use_id: str
    text: str
    is_error: bool
    line: int
    timestamp: str | None = None


@dataclass(slots=True)
class Turn:
    """One model response (one API call): its model, usage and cost, counted once."""

    line: int
    model: str | None = None
    timestamp: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = None
    stop_reason: str | None = None
    error: str | None = None
    subagent: bool = False


@dataclass(slots=True)
class Compaction:
    """The context was summarised here; earlier turns are no longer in the model's view."""

    line: int
    timestamp: str | None = None


Event = SessionInfo | Question | AssistantText | Thinking | ToolUse | ToolOutput | Turn | Compaction
