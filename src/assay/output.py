"""What a target produced for one case: the Output and its parts.

A target's own result is read strictly: a part of the wrong type (a tool call whose
arguments are not an object, usage that is not a count) is that trial's error naming the
part, since the target's author can mend it. Tool calls someone else recorded (a model's
response, a session log) are read by `assay.wire_tool_call` instead, which keeps odd
arguments under a key of their own: the two rules differ on purpose.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class ToolCall:
    """One tool call made by the target, with its result when known."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    result: Any = None
    error: str | None = None
    duration_ms: float | None = None
    tool: str | None = None
    """The name its MCP server gives the tool, where the agent was shown it renamed
    (`docs__search` for `search`, offered by two servers): a case may expect it by either."""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "arguments": self.arguments}
        if self.tool is not None:
            data["tool"] = self.tool
        if self.result is not None:
            data["result"] = self.result
        if self.error is not None:
            data["error"] = self.error
        if self.duration_ms is not None:
            data["duration_ms"] = self.duration_ms
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "tool call") -> ToolCall:
        """A tool call as targets report it (`arguments`, or `args`/`input` as SDKs name them)."""
        if not isinstance(data, dict):
            raise TypeError(f"{where} must be a dict with 'name' and 'arguments', "
                            f"got {_type_name(data)}")
        if not isinstance(data.get("name"), str) or not data["name"]:
            raise ValueError(f"{where} has no 'name' (keys: {_key_list(data)})")
        arguments = data.get("arguments")
        if arguments is None:
            arguments = data.get("args", data.get("input")) or {}
        if not isinstance(arguments, dict):
            raise TypeError(f"{where}.arguments must be a dict, got {_type_name(arguments)}")
        return cls(
            name=data["name"],
            arguments=dict(arguments),
            result=data.get("result"),
            error=data.get("error"),
            duration_ms=data.get("duration_ms"),
            tool=data["tool"] if isinstance(data.get("tool"), str) else None,
        )


@dataclass(slots=True)
class Usage:
    """Token usage and cost of the calls behind one output or one score."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    calls: int = 0
    cache_hits: int = 0
    shared_cost_usd: float | None = None
    """What the calls answered from the response cache cost when they were first paid for
    (by another trial, or an earlier run): not spent again, and not in `cost_usd`."""

    def add(self, other: Usage) -> None:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.calls += other.calls
        self.cache_hits += other.cache_hits
        if other.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + other.cost_usd
        if other.shared_cost_usd is not None:
            self.shared_cost_usd = (self.shared_cost_usd or 0.0) + other.shared_cost_usd

    def to_dict(self) -> dict[str, Any]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": self.cost_usd,
            "calls": self.calls,
            "cache_hits": self.cache_hits,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Usage:
        """Usage as a target reports it; a field that is not a count (or cost) is an error."""
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise TypeError(f"'usage' must be a dict with {_key_list(USAGE_KEYS)}, "
                            f"got {_type_name(data)}")
        data = {USAGE_ALIASES.get(key, key): value for key, value in data.items()
                if key not in IGNORED_USAGE_KEYS}
        unknown = [key for key in data if key not in USAGE_KEYS]
        if unknown:
            raise ValueError(f"usage.{unknown[0]} is not a usage field "
                             f"(accepted: {_key_list(USAGE_KEYS)})")
        cost = data.get("cost_usd")
        if cost is not None and (isinstance(cost, bool) or not isinstance(cost, int | float)
                                 or not math.isfinite(cost)):
            raise ValueError(f"usage.cost_usd must be a finite number, got {cost!r}")
        return cls(
            input_tokens=_count(data, "input_tokens"),
            output_tokens=_count(data, "output_tokens"),
            cost_usd=None if cost is None else float(cost),
            calls=_count(data, "calls"),
            cache_hits=_count(data, "cache_hits"),
        )


USAGE_KEYS = ("input_tokens", "output_tokens", "cost_usd", "calls", "cache_hits")
USAGE_ALIASES = {"prompt_tokens": "input_tokens", "completion_tokens": "output_tokens"}
"""OpenAI's names for the same counts: a target may hand back the SDK's usage as it is."""
IGNORED_USAGE_KEYS = frozenset({"total_tokens", "prompt_tokens_details",
                                "completion_tokens_details"})
"""Derived or finer-grained fields of OpenAI's usage that assay does not record."""
MISPLACED_USAGE_KEYS = frozenset({"input_tokens", "output_tokens", "cost_usd", *USAGE_ALIASES})
"""Beside the answer rather than under `usage`: read as a mistake, not as the target's own
data, since a cost left there would show as `unknown` with nothing said."""


MAX_COUNT = 2**63 - 1
"""The largest count a store's integer column holds."""


def _count(data: dict[str, Any], key: str) -> int:
    value = data.get(key)
    if value is None:
        return 0
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT:
        return value
    if isinstance(value, float) and value.is_integer() and 0 <= value <= MAX_COUNT:
        return int(value)
    raise ValueError(f"usage.{key} must be a whole number from 0 to 2**63-1, got {value!r}")


