"""One trial's scores as Every Eval Ever instance records: one record per scorer.

A record joins the aggregate result it counts in: the scorer's pass rate
when it gives verdicts (the record's score is then 1 or 0 and `is_correct`
the verdict, the scorer's own value kept in `metadata.value`). A scorer
that gives no verdicts has no record: the format requires `is_correct`,
and assay does not invent one. A trial that errored (the target, or the
scorer) is a record with `error` set and `is_correct` false, as assay's
gates count it.

An agent's trial is `agentic`: its transcript (or, without one, its tool
calls) becomes the format's `messages`; any other trial is `single_turn`
with the answer in `output.raw`. An agent's trial retried for a tool
requirement keeps its last attempt's messages (the one scored) and every
attempt's token usage, and its metadata says so (`_attempts`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from assay.case import content_text
from assay.export.eee_aggregate import PASS_RATE, Evaluation, result_id
from assay.export.eee_schema import SCHEMA_VERSION
from assay.wire_tool_call import read_tool_call

if TYPE_CHECKING:
    from assay.output import ToolCall
    from assay.records import TrialRecord
    from assay.score import Score


def instance_records(evaluation: Evaluation, trial: TrialRecord, *,
                     verdict_scorers: set[str]) -> Iterator[dict[str, Any]]:
    """The records of one trial, one per scorer of `verdict_scorers` that scored it."""
    raw = trial.input if isinstance(trial.input, str) else json.dumps(trial.input,
                                                                      ensure_ascii=False)
    reference = _reference(trial.expected)
    messages = _messages(trial)
    shared: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": evaluation.evaluation_id,
        "model_id": evaluation.identity.id,
        "sample_id": trial.case_id,
        "sample_hash": hashlib.sha256((raw + "".join(reference)).encode()).hexdigest(),
        "interaction_type": "single_turn" if messages is None else "agentic",
        "input": {"raw": raw, "reference": reference},
        "output": None if messages is not None else {"raw": [trial.output.text]},
        "messages": messages,
        "answer_attribution": [_attribution(trial, messages)],
        "token_usage": _usage(trial),
        "performance": ({"latency_ms": trial.latency_ms}
                        if trial.latency_ms is not None and trial.latency_ms >= 0 else None),
    }
    names = list(trial.scores) if not trial.error else sorted(verdict_scorers)
    for scorer in names:
        if scorer not in verdict_scorers:
            continue
        score = trial.scores.get(scorer)
        if score is not None and score.error is None and score.passed is None and not trial.error:
            continue  # not applicable to this case (no verdict): not a record of a pass rate
        error = trial.error or (score.error if score is not None else "not scored")
        yield {**shared,
               "evaluation_name": scorer,
               "evaluation_result_id": result_id(scorer, PASS_RATE),
               "evaluation": _evaluation(score, error, messages),
               "error": error,
               "metadata": _metadata(evaluation, trial, score)}


def _evaluation(score: Score | None, error: str | None,
                messages: list[dict[str, Any]] | None) -> dict[str, Any]:
    passed = bool(error is None and score is not None and score.passed)
    out: dict[str, Any] = {"score": 1.0 if passed else 0.0, "is_correct": passed}
    if messages is not None:
        out["num_turns"] = max(1, len(messages))
        out["tool_calls_count"] = sum(len(m.get("tool_calls") or []) for m in messages)
    return out


def _metadata(evaluation: Evaluation, trial: TrialRecord, score: Score | None) -> dict[str, str]:
    out = {"condition": evaluation.condition, "epoch": str(trial.epoch), **_attempts(trial)}
    if trial.tags:
        out["tags"] = ", ".join(trial.tags)
    if trial.difficulty:
        out["difficulty"] = trial.difficulty
    if score is not None:
        if score.value is not None:
            out["value"] = f"{score.value:g}"
            out["scale"] = f"{score.scale[0]:g}..{score.scale[1]:g}"
        if score.reason:
            out["reason"] = score.reason
        judge = score.details.get("judge_model") if isinstance(score.details, dict) else None
        if judge:
            out["judge_model"] = str(judge)
    return out


def _attempts(trial: TrialRecord) -> dict[str, str]:
    """What an agent's trial retried for a tool requirement counts over: its messages and the
    counts read from them are the last attempt's (the one scored), its token usage every
    attempt's, as are the tool calls and failures counted here."""
    agent = trial.output.metadata.get("agent") if trial.output.metadata else None
    if not isinstance(agent, dict) or int(agent.get("attempts") or 1) < 2:
        return {}
    return {"attempts": str(agent["attempts"]),
            "tool_calls_all_attempts": str(agent.get("tool_calls") or 0),
            "tool_errors_all_attempts": str(agent.get("tool_errors") or 0),
            "attempts_read_as": "messages, num_turns and tool_calls_count: the last attempt, "
                                "the one scored; token_usage and *_all_attempts: every attempt"}


