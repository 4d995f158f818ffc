"""A neutral chat JSONL: OpenAI wire tool calls or assay's neutral shape, one message a line."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from assay.traces.sessions import load_session


def test_openai_wire_messages_become_exchanges(write_jsonl: Callable[..., Path]) -> None:
    rows = [
        {"role": "system", "content": "You answer from the docs."},
        {"role": "user", "content": "What is the refund window?", "timestamp": 1_700_000_000_000},
        {"role": "assistant", "content": None, "model": "gpt-4.1",
         "usage": {"prompt_tokens": 50, "completion_tokens": 7},
         "tool_calls": [{"id": "c1", "type": "function", "function": {
             "name": "read_file", "arguments": json.dumps({"path": "docs/refunds.md"})}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "Refunds within 30 days."},
        {"role": "assistant", "content": "30 days, per refunds.md.", "timestamp": 1_700_000_002_500},
    ]
    session, exchanges = load_session(write_jsonl("chat.jsonl", rows))
    assert session.meta.format == "openai-chat"
    [exchange] = exchanges
    assert exchange.answer == "30 days, per refunds.md."
    assert [(f.path, f.content) for f in exchange.files_read] == [
        ("docs/refunds.md", "Refunds within 30 days.")]
    assert exchange.model == "gpt-4.1"
    assert exchange.duration_ms == 2500
    assert session.meta.stats is not None and session.meta.stats.ignored["message:system"] == 1


def test_conversation_per_line_with_neutral_tool_calls(write_jsonl: Callable[..., Path]) -> None:
    conversation = {"messages": [
        {"role": "user", "content": "q1"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "x", "name": "search", "arguments": {"q": "a"}}]},
        {"role": "tool", "tool_call_id": "x", "content": "boom", "is_error": True},
        {"role": "assistant", "content": "a1"},
    ]}
    _, exchanges = load_session(write_jsonl("chat.jsonl", [conversation, conversation]))
    assert [e.answer for e in exchanges] == ["a1", "a1"]
    assert [e.tool_errors for e in exchanges] == [1, 1]
    assert exchanges[0].tool_calls[0].error == "boom"


def test_a_tool_call_whose_arguments_are_not_json_is_counted_and_its_text_kept(
        write_jsonl: Callable[..., Path]) -> None:
    rows = [
        {"role": "user", "content": "q1"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "search",
                                                          "arguments": '{"q": '}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "nothing"},
        {"role": "assistant", "content": "a1"},
    ]
    session, [exchange] = load_session(write_jsonl("chat.jsonl", rows))
    assert exchange.tool_calls[0].arguments == {"_invalid_json": '{"q": '}
    assert session.meta.stats is not None
    assert session.meta.stats.malformed == [
        (2, "tool call 'search': arguments not JSON, kept as text")]


def test_a_negative_token_count_and_a_cost_in_text_are_left_out_and_named_with_their_line(
        write_jsonl: Callable[..., Path]) -> None:
    """Regression: `completion_tokens: -3` made the report's 'tokens per question -3', and a
    `cost_usd` of "0.5" was dropped unsaid, the line's problems column reading 'none'."""
    rows = [
        {"role": "user", "content": "q1"},
        {"role": "assistant", "content": "a1", "cost_usd": "0.5",
         "usage": {"prompt_tokens": 20, "completion_tokens": -3}},
    ]
    session, [exchange] = load_session(write_jsonl("chat.jsonl", rows))
    assert (exchange.input_tokens, exchange.output_tokens, exchange.cost_usd) == (20, 0, None)
    assert session.meta.stats is not None
    assert session.meta.stats.malformed == [
        (2, ("`usage.completion_tokens` is -3, not a token count: left out; "
             "`cost_usd` is \"0.5\", not a dollar amount: left out"))]