@dataclass(slots=True)
class Output:
    """The target's answer to one case under one condition.

    `error` set means the target failed on this trial; scorers are not run
    and the trial counts as an error, never as a score of 0.
    """

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    transcript: list[dict[str, Any]] | None = None
    usage: Usage = field(default_factory=Usage)
    metadata: dict[str, Any] = field(default_factory=dict)
    """Anything the target wants kept with the trial. The store keeps it as JSON; a value
    JSON cannot hold (a datetime, a set, an object) is stored as its `str()`."""
    error: str | None = None
    latency_ms: float | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"text": self.text}
        if self.tool_calls:
            data["tool_calls"] = [call.to_dict() for call in self.tool_calls]
        if self.transcript is not None:
            data["transcript"] = self.transcript
        if self.metadata:
            data["metadata"] = self.metadata
        return data

    @classmethod
    def from_value(cls, value: Any) -> Output:
        """The one place that decides what a target's return value means.

        Accepted: an Output, a string, UTF-8 bytes, a number, or a dict with the
        answer under `output` (or `text`, `answer`) and optional tool_calls, usage,
        metadata, transcript and error. Anything else raises a TypeError or
        ValueError whose text says what was wrong; the runner records it as the
        trial's error, so an odd value never becomes a silent score of 0.
        """
        if isinstance(value, Output):
            return _checked(value)
        if isinstance(value, str):
            return cls(text=value)
        if value is None:
            raise TypeError("the target returned None; "
                            "return the answer text or a dict with 'output'")
        if isinstance(value, bytes | bytearray):
            try:
                return cls(text=bytes(value).decode("utf-8"))
            except UnicodeDecodeError as exc:
                raise ValueError(f"the target returned bytes that are not UTF-8 "
                                 f"({exc.reason} at byte {exc.start}); return text") from None
        if isinstance(value, dict):
            return cls._from_dict(value)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return cls(text=str(value))
        raise TypeError(f"the target returned {_type_name(value)}; return the answer text, "
                        "a dict with 'output', or an assay.Output")

    @classmethod
    def _from_dict(cls, value: dict[str, Any]) -> Output:
        key = next((k for k in ANSWER_KEYS if k in value), None)
        error = value.get("error")
        if error is not None and not isinstance(error, str):
            error = _json_text(error)
        text = value.get(key) if key else None
        if text is None and error is None:
            if key is None:
                raise ValueError(
                    f"the target returned a dict with keys {_key_list(value) or '(none)'}; "
                    f"expected the answer under 'output' (or 'text', 'answer'), with optional "
                    f"{_key_list(DICT_KEYS - set(ANSWER_KEYS))}")
            raise ValueError(f"the target returned {key!r}: None; return the answer text, "
                             "or set 'error' when there is none")
        misplaced = next((k for k in value if k in MISPLACED_USAGE_KEYS), None)
        if misplaced is not None:
            raise ValueError(f"the target returned {misplaced!r} beside the answer, where assay "
                             f"does not read it; put it under 'usage': "
                             f"{{{USAGE_ALIASES.get(misplaced, misplaced)!r}: ...}}")
        calls = value.get("tool_calls") or []
        if not isinstance(calls, list):
            raise TypeError(f"'tool_calls' must be a list, got {_type_name(calls)}")
        transcript = value.get("transcript")
        if transcript is not None and not isinstance(transcript, list):
            raise TypeError(f"'transcript' must be a list of messages, "
                            f"got {_type_name(transcript)}")
        metadata = value.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise TypeError(f"'metadata' must be a dict, got {_type_name(metadata)}")
        return cls(
            text="" if text is None else text if isinstance(text, str) else _answer_json(text, key),
            tool_calls=[ToolCall.from_dict(c, f"tool_calls[{i}]") for i, c in enumerate(calls)],
            transcript=transcript,
            usage=Usage.from_dict(value.get("usage")),
            metadata=dict(metadata),
            error=error,
        )


ANSWER_KEYS = ("output", "text", "answer")
DICT_KEYS = {*ANSWER_KEYS, "tool_calls", "usage", "metadata", "transcript", "error"}


def _json_text(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, default=str)


def _checked(output: Output) -> Output:
    """An Output built by the target itself, if each part has its type; else a TypeError
    naming the part (a dataclass checks nothing, and `text=None` would fail far later, in
    assay, not as the trial's error)."""
    parts: list[tuple[str, Any, type | tuple[type, ...]]] = [
        ("text", output.text, str), ("metadata", output.metadata, dict),
        ("tool_calls", output.tool_calls, list), ("usage", output.usage, Usage),
        ("transcript", output.transcript, (list, type(None))),
        ("error", output.error, (str, type(None)))]
    parts += [(f"tool_calls[{i}]", call, ToolCall) for i, call in enumerate(
        output.tool_calls if isinstance(output.tool_calls, list) else [])]
    for name, value, kind in parts:
        if not isinstance(value, kind):
            wanted = kind.__name__ if isinstance(kind, type) else f"{kind[0].__name__} or None"
            raise TypeError(f"the target returned an Output whose {name} is "
                            f"{_type_name(value)}; it must be {wanted}")
    return output


def _answer_json(value: Any, key: str | None) -> str:
    """A structured answer as the JSON text that is scored; a value JSON cannot hold is a
    TypeError, never its repr (`<object object at 0x...>`) scored as if it were the answer."""
    import json

    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"the target returned {_type_name(value)} under {key!r} that is not "
                        f"JSON ({exc}); return the answer text or a JSON value") from None


def _type_name(value: Any) -> str:
    """'None', 'a list', 'an int': the type of a value, for a message."""
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[0].lower() in 'aeiou' else 'a'} {name}"


def _key_list(keys: Any) -> str:
    return ", ".join(repr(k) for k in sorted(keys, key=str))
