"""An agent's trajectory: each stored turn with the tool calls it asked for, in order, and
nothing dropped when turns and calls disagree."""

from __future__ import annotations

from assay.output import Output, ToolCall
from assay.view.trajectory import trajectory


def _turn(n: int, calls: int, **extra: object) -> dict[str, object]:
    return {"turn": n, "text": f"turn {n}", "input_tokens": 10, "output_tokens": 5,
            "latency_ms": 40.0, "tool_calls": [{"id": f"c{n}{k}", "server": "docs"}
                                               for k in range(calls)], **extra}


def test_each_turn_holds_the_calls_it_made_in_the_order_they_ran() -> None:
    calls = [ToolCall("search", {"q": "a"}, result="hit"),
             ToolCall("read", {"path": "x"}, error="missing", duration_ms=3.0),
             ToolCall("read", {"path": "y"}, result="text")]
    output = Output(text="done", tool_calls=calls, metadata={"agent": {
        "steps": [_turn(1, 2), _turn(2, 1), _turn(3, 0, stop_reason="end_turn")],
        "stop_reason": "end_turn", "attempts": 2, "retried_for": ["no tool was called"]}})
    found = trajectory(output)
    assert found is not None
    assert [[c.call for c in step.calls] for step in found.steps] == [calls[:2], calls[2:], []]
    assert found.steps[0].calls[0].server == "docs"
    assert found.steps[2].stop_reason == "end_turn"
    assert (found.stop_reason, found.attempts, found.retried_for) == (
        "end_turn", 2, ["no tool was called"])
    assert found.unmatched == []


def test_calls_the_turns_do_not_account_for_are_kept_after_them() -> None:
    calls = [ToolCall("a"), ToolCall("b")]
    found = trajectory(Output(tool_calls=calls, metadata={"agent": {"steps": [_turn(1, 1)]}}))
    assert found is not None
    assert found.unmatched == [calls[1]]


def test_a_target_with_calls_but_no_turns_gets_one_step_of_them() -> None:
    found = trajectory(Output(tool_calls=[ToolCall("a")]))
    assert found is not None and len(found.steps) == 1 and found.steps[0].turn is None


def test_an_answer_without_turns_or_calls_has_no_trajectory() -> None:
    assert trajectory(Output(text="42")) is None
    assert trajectory(Output(text="42", metadata={"agent": "not a mapping"})) is None
