"""An answer's metadata, tool calls and transcript are each kept to about the run's
`max_output_bytes`; what was cut is said in the output's metadata."""

from __future__ import annotations

import json

from assay.output import Output, ToolCall
from assay.runner.output_bounds import bound_parts, size_over


def test_size_over_stops_counting_once_the_limit_is_passed() -> None:
    assert size_over({"a": "x" * 2_000}, 1_000)
    assert not size_over({"a": "x" * 10, "b": [1, 2, 3]}, 1_000)
    assert size_over(["é" * 600], 1_000)  # counted in UTF-8 bytes, not characters


def test_a_long_transcript_is_cut_and_its_later_messages_dropped() -> None:
    transcript = [{"role": "user", "content": "c" * 800} for _ in range(50)]
    output = Output(text="x", transcript=transcript)
    bound_parts(output, 2_000)
    assert output.transcript is not None
    assert 1 < len(output.transcript) < 5
    assert len(json.dumps(output.transcript)) < 2_500
    assert output.metadata["truncated_parts"]["transcript"]["bytes"] > 40_000


def test_metadata_nested_deeper_than_the_limit_is_replaced_not_a_recursion_error() -> None:
    deep: object = "leaf" * 1_000
    for _ in range(5_000):
        deep = [deep]
    output = Output(text="x", metadata={"deep": deep})
    bound_parts(output, 1_000)
    assert "truncated_parts" in output.metadata
    assert len(json.dumps(output.metadata)) < 3_000


def test_a_tool_call_result_is_cut_like_its_arguments() -> None:
    output = Output(text="x", tool_calls=[ToolCall(name="read", arguments={"p": "f"},
                                                   result="r" * 50_000)])
    bound_parts(output, 1_000)
    assert len(output.tool_calls[0].result) < 1_000
    assert output.tool_calls[0].arguments == {"p": "f"}
    assert output.metadata["truncated_parts"]["tool_calls"]["bytes"] > 50_000


def test_a_renamed_tool_call_cut_keeps_its_servers_name_for_the_tool() -> None:
    """A case expecting `search` is met by `docs__search` through `ToolCall.tool`: a call
    whose result is cut must keep it, or the case fails only because the result was long."""
    output = Output(text="x", tool_calls=[ToolCall(name="docs__search", arguments={"q": "a"},
                                                   result="r" * 50_000, tool="search",
                                                   duration_ms=12.0)])
    bound_parts(output, 1_000)
    [call] = output.tool_calls
    assert call.tool == "search"
    assert call.duration_ms == 12.0
    assert len(str(call.result)) < 1_500
