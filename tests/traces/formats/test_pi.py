"""pi sessions: the tree layout v3 (ids, compaction, names) read like the legacy one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from assay.traces.formats import UnknownFormat, detect
from assay.traces.sessions import load_session


def _v3_session() -> list[dict]:
    def msg(id_: str, parent: str | None, message: dict) -> dict:
        return {"type": "message", "id": id_, "parentId": parent,
                "timestamp": f"2026-03-01T10:00:0{id_[-1]}.000Z", "message": message}

    return [
        {"type": "session", "version": 3, "id": "s-1", "timestamp": "2026-03-01T10:00:00.000Z",
         "cwd": "/kb"},
        msg("a1", None, {"role": "user", "content": "What does clause 4 say?"}),
        msg("a2", "a1", {"role": "assistant", "model": "claude-haiku-4-5", "stopReason": "toolUse",
                         "usage": {"input": 100, "output": 10, "cacheRead": 50, "cacheWrite": 0,
                                   "cost": {"total": 0.001}},
                         "content": [{"type": "thinking", "thinking": "check the wiki"},
                                     {"type": "toolCall", "id": "t1", "name": "read",
                                      "arguments": {"path": "wiki/wiki.md"}}]}),
        msg("a3", "a2", {"role": "toolResult", "toolCallId": "t1", "toolName": "read",
                         "content": [{"type": "text", "text": "Clause 4: notice period."}],
                         "isError": False}),
        {"type": "compaction", "id": "a4", "parentId": "a3", "timestamp": "2026-03-01T10:00:04Z",
         "summary": "...", "firstKeptEntryId": "a3", "tokensBefore": 9000},
        msg("a5", "a4", {"role": "assistant", "model": "claude-haiku-4-5", "stopReason": "stop",
                         "usage": {"input": 200, "output": 20, "cost": {"total": 0.002}},
                         "content": [{"type": "text", "text": "Clause 4 sets the notice period."}]}),
        {"type": "session_info", "id": "a6", "parentId": "a5", "timestamp": "2026-03-01T10:00:06Z",
         "name": "query: clause 4"},
        {"type": "label", "id": "a7", "parentId": "a6", "timestamp": "2026-03-01T10:00:07Z",
         "targetId": "a1", "label": "kept"},
    ]


def test_v3_session_becomes_one_answered_exchange(write_jsonl: Callable[..., Path]) -> None:
    session, exchanges = load_session(write_jsonl("s.jsonl", _v3_session()))
    assert session.meta.format == "pi"
    assert session.meta.name == "query: clause 4"
    [exchange] = exchanges
    assert exchange.question == "What does clause 4 say?"
    assert exchange.answer == "Clause 4 sets the notice period."
    assert exchange.thinking == "check the wiki"
    assert [(f.path, f.content) for f in exchange.files_read] == [
        ("wiki/wiki.md", "Clause 4: notice period.")]
    assert exchange.compacted
    assert exchange.turns == 2
    assert exchange.input_tokens == 300 and exchange.output_tokens == 30
    assert exchange.cost_usd == pytest.approx(0.003)
    assert exchange.duration_ms == pytest.approx(4000)
    assert session.meta.stats is not None and session.meta.stats.ignored["label"] == 1


def test_unknown_pi_version_is_named(write_jsonl: Callable[..., Path]) -> None:
    path = write_jsonl("s.jsonl", [{"type": "session", "version": 9, "id": "x", "cwd": "/"}])
    with pytest.raises(UnknownFormat, match="pi session version 9"):
        detect(path)


def test_unknown_entry_type_is_reported_with_its_line(write_jsonl: Callable[..., Path]) -> None:
    rows = _v3_session()[:2] + [{"type": "hologram", "id": "z", "parentId": "a1"}]
    session, _ = load_session(write_jsonl("s.jsonl", rows))
    assert session.meta.stats is not None
    assert session.meta.stats.unknown == {"hologram": 3}


def test_a_usage_that_is_not_a_token_count_is_left_out_and_said(
        write_jsonl: Callable[..., Path]) -> None:
    rows = [
        {"type": "message", "timestamp": "2026-03-01T10:00:01Z",
         "message": {"role": "user", "content": "q"}},
        {"type": "message", "timestamp": "2026-03-01T10:00:02Z", "message": {
            "role": "assistant", "content": [{"type": "text", "text": "a"}],
            "usage": {"input": 10, "output": -4, "cost": {"total": "0.01"}}}},
    ]
    session, [exchange] = load_session(write_jsonl("pi.jsonl", rows))
    assert (exchange.input_tokens, exchange.output_tokens, exchange.cost_usd) == (10, 0, None)
    assert session.meta.stats is not None
    assert session.meta.stats.malformed == [
        (2, ("`message.usage.output` is -4, not a token count: left out; "
             "`message.usage.cost.total` is \"0.01\", not a dollar amount: left out"))]
