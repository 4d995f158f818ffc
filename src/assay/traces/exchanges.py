"""Exchanges: one question a person asked and everything the agent did to answer it.

What counts as a question (the readers decide, per format): a message a
person typed. Not questions: tool results, interrupt markers, the output
of local commands, meta and compaction-summary lines, subagent prompts, and
slash commands the model never answered. An exchange runs from its
question to the next one. Its answer is the assistant text written after
the last tool call (text before a tool call is narration, "let me check");
an exchange with no such text is kept but counts as unanswered.

An exchange is final once handed on (it streams to the metrics and the
judge and is dropped): a tool result that arrives only after the next
question is counted in the parse statistics, not attached to it.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from assay.output import ToolCall
from assay.traces.formats import ParseStats
from assay.traces.formats.base import FIRST_LINE_BYTES
from assay.traces.log_files import READ_FAILURES, log_name, log_stem, open_log
from assay.traces.reads import CONTENT_CHARS, read_path
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


@dataclass
class SessionMeta:
    """One session file: where it is, what it is called, how its lines were read."""

    path: str
    format: str | None = None
    id: str | None = None
    name: str | None = None
    started: str | None = None
    model: str | None = None
    cwd: str | None = None
    stats: ParseStats | None = None
    origin: str | None = None
    """What tells this file from others of its name wherever it is copied (see `file_origin`),
    made once, when the first id is asked for."""
    copy: int = 1
    """The file's place among the files read whose ids would be alike (a log copied into
    two folders of one name): the second one's ids end `~2` (see `FileCopies`)."""

    def file_origin(self) -> str:
        """A digest of the file's folder name, own name and first line: the same log in a fresh
        clone, on a CI runner or in a copied folder gives its exchanges the same ids (a digest of
        its full path did not, so two exports of one log shared no case id), while logs of one
        name in different projects still differ. The first line is the log's header (a session
        id, a start time) and stays as it was while the log grows."""
        if self.origin is None:
            path = Path(self.path)
            first = self.stats.first_line if self.stats is not None else None
            if first is None:  # asked before its lines were read
                first = _first_line(path)
            named = f"{path.parent.name}/{log_name(path)}\n".encode()
            self.origin = hashlib.blake2b(named + first, digest_size=3).hexdigest()
        return self.origin

    def merge(self, info: SessionInfo) -> None:
        for name in ("name", "model", "cwd"):
            value = getattr(info, name)
            if value:
                setattr(self, name, value)
        if info.session_id and not self.id:
            self.id = info.session_id
        if info.started and not self.started:
            self.started = info.started


def _first_line(path: Path) -> bytes:
    try:
        with open_log(path) as handle:
            return handle.readline(FIRST_LINE_BYTES).strip()
    except READ_FAILURES:  # it was read a moment ago; its name alone still tells it apart
        return b""


class FileCopies:
    """Numbers the files read whose exchanges' ids would be alike: the same stem and
    `file_origin` (a log copied into two folders of one name), so that every exchange's
    id stays unique, in the findings and the trace report as in an exported dataset."""

    def __init__(self) -> None:
        self._seen: Counter[tuple[str, str]] = Counter()
        self._copy: dict[str, int] = {}

    def number(self, session: SessionMeta) -> None:
        """Give `session` its file's `copy`, counting the file when it is first met."""
        copy = self._copy.get(session.path)
        if copy is None:
            alike = (log_stem(Path(session.path)), session.file_origin())
            self._seen[alike] += 1
            copy = self._copy[session.path] = self._seen[alike]
        session.copy = copy


@dataclass
class FileRead:
    """A file the agent read, with the start of what the read returned."""

    path: str
    content: str
    line: int
    """Line of the tool result in the session file."""
    subagent: bool = False


@dataclass
class Exchange:
    session: SessionMeta
    index: int
    """1-based position among the session's exchanges."""
    line: int
    """Line of the question in the session file."""
    question: str
    is_command: bool = False
    answer: str = ""
    thinking: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    files_read: list[FileRead] = field(default_factory=list)
    files_available: list[str] = field(default_factory=list)
    files_skipped: list[str] = field(default_factory=list)
    model: str | None = None
    started: str | None = None
    duration_ms: float | None = None
    turns: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = None
    """What the model responses that logged a cost cost; None when none did."""
    unpriced_turns: int = 0
    """Model responses (subagents' included) that logged no cost: not in `cost_usd`."""
    tool_errors: int = 0
    compacted: bool = False
    part: int = 1
    """Its place among the questions of its line: a line holding a whole conversation (the
    fine-tuning layout) holds several."""

    @property
    def id(self) -> str:
        """`<file stem>-<digest>:<line>`, `.<part>` added for a line's second question on:
        session files of different projects often share a name, so a digest of what tells the
        file apart (`SessionMeta.file_origin`) keeps exported case ids unique; `~<copy>` for
        a file whose ids would repeat another's (`FileCopies`)."""
        stem = log_stem(Path(self.session.path))
        return (f"{stem}-{self.session.file_origin()}:{self.line}"
                + (f".{self.part}" if self.part > 1 else "")
                + (f"~{self.session.copy}" if self.session.copy > 1 else ""))

    @property
    def answered(self) -> bool:
        return bool(self.answer.strip())

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens + self.cache_read_tokens \
            + self.cache_write_tokens


@dataclass
class _Open:
    """An exchange being built, with what is needed only while building it."""

    exchange: Exchange
    answer_parts: list[str] = field(default_factory=list)
    thinking_parts: list[str] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)
    last_timestamp: str | None = None
    active: bool = False


@dataclass
class _Pending:
    call: ToolCall
    exchange: Exchange | None
    path: str | None
    subagent: bool