def _reference(expected: Any) -> list[str]:
    if expected is None:
        return []
    if isinstance(expected, str):
        return [expected]
    if isinstance(expected, list) and all(isinstance(item, str) for item in expected):
        return list(expected)
    return [json.dumps(expected, ensure_ascii=False, default=str)]


def _attribution(trial: TrialRecord, messages: list[dict[str, Any]] | None) -> dict[str, Any]:
    turn = 0 if messages is None else len(messages) - 1
    return {"turn_idx": turn,
            "source": "output.raw" if messages is None else f"messages[{turn}].content",
            "extracted_value": trial.output.text, "extraction_method": "final_answer",
            "is_terminal": True}


def _usage(trial: TrialRecord) -> dict[str, int] | None:
    usage = trial.usage
    if not (usage.input_tokens or usage.output_tokens):
        return None
    return {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens,
            "total_tokens": usage.input_tokens + usage.output_tokens}


def _messages(trial: TrialRecord) -> list[dict[str, Any]] | None:
    """The format's `messages` for an agent's trial; None for a single answer."""
    transcript = trial.output.transcript
    if isinstance(transcript, list) and any(
            isinstance(m, dict) and (m.get("role") == "tool" or m.get("tool_calls"))
            for m in transcript):
        return [_message(index, m) for index, m in enumerate(transcript) if isinstance(m, dict)]
    if not trial.output.tool_calls:
        return None
    asked = trial.input if isinstance(trial.input, list) else [
        {"role": "user", "content": trial.input}]
    calls = [{"id": f"call-{n}", **_call(call)} for n, call in enumerate(trial.output.tool_calls)]
    built: list[dict[str, Any]] = [*asked, {"role": "assistant", "content": None,
                                            "tool_calls": calls}]
    for call, made in zip(calls, trial.output.tool_calls, strict=True):
        if made.result is not None or made.error is not None:
            built.append({"role": "tool", "tool_call_id": call["id"],
                          "content": _text(made.error if made.error is not None else made.result)})
    built.append({"role": "assistant", "content": trial.output.text})
    return [_message(index, m) for index, m in enumerate(built)]


def _message(index: int, message: dict[str, Any]) -> dict[str, Any]:
    calls = message.get("tool_calls")
    call_id = message.get("tool_call_id")
    content = message.get("content")
    return {
        "turn_idx": index,
        "role": str(message.get("role") or "unknown"),
        "content": None if content is None else content_text(content),
        "tool_calls": None if not isinstance(calls, list) or not calls else [
            _tool_call(call, f"call-{index}-{n}")
            for n, call in enumerate(calls) if isinstance(call, dict)],
        "tool_call_id": None if call_id is None else [str(call_id)],
    }


def _tool_call(call: dict[str, Any], fallback_id: str) -> dict[str, Any]:
    """A transcript's tool call in the format's shape, from assay's (`name`, `arguments`) or
    the OpenAI wire shape (`function: {name, arguments: "<json>"}`)."""
    read = read_tool_call(call)
    return {"id": str(read.id or fallback_id), "name": str(read.name or "unknown"),
            "arguments": {str(k): _text(v) for k, v in read.arguments.items()}}


def _call(call: ToolCall) -> dict[str, Any]:
    return {"name": call.name, "arguments": call.arguments}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
