"""The report's session table: what was skipped, summarised without holding every bad line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from assay.traces.formats.base import MALFORMED_KEPT
from assay.traces.options import TraceOptions
from assay.traces.pipeline import analyze
from assay.traces.report import render_report


def test_many_malformed_lines_are_counted_and_the_first_few_shown(
        write_jsonl: Callable[..., Path]) -> None:
    bad = [f"{{broken {n}" for n in range(MALFORMED_KEPT + 10)]
    rows = [{"role": "user", "content": "q"}, *bad, {"role": "assistant", "content": "a"}]
    path = write_jsonl("chat.jsonl", rows)
    analysis = analyze([path], TraceOptions())
    [session] = analysis.sessions
    assert session.meta.stats is not None
    assert session.meta.stats.malformed_count == MALFORMED_KEPT + 10
    assert len(session.meta.stats.malformed) == MALFORMED_KEPT
    report = render_report(analysis)
    assert "| chat.jsonl | openai-chat | 1 | line 2: invalid JSON" in report
    assert f"and {MALFORMED_KEPT + 7} more malformed" in report


def test_a_cost_that_leaves_out_responses_without_one_says_so(
        write_jsonl: Callable[..., Path]) -> None:
    """Regression: the fixture sessions' cost read '$30.3302' as the whole cost, though the
    three Claude Code sessions among them (22 model responses) logged no cost at all."""
    rows = [{"role": "user", "content": "q"},
            {"role": "assistant", "content": "a", "cost_usd": 0.25},
            {"role": "user", "content": "q2"},
            {"role": "assistant", "content": "b"},
            {"role": "assistant", "content": "c"}]
    analysis = analyze([write_jsonl("chat.jsonl", rows)], TraceOptions())
    assert analysis.metrics.unpriced_turns == 2
    report = render_report(analysis)
    assert "| cost | $0.2500, not counting 2 model responses that logged no cost |" in report
    assert analysis.metrics.to_dict()["unpriced_turns"] == 2


def test_a_cost_no_response_logged_is_unknown(write_jsonl: Callable[..., Path]) -> None:
    rows = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]
    report = render_report(analyze([write_jsonl("chat.jsonl", rows)], TraceOptions()))
    assert "| cost | unknown (no model response logged a cost) |" in report


def test_a_line_whose_tool_call_is_kept_is_not_reported_as_skipped(
        write_jsonl: Callable[..., Path]) -> None:
    """Regression: a tool call whose arguments are not JSON is kept (counted, its arguments
    kept as text), yet its line was listed under the report's 'lines skipped'."""
    rows = [{"role": "user", "content": "q"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function",
                 "function": {"name": "read_file", "arguments": "{not json"}}]},
            {"role": "assistant", "content": "a"}]
    analysis = analyze([write_jsonl("chat.jsonl", rows)], TraceOptions())
    assert analysis.metrics.tool_calls == 1
    report = render_report(analysis)
    assert "| file | format | questions | line problems |" in report
    assert ("| chat.jsonl | openai-chat | 1 | line 2: tool call 'read_file': arguments not "
            "JSON, kept as text |") in report