SYNTHETIC_MODEL = "<synthetic>"
"""The model Claude Code names on messages it wrote itself (no model was called)."""

_CLOSED = Exchange(SessionMeta(""), 0, 0, "")
"""Stands in for an exchange already handed on, so a late result cannot change it."""


def build_exchanges(events: Iterable[Event], session: SessionMeta,
                    stats: ParseStats) -> Iterator[Exchange]:
    """Group a session's events into exchanges, yielding each when the next question starts.

    A file may hold several sessions (logs appended to one file, a resumed session): a
    session id other than the one read so far starts a session of its own, whose
    exchanges carry a `SessionMeta` of their own (same file, same line statistics)."""
    current: _Open | None = None
    pending: dict[str, _Pending] = {}
    count = 0
    for event in events:
        if isinstance(event, Question):
            if current is not None:
                done = _close(current, pending, stats)
                if done is not None:
                    yield done
            count += 1
            part = current.exchange.part + 1 if current is not None and \
                current.exchange.line == event.line else 1
            exchange = Exchange(session, count, event.line, event.text,
                                is_command=event.is_command, started=event.timestamp, part=part)
            current = _Open(exchange, last_timestamp=event.timestamp)
        elif isinstance(event, SessionInfo):
            if event.session_id and session.id and event.session_id != session.id:
                if current is not None:  # the file goes on with another session
                    done = _close(current, pending, stats)
                    if done is not None:
                        yield done
                    current = None
                session = SessionMeta(session.path, session.format, stats=stats,
                                      origin=session.file_origin())
                count = 0
            session.merge(event)
        elif isinstance(event, ToolOutput):
            _link(event, pending, stats)
        elif current is None:
            stats.orphan(event.line)
            if isinstance(event, ToolUse):
                pending[event.id] = _Pending(_call(event), None, None, event.subagent)
        else:
            _add(current, event, pending)
    if current is not None:
        done = _close(current, pending, stats)
        if done is not None:
            yield done


def _call(event: ToolUse) -> ToolCall:
    return ToolCall(name=event.name, arguments=event.arguments)


def _add(current: _Open, event: Event, pending: dict[str, _Pending]) -> None:
    exchange = current.exchange
    current.active = True
    timestamp = getattr(event, "timestamp", None)
    if timestamp:
        current.last_timestamp = timestamp
    if isinstance(event, AssistantText):
        if not event.subagent and event.text.strip():
            current.answer_parts.append(event.text.strip())
    elif isinstance(event, Thinking):
        if not event.subagent and event.text.strip():
            current.thinking_parts.append(event.text.strip())
    elif isinstance(event, ToolUse):
        call = _call(event)
        exchange.tool_calls.append(call)
        if not event.subagent:
            current.answer_parts.clear()
        pending[event.id] = _Pending(call, exchange, read_path(event.name, event.arguments),
                                     event.subagent)
    elif isinstance(event, Turn):
        current.turns.append(event)
    elif isinstance(event, Compaction):
        exchange.compacted = True


def _link(output: ToolOutput, pending: dict[str, _Pending], stats: ParseStats) -> None:
    """Attach a tool result to its call; a read's result becomes a FileRead."""
    entry = pending.pop(output.tool_use_id, None)
    if entry is None:
        stats.ignore("tool-result:without-call")
        return
    if entry.exchange is _CLOSED:
        stats.ignore("tool-result:after-the-next-question")
        return
    preview = output.text[:CONTENT_CHARS]
    if output.is_error:
        entry.call.error = preview or "error"
    else:
        entry.call.result = preview
    exchange = entry.exchange
    if exchange is None:
        return
    if output.is_error:
        exchange.tool_errors += 1
    elif entry.path is not None:
        exchange.files_read.append(FileRead(entry.path, preview, output.line, entry.subagent))


def _close(current: _Open, pending: dict[str, _Pending], stats: ParseStats) -> Exchange | None:
    """Finish an exchange. It is final once handed on (it streams to metrics and the judge),
    so calls still waiting for a result let go of it."""
    exchange = current.exchange
    for entry in pending.values():
        if entry.exchange is exchange:
            entry.exchange = _CLOSED
    if exchange.is_command and not current.active:
        stats.local_commands += 1
        return None
    exchange.answer = "\n\n".join(current.answer_parts)
    exchange.thinking = "\n\n".join(current.thinking_parts)
    exchange.turns = sum(1 for t in current.turns if not t.subagent)
    costs = [t.cost_usd for t in current.turns if t.cost_usd is not None]
    exchange.cost_usd = sum(costs) if costs else None
    exchange.unpriced_turns = sum(1 for t in current.turns
                                  if t.cost_usd is None and t.model != SYNTHETIC_MODEL)
    for turn in current.turns:
        exchange.input_tokens += turn.input_tokens
        exchange.output_tokens += turn.output_tokens
        exchange.cache_read_tokens += turn.cache_read_tokens
        exchange.cache_write_tokens += turn.cache_write_tokens
        if turn.model and not turn.subagent and turn.model != SYNTHETIC_MODEL:
            exchange.model = turn.model
    exchange.model = exchange.model or exchange.session.model
    start, end = parse_time(exchange.started), parse_time(current.last_timestamp)
    if start is not None and end is not None:
        exchange.duration_ms = max(0.0, (end - start).total_seconds() * 1000)
    return exchange


def parse_time(value: str | float | None) -> datetime | None:
    """An ISO-8601 string or epoch milliseconds as an aware datetime; None if unknown."""
    if value is None:
        return None
    try:
        if isinstance(value, int | float):
            return datetime.fromtimestamp(value / 1000, tz=UTC)
        parsed = datetime.fromisoformat(value)
    except (ValueError, TypeError, OverflowError, OSError):  # not a time, or out of range
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
