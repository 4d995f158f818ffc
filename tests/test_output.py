"""What a target may return, and how an odd return value becomes a visible trial error."""

from __future__ import annotations

import asyncio
import datetime
from typing import Any

import pytest

from assay.case import Case
from assay.condition import Condition
from assay.output import Output, ToolCall, Usage
from assay.runner.trial import run_trial
from assay.scorers.text import Contains
from assay.services import Services
from assay.targets.python import PythonParams, PythonTarget


def test_text_bytes_and_numbers_are_answers() -> None:
    assert Output.from_value("Paris").text == "Paris"
    assert Output.from_value("Zürich".encode()).text == "Zürich"
    assert Output.from_value(bytearray(b"ok")).text == "ok"
    assert Output.from_value(42).text == "42"
    assert Output.from_value(2.5).text == "2.5"
    same = Output(text="kept")
    assert Output.from_value(same) is same


def test_a_dict_carries_the_answer_and_its_parts() -> None:
    output = Output.from_value({
        "output": "4", "tool_calls": [{"name": "calc", "args": {"x": "2+2"}}],
        "usage": {"input_tokens": 12, "output_tokens": 3.0, "cost_usd": 0},
        "metadata": {"at": datetime.date(2024, 1, 2)}, "transcript": [{"role": "user"}]})
    assert output.text == "4" and output.error is None
    assert output.tool_calls == [ToolCall(name="calc", arguments={"x": "2+2"})]
    assert output.usage == Usage(input_tokens=12, output_tokens=3, cost_usd=0.0)
    assert output.metadata == {"at": datetime.date(2024, 1, 2)}
    assert Output.from_value({"answer": {"city": "Paris"}}).text == '{"city": "Paris"}'
    assert Output.from_value({"text": "t"}).text == "t"


def test_a_dict_with_only_an_error_is_a_failed_trial_not_a_type_error() -> None:
    output = Output.from_value({"error": "rate limited"})
    assert (output.text, output.error) == ("", "rate limited")
    assert Output.from_value({"output": None, "error": {"code": 5}}).error == '{"code": 5}'


@pytest.mark.parametrize(("value", "kind", "words"), [
    (None, TypeError, ["returned None", "answer text", "'output'"]),
    ({"foo": 1, "bar": 2}, ValueError, ["'bar', 'foo'", "'output'", "'text'", "'answer'"]),
    ({}, ValueError, ["keys (none)", "'output'"]),
    ({"output": None}, ValueError, ["'output': None"]),
    (["a", "b"], TypeError, ["returned a list"]),
    (True, TypeError, ["returned a bool"]),
    (object(), TypeError, ["returned an object"]),
    # regression: an answer that is not JSON became its repr, '"<object object at 0x...>"',
    # and was scored
    ({"output": object()}, TypeError, ["'output'", "an object", "not JSON"]),
    ({"answer": {"when": datetime.date(2024, 1, 2)}}, TypeError,
     ["'answer'", "type date", "not JSON"]),
    (b"\xff\xfe", ValueError, ["not UTF-8"]),
    ({"output": "x", "usage": {"input_tokens": "many"}}, ValueError,
     ["usage.input_tokens", "'many'"]),
    ({"output": "x", "usage": {"output_tokens": -1}}, ValueError, ["usage.output_tokens"]),
    ({"output": "x", "usage": {"cost_usd": "cheap"}}, ValueError, ["usage.cost_usd"]),
    ({"output": "x", "usage": {"tokens": 5}}, ValueError,
     ["usage.tokens", "'input_tokens'"]),
    ({"output": "x", "usage": 7}, TypeError, ["'usage' must be a dict"]),
    ({"output": "x", "cost_usd": 0.01}, ValueError, ["'cost_usd' beside the answer",
                                                      "under 'usage'"]),
    ({"answer": "x", "prompt_tokens": 9}, ValueError, ["'prompt_tokens'", "'input_tokens'"]),
    ({"output": "x", "tool_calls": {"name": "a"}}, TypeError, ["'tool_calls' must be a list"]),
    ({"output": "x", "tool_calls": [{"arguments": {}}]}, ValueError, ["tool_calls[0]", "'name'"]),
    ({"output": "x", "tool_calls": [{"name": "a", "arguments": "x=1"}]}, TypeError,
     ["tool_calls[0].arguments"]),
    ({"output": "x", "metadata": ["a"]}, TypeError, ["'metadata' must be a dict"]),
    ({"output": "x", "transcript": "hi"}, TypeError, ["'transcript'"]),
])
def test_odd_return_values_are_errors_that_say_what_was_wrong(
        value: Any, kind: type[Exception], words: list[str]) -> None:
    with pytest.raises(kind) as raised:
        Output.from_value(value)
    assert all(word in str(raised.value) for word in words), str(raised.value)


