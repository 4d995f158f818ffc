"""A tool call as a JSON message carries it, read into a name and arguments.

Two shapes meet us: the OpenAI wire shape (`{"id", "type": "function", "function":
{"name", "arguments": "<JSON text>"}}`), in Chat Completions responses, in the
transcripts targets keep and in chat session logs; and assay's own (`{"id", "name",
"arguments": {...}}`). The export of a transcript and the traces reader read calls
here, and the OpenAI provider its calls' arguments (it checks the type of every other
field of a response itself), so all agree on what arguments that are not a JSON object
become: text that is not JSON is kept under `_invalid_json`, any other value under
`_value`, never dropped.

These calls were recorded by someone else (a model, a session log), so odd arguments are
evidence to keep and show, not a fault anyone here can mend. A target's own result is read
the other way on purpose: `ToolCall.from_dict` (`assay.output`) refuses arguments that are
not an object, as that trial's error naming the call, because the target's author can fix
them and the `tool_calls` scorer should never compare a wrapper of ours.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

INVALID_JSON = "_invalid_json"
"""The key under which arguments given as text that is not JSON are kept, as given."""
NOT_AN_OBJECT = "_value"
"""The key under which arguments that are JSON but not an object are kept."""


@dataclass(frozen=True, slots=True)
class WireToolCall:
    """One tool call read from either shape; `id` and `name` as found (None when absent)."""

    id: Any
    name: Any
    arguments: dict[str, Any]
    invalid_json: bool = False
    """True when the arguments were text that is not JSON (kept under `_invalid_json`)."""


def read_tool_call(call: Mapping[str, Any]) -> WireToolCall:
    """The call's id, name and arguments: from its `function` object when it has one (the
    wire shape), else from the call itself (assay's shape)."""
    function = call.get("function")
    source: Mapping[str, Any] = function if isinstance(function, Mapping) else call
    arguments, invalid = tool_arguments(source.get("arguments"))
    return WireToolCall(call.get("id"), source.get("name"), arguments, invalid)


def tool_arguments(raw: Any) -> tuple[dict[str, Any], bool]:
    """Arguments as a dict, and whether they were text that is not JSON. None or blank
    text is no arguments; JSON text is decoded; what is not an object is kept, keyed."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}, False
    value = raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):  # not JSON, or nested deeper than it reads
            return {INVALID_JSON: raw}, True
    if isinstance(value, dict):
        return value, False
    return {NOT_AN_OBJECT: value}, False
