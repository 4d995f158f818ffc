"""An agent's trajectory step by step, read from what the target stored.

The agent target keeps each model turn in `metadata["agent"]["steps"]` (its
text, tokens, latency, and the ids of the tool calls it asked for) and each
tool call whole in `Output.tool_calls` (arguments, result, error,
duration), in the order they ran. A step here joins the two: the turn, then
the calls it made. A python or command target that reports tool calls but
no turns gets one step holding them all.

The steps of a retried trial are its last attempt's (what the scorers
judged), while its counts of tool calls, failed calls and turns cover every
attempt, as its cost and the cost table do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from assay.output import Output, ToolCall


@dataclass(frozen=True, slots=True)
class Call:
    """One tool call as it ran."""

    call: ToolCall
    server: str | None = None


@dataclass
class Step:
    """One model turn and the tool calls it asked for."""

    turn: int | None
    text: str = ""
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    latency_ms: float | None = None
    cached: bool = False
    stop_reason: str | None = None
    calls: list[Call] = field(default_factory=list)


@dataclass
class Trajectory:
    steps: list[Step]
    stop_reason: str | None = None
    attempts: int | None = None
    retried_for: list[str] = field(default_factory=list)
    """Why earlier attempts were thrown away (a tool requirement they broke)."""
    unmatched: list[ToolCall] = field(default_factory=list)
    """Tool calls the turns do not account for (shown after them, never dropped)."""
    tool_calls: int | None = None
    """The agent's tool calls and failed ones over every attempt (None when the target
    counted none): what the cost table adds up, not only the steps shown."""
    tool_errors: int | None = None


def trajectory(output: Output) -> Trajectory | None:
    """The steps of `output`, or None when the target recorded neither turns nor tool calls."""
    agent = output.metadata.get("agent") if isinstance(output.metadata, dict) else None
    turns = agent.get("steps") if isinstance(agent, dict) else None
    calls = list(output.tool_calls)
    if not isinstance(turns, list) or not turns:
        if not calls:
            return None
        return Trajectory([Step(turn=None, calls=[Call(c) for c in calls])])
    steps = []
    for turn in turns:
        if not isinstance(turn, dict):
            continue
        step = Step(turn=_int(turn.get("turn")), text=str(turn.get("text") or ""),
                    input_tokens=_int(turn.get("input_tokens")),
                    output_tokens=_int(turn.get("output_tokens")),
                    cost_usd=_number(turn.get("cost_usd")),
                    latency_ms=_number(turn.get("latency_ms")), cached=bool(turn.get("cached")),
                    stop_reason=turn.get("stop_reason") if isinstance(
                        turn.get("stop_reason"), str) else None)
        for record in turn.get("tool_calls") or []:
            if not calls:
                break
            server = record.get("server") if isinstance(record, dict) else None
            step.calls.append(Call(calls.pop(0), server if isinstance(server, str) else None))
        steps.append(step)
    agent = agent if isinstance(agent, dict) else {}
    retried = agent.get("retried_for")
    return Trajectory(steps, stop_reason=_text(agent.get("stop_reason")),
                      attempts=_int(agent.get("attempts")),
                      retried_for=[str(r) for r in retried or [] if r],
                      unmatched=calls, tool_calls=_int(agent.get("tool_calls")),
                      tool_errors=_int(agent.get("tool_errors")))


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) \
        else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