@pytest.mark.parametrize(("value", "words"), [
    (Output(text=None), ["Output", "text", "None"]),  # type: ignore[arg-type]
    (Output(text=123), ["Output", "text", "an int"]),  # type: ignore[arg-type]
    (Output(text="x", metadata=None), ["Output", "metadata", "None"]),  # type: ignore[arg-type]
    (Output(text="x", tool_calls=None), ["Output", "tool_calls", "None"]),  # type: ignore[arg-type]
    (Output(text="x", tool_calls=[{"name": "t"}]), ["Output", "tool_calls[0]", "a dict"]),  # type: ignore[list-item]
    (Output(text="x", usage={"input_tokens": 3}), ["Output", "usage", "a dict"]),  # type: ignore[arg-type]
    (Output(text="x", transcript="hi"), ["Output", "transcript", "a str"]),  # type: ignore[arg-type]
    (Output(text="x", error=5), ["Output", "error", "an int"]),  # type: ignore[arg-type]
])
def test_an_output_with_parts_of_the_wrong_type_is_a_trial_error_not_assays_crash(
        value: Output, words: list[str]) -> None:
    """Regression: a target returning `Output(text=None)` ended the whole run with "internal
    error: AttributeError: 'NoneType' object has no attribute 'isascii'", exit 3."""
    with pytest.raises(TypeError) as raised:
        Output.from_value(value)
    assert all(word in str(raised.value) for word in words), str(raised.value)
    trial = answer_of(lambda case: value)
    assert trial.output.error is not None and "Output" in trial.output.error
    assert trial.scores == {}


def answer_of(function: Any) -> Any:
    """One trial of a python target through the runner, scored by `contains`."""
    target = PythonTarget(PythonParams(type="python", function=function, threaded=False),
                          Condition(name="default"), Services())
    scorer = Contains(Contains.Params(type="contains"), Services())

    async def go() -> Any:
        await target.start()
        return await run_trial(target, Case(id="a", input="q", expected="x"),
                               Condition(name="default"), 0, [scorer], None)

    return asyncio.run(go())


def test_a_target_returning_none_is_a_trial_error_not_a_score_of_zero() -> None:
    trial = answer_of(lambda case: None)
    assert trial.output.error == ("TypeError: the target returned None; "
                                  "return the answer text or a dict with 'output'")
    assert trial.scores == {}
    passing = answer_of(lambda case: {"output": "x"})
    assert passing.output.error is None and passing.scores["contains"].passed is True


def test_openai_usage_names_are_read_as_they_come_from_the_sdk() -> None:
    from assay.output import Output

    output = Output.from_value({"output": "hi", "usage": {
        "prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}})
    assert (output.usage.input_tokens, output.usage.output_tokens) == (12, 3)


@pytest.mark.parametrize(("usage", "field"), [
    ({"input_tokens": 10**20}, "usage.input_tokens"),
    ({"output_tokens": 2.0**70}, "usage.output_tokens"),
    ({"cost_usd": float("nan")}, "usage.cost_usd"),
    ({"cost_usd": float("inf")}, "usage.cost_usd"),
])
def test_a_token_count_past_64_bits_or_a_cost_that_is_not_finite_is_the_trials_error(
        usage: dict[str, object], field: str) -> None:
    """Regression: a target reporting 10**20 input tokens stopped the whole run ("the store
    failed: Python int too large to convert to SQLite INTEGER", exit 3, no trial kept); a
    NaN cost made every cost total NaN, and `run.max_cost_usd` could never stop the run."""
    with pytest.raises(ValueError, match=field):
        Output.from_value({"output": "x", "usage": usage})
