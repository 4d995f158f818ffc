"""Claude Code transcripts: split messages, 1.0.x sidechains, compaction, titles."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from assay.traces.formats.claude_code import classify_user_text
from assay.traces.sessions import load_session

BASE = {"isSidechain": False, "userType": "external", "cwd": "/kb", "sessionId": "s1",
        "version": "1.0.51"}


def _line(uuid: str, kind: str, message: dict, **extra: object) -> dict:
    return {**BASE, "uuid": uuid, "type": kind, "timestamp": f"2025-07-01T09:00:{uuid[-2:]}Z",
            "message": message, **extra}


def _assistant(uuid: str, mid: str, block: dict, output: int = 5, **extra: object) -> dict:
    return _line(uuid, "assistant", {"id": mid, "role": "assistant", "model": "claude-sonnet-4",
                                     "content": [block], "usage": {"input_tokens": 10,
                                                                   "output_tokens": output}},
                 **extra)


@pytest.mark.parametrize(("text", "verdict"), [
    ("why is the build red?", "question"),
    ("[Request interrupted by user for tool use]", "interrupt"),
    ("<local-command-stdout>Reconnected.</local-command-stdout>", "local-output"),
    ("<bash-input>ls</bash-input>", "local-output"),
    (("<command-name>/review</command-name>\n<command-message>review</command-message>\n"
      "<command-args>PR 12</command-args>"), "command"),
    ("   ", "empty"),
])
def test_user_text_is_sorted(text: str, verdict: str) -> None:
    assert classify_user_text(text)[0] == verdict


def test_command_question_reads_as_typed() -> None:
    text = "<command-message>review</command-message>\n<command-name>/review</command-name>\n" \
           "<command-args>PR 12</command-args>"
    assert classify_user_text(text) == ("command", "/review PR 12")


def test_split_message_is_one_turn_and_1_0_sidechain_counts(
        write_jsonl: Callable[..., Path]) -> None:
    rows = [
        {"type": "summary", "summary": "query: leases", "leafUuid": "u09"},
        _line("u01", "user", {"role": "user", "content": "Which lease ends first?"}),
        _assistant("u02", "m1", {"type": "text", "text": "Let me look."}, output=3),
        _assistant("u03", "m1", {"type": "tool_use", "id": "t1", "name": "Task",
                                 "input": {"prompt": "find leases"}}, output=40, costUSD=0.01),
        # A 1.0.x subagent, inline: its prompt, a read, the read's result.
        {**_line("u04", "user", {"role": "user", "content": "find leases"}), "isSidechain": True},
        {**_assistant("u05", "m2", {"type": "tool_use", "id": "t2", "name": "Read",
                                    "input": {"file_path": "/kb/leases.md"}}),
         "isSidechain": True},
        {**_line("u06", "user", {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t2", "content": "Lease A ends 2026."}]}),
         "isSidechain": True},
        _line("u07", "user", {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "Lease A, 2026"}]}),
        _assistant("u08", "m3", {"type": "text", "text": "Lease A ends first (leases.md)."}),
    ]
    session, exchanges = load_session(write_jsonl("c.jsonl", rows))
    assert session.meta.format == "claude-code"
    assert session.meta.name == "query: leases"
    [exchange] = exchanges
    assert exchange.answer == "Lease A ends first (leases.md)."
    assert exchange.turns == 2  # m1 and m3; the subagent's m2 is not a main turn
    assert exchange.output_tokens == 40 + 5 + 5  # m1 counted once, at its final count
    assert exchange.cost_usd == pytest.approx(0.01)
    assert [(f.path, f.subagent) for f in exchange.files_read] == [("/kb/leases.md", True)]
    assert session.meta.stats is not None
    assert session.meta.stats.ignored["user:subagent-prompt"] == 1


def test_compaction_and_meta_lines_are_not_questions(write_jsonl: Callable[..., Path]) -> None:
    rows = [
        _line("u01", "user", {"role": "user", "content": "first"}),
        _assistant("u02", "m1", {"type": "text", "text": "one"}),
        {**BASE, "uuid": "u03", "type": "system", "subtype": "compact_boundary",
         "content": "Conversation compacted", "timestamp": "2025-07-01T09:00:03Z"},
        {**_line("u04", "user", {"role": "user", "content": "This session is being continued"}),
         "isCompactSummary": True},
        {**_line("u05", "user", {"role": "user", "content": "<local-command-caveat>x"}),
         "isMeta": True},
        _line("u06", "user", {"role": "user", "content": "second"}),
        _assistant("u07", "m2", {"type": "text", "text": "two"}),
    ]
    _, exchanges = load_session(write_jsonl("c.jsonl", rows))
    assert [e.question for e in exchanges] == ["first", "second"]
    assert exchanges[0].compacted
    assert not exchanges[1].compacted


def test_a_usage_that_is_not_a_token_count_is_left_out_and_said(
        write_jsonl: Callable[..., Path]) -> None:
    rows = [
        _line("u01", "user", {"role": "user", "content": "Which lease ends first?"}),
        _assistant("u02", "m1", {"type": "text", "text": "Lease A."}, output=-7, costUSD="0.02"),
    ]
    session, [exchange] = load_session(write_jsonl("c.jsonl", rows))
    assert (exchange.input_tokens, exchange.output_tokens, exchange.cost_usd) == (10, 0, None)
    assert session.meta.stats is not None
    assert session.meta.stats.malformed == [
        (2, ("`message.usage.output_tokens` is -7, not a token count: left out; "
             "`costUSD` is \"0.02\", not a dollar amount: left out"))]
