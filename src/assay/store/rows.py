"""Rows in and out: JSON columns, and database rows turned into the typed records.

The records themselves (`assay.records`) know nothing of the database;
this is the one place that maps columns to their fields.
"""

from __future__ import annotations

from typing import Any

import orjson

from assay.output import Output, ToolCall, Usage
from assay.records import RunRecord, ScoreRow, TrialPreview, TrialRecord, TrialRow
from assay.score import Score


def dumps(value: Any) -> str | None:
    """JSON text for a column; anything JSON cannot hold is stored as its `str()`."""
    if value is None:
        return None
    return orjson.dumps(value, default=str, option=orjson.OPT_NON_STR_KEYS).decode()


loads = orjson.loads


def run_record(row: Any) -> RunRecord:
    data = row._mapping
    return RunRecord(
        id=data["id"], experiment=data["experiment"], kind=data["kind"],
        status=data["status"], started_at=data["started_at"],
        finished_at=data["finished_at"],
        config=loads(data["config_json"]) if data["config_json"] else None,
        config_hash=data["config_hash"], config_path=data["config_path"],
        dataset_path=data["dataset_path"], dataset_hash=data["dataset_hash"],
        git_commit=data["git_commit"], assay_version=data["assay_version"],
        total_trials=data["total_trials"],
        summary=loads(data["summary_json"]) if data["summary_json"] else None,
        error=data["error"],
        options=loads(data["options_json"]) if data.get("options_json") else None,
        report_dir=data.get("report_dir"),
    )


def stored_score(m: Any) -> Score:
    """A `scores` row as the Score it was."""
    spent = None
    if m["input_tokens"] is not None or m["output_tokens"] is not None or \
            m["cost_usd"] is not None:
        spent = Usage(input_tokens=m["input_tokens"] or 0, output_tokens=m["output_tokens"] or 0,
                      cost_usd=m["cost_usd"])
    return Score(
        value=m["value"],
        scale=(_float(m["scale_min"], 0.0), _float(m["scale_max"], 1.0)),
        passed=None if m["passed"] is None else bool(m["passed"]),
        reason=m["reason"] or "",
        details=loads(m["details_json"]) if m["details_json"] else {},
        error=m["error"],
        usage=spent,
    )


def trial_record(m: Any, scores: dict[str, Score]) -> TrialRecord:
    """A `trials` row (and its scores) as the TrialRecord it stores."""
    stored = loads(m["output_json"]) if m["output_json"] else {}
    output = Output(
        text=stored.get("text") or "",
        tool_calls=[ToolCall.from_dict(call) for call in stored.get("tool_calls") or []],
        transcript=stored.get("transcript"),
        metadata=stored.get("metadata") or {},
        error=m["error"],
        latency_ms=m["latency_ms"],
        usage=Usage(input_tokens=m["input_tokens"] or 0, output_tokens=m["output_tokens"] or 0,
                    cost_usd=m["cost_usd"], cache_hits=m["cache_hits"] or 0),
    )
    return TrialRecord(
        case_id=m["case_id"], condition=m["condition"], epoch=m["epoch"],
        input=loads(m["input_json"]) if m["input_json"] else None,
        expected=loads(m["expected_json"]) if m["expected_json"] else None,
        output=output,
        tags=loads(m["tags_json"]) if m["tags_json"] else [],
        difficulty=m["difficulty"],
        scores=scores,
    )


def score_row(m: Any) -> ScoreRow:
    return ScoreRow(
        case_id=m["case_id"], condition=m["condition"], epoch=m["epoch"], scorer=m["scorer"],
        value=m["value"], passed=None if m["passed"] is None else bool(m["passed"]),
        error=m["error"], scale=(_float(m["scale_min"], 0.0), _float(m["scale_max"], 1.0)),
        tags=tuple(loads(m["tags_json"])) if m["tags_json"] else (),
        difficulty=m["difficulty"], input_tokens=m["input_tokens"],
        output_tokens=m["output_tokens"], cost_usd=m["cost_usd"],
    )


def trial_row(m: Any) -> TrialRow:
    calls = errors = turns = 0
    output_json = m["output_json"]
    if output_json and '"agent"' in output_json:  # decode only what an agent target wrote
        agent = (loads(output_json).get("metadata") or {}).get("agent") or {}
        calls = int(agent.get("tool_calls") or 0)
        errors = int(agent.get("tool_errors") or 0)
        turns = int(agent.get("turns") or 0)
    return TrialRow(
        case_id=m["case_id"], condition=m["condition"], epoch=m["epoch"], error=m["error"],
        latency_ms=m["latency_ms"], input_tokens=m["input_tokens"],
        output_tokens=m["output_tokens"], cost_usd=m["cost_usd"], cache_hits=m["cache_hits"],
        tool_calls=calls, tool_errors=errors, turns=turns,
    )


PREVIEW_CHARS = 600
"""How much of an input, expected answer or output a preview reads from the database."""


def trial_preview(m: Any, scores: dict[str, ScoreRow]) -> TrialPreview:
    """A row of `Browsing.trial_previews` (texts already cut by the query) as a TrialPreview."""
    return TrialPreview(
        run_id=m["run_id"], case_id=m["case_id"], condition=m["condition"], epoch=m["epoch"],
        input=preview_text(m["input_json"], m["input_chars"]),
        input_chars=int(m["input_chars"] or 0),
        expected=preview_text(m["expected_json"], m["expected_chars"]),
        output=m["output_text"] or "", output_chars=int(m["output_chars"] or 0),
        tags=tuple(loads(m["tags_json"])) if m["tags_json"] else (),
        error=m["error"], latency_ms=m["latency_ms"], input_tokens=m["input_tokens"],
        output_tokens=m["output_tokens"], cost_usd=m["cost_usd"], scores=scores,
    )


def preview_text(json_start: str | None, total_chars: int | None) -> str:
    """Readable text from the start of a JSON column: a string as itself, chat messages as
    `role: content` lines, anything else as JSON; a value cut short stays raw JSON text."""
    if not json_start:
        return ""
    if total_chars is not None and total_chars > len(json_start):
        if json_start.startswith('"'):
            try:
                return str(loads(json_start.rstrip("\\") + '"'))
            except orjson.JSONDecodeError:
                return json_start
        return json_start
    value = loads(json_start)
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(m, dict) and "role" in m for m in value):
        return "\n".join(f"{m.get('role')}: {_text(m.get('content'))}" for m in value)
    return orjson.dumps(value).decode()


def _text(content: Any) -> str:
    return content if isinstance(content, str) else orjson.dumps(content, default=str).decode()


def _float(value: Any, default: float) -> float:
    return default if value is None else float(value)
