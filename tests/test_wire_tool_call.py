"""Tool calls read from the OpenAI wire shape or assay's own: one reading for every reader."""

from __future__ import annotations

from typing import Any

import pytest

from assay.wire_tool_call import WireToolCall, read_tool_call, tool_arguments


@pytest.mark.parametrize("call", [
    {"id": "c1", "type": "function", "function": {"name": "add", "arguments": '{"a": 2}'}},
    {"id": "c1", "name": "add", "arguments": {"a": 2}},
    {"id": "c1", "name": "add", "arguments": '{"a": 2}'},
], ids=["wire", "assay", "assay-with-json-text"])
def test_either_shape_reads_as_the_same_call(call: dict[str, Any]) -> None:
    assert read_tool_call(call) == WireToolCall("c1", "add", {"a": 2})


@pytest.mark.parametrize(("raw", "arguments", "invalid"), [
    (None, {}, False),
    ("", {}, False),
    ("  ", {}, False),
    ("{oops", {"_invalid_json": "{oops"}, True),
    pytest.param("[" * 10_000, {"_invalid_json": "[" * 10_000}, True, id="nested-too-deep"),
    ("[1, 2]", {"_value": [1, 2]}, False),
    ([1, 2], {"_value": [1, 2]}, False),
    ({"q": "x"}, {"q": "x"}, False),
])
def test_arguments_that_are_not_an_object_are_kept_under_a_key_never_dropped(
        raw: Any, arguments: dict[str, Any], invalid: bool) -> None:
    assert tool_arguments(raw) == (arguments, invalid)


def test_a_call_without_a_name_or_id_reads_them_as_none() -> None:
    assert read_tool_call({"function": {"arguments": "{}"}}) == WireToolCall(None, None, {})
