"""Building exchanges: an exchange is final once handed on."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from assay.traces.sessions import load_session


def test_a_tool_result_after_the_next_question_is_counted_not_attached(
        write_jsonl: Callable[..., Path]) -> None:
    rows = [
        {"role": "user", "content": "q1"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "name": "read_file", "arguments": {"path": "docs/a.md"}}]},
        {"role": "user", "content": "q2"},
        {"role": "tool", "tool_call_id": "c1", "content": "late body"},
        {"role": "assistant", "content": "a2"},
    ]
    session, exchanges = load_session(write_jsonl("chat.jsonl", rows))
    first, second = exchanges
    assert first.files_read == [] and first.tool_calls[0].result is None
    assert second.files_read == []
    assert session.meta.stats is not None
    assert session.meta.stats.ignored["tool-result:after-the-next-question"] == 1
