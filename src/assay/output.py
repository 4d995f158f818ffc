"""What a target produced for one case: the Output and its parts."""

from __future__ import annotations

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

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "arguments": self.arguments}
        if self.result is not None:
            data["result"] = self.result
        if self.error is not None:
            data["error"] = self.error
        if self.duration_ms is not None:
            data["duration_ms"] = self.duration_ms
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolCall:
        arguments = data.get("arguments")
        if arguments is None:
            arguments = data.get("args", data.get("input", {}))
        return cls(
            name=str(data["name"]),
            arguments=dict(arguments or {}),
            result=data.get("result"),
            error=data.get("error"),
            duration_ms=data.get("duration_ms"),
        )


@dataclass(slots=True)
class Usage:
    """Token usage and cost of the calls behind one output or one score."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    calls: int = 0
    cache_hits: int = 0

    def add(self, other: Usage) -> None:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.calls += other.calls
        self.cache_hits += other.cache_hits
        if other.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + other.cost_usd

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
        data = data or {}
        return cls(
            input_tokens=int(data.get("input_tokens") or 0),
            output_tokens=int(data.get("output_tokens") or 0),
            cost_usd=data.get("cost_usd"),
            calls=int(data.get("calls") or 0),
            cache_hits=int(data.get("cache_hits") or 0),
        )


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
        """Accept what a user function may return: a string, a dict or an Output."""
        if isinstance(value, Output):
            return value
        if value is None:
            return cls(text="")
        if isinstance(value, str):
            return cls(text=value)
        if isinstance(value, dict):
            text = value.get("output", value.get("text", value.get("answer", "")))
            return cls(
                text=text if isinstance(text, str) else _json_text(text),
                tool_calls=[ToolCall.from_dict(c) for c in value.get("tool_calls") or []],
                transcript=value.get("transcript"),
                usage=Usage.from_dict(value.get("usage")),
                metadata=dict(value.get("metadata") or {}),
                error=value.get("error"),
            )
        return cls(text=str(value))


def _json_text(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)
