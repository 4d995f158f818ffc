"""Rows in and out: JSON columns, and database rows turned into the typed records.

The records themselves (`assay.records`) know nothing of the database;
this is the one place that maps columns to their fields.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from functools import lru_cache
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


def now_iso() -> str:
    """Now, as the store's time columns hold it (ISO, UTC, to the microsecond)."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


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
        review=loads(data["review_json"]) if data.get("review_json") else None,
        pack_hashes=loads(data["pack_hashes_json"]) if data.get("pack_hashes_json") else None,
    )


SCORE_FIELDS = ("value", "scale_min", "scale_max", "passed", "reason", "details_json",
                "error", "input_tokens", "output_tokens", "cost_usd", "cache_hits",
                "shared_cost_usd")
"""The `scores` columns a stored Score is read from, in the order `score_of` takes them."""


def stored_score(m: Any) -> Score:
    """A `scores` row as the Score it was."""
    return score_of([m[name] for name in SCORE_FIELDS])


def score_of(values: Sequence[Any]) -> Score:
    """The Score stored in these `SCORE_FIELDS` values (read by position: a run's review
    reads a score per scorer per trial, so the records are built with positional
    arguments, in their fields' order, which costs half what keywords do)."""
    (value, scale_min, scale_max, passed, reason, details, error, input_tokens, output_tokens,
     cost_usd, cache_hits, shared_cost_usd) = values
    if scale_min == 0.0 and scale_max == 1.0:
        scale = _UNIT
    else:
        scale = (0.0 if scale_min is None else float(scale_min),
                 1.0 if scale_max is None else float(scale_max))
    spent = None
    if input_tokens is not None or output_tokens is not None or cost_usd is not None:
        # Usage(input_tokens, output_tokens, cost_usd, calls, cache_hits, shared_cost_usd)
        spent = Usage(input_tokens or 0, output_tokens or 0, cost_usd, 0, cache_hits or 0,
                      shared_cost_usd)
    # Score(value, scale, passed, reason, details, error, usage)
    return Score(value, scale, None if passed is None else bool(passed), reason or "",
                 loads(details) if details else {}, error, spent)


_UNIT = (0.0, 1.0)
"""The scale of most scores, one tuple shared by all of them."""


TRIAL_FIELDS = ("case_id", "condition", "epoch", "input_json", "expected_json", "tags_json",
                "difficulty", "output_json", "error", "latency_ms", "input_tokens",
                "output_tokens", "cost_usd", "cache_hits")
"""The `trials` columns a TrialRecord is read from, in the order `trial_of` takes them."""


def trial_record(m: Any, scores: dict[str, Score]) -> TrialRecord:
    """A `trials` row (and its scores) as the TrialRecord it stores."""
    return trial_of([m[name] for name in TRIAL_FIELDS], scores)


def trial_of(values: Sequence[Any], scores: dict[str, Score]) -> TrialRecord:
    """The TrialRecord stored in these `TRIAL_FIELDS` values, with its scores (built by
    position, in the records' field order, as `score_of` is)."""
    (case_id, condition, epoch, input_json, expected_json, tags_json, difficulty, output_json,
     error, latency_ms, input_tokens, output_tokens, cost_usd, cache_hits) = values
    stored = loads(output_json) if output_json else {}
    calls = stored.get("tool_calls")
    # Usage(input_tokens, output_tokens, cost_usd, calls, cache_hits)
    usage = Usage(input_tokens or 0, output_tokens or 0, cost_usd, 0, cache_hits or 0)
    # Output(text, tool_calls, transcript, usage, metadata, error, latency_ms)
    output = Output(stored.get("text") or "",
                    [ToolCall.from_dict(call) for call in calls] if calls else [],
                    stored.get("transcript"), usage, stored.get("metadata") or {}, error,
                    latency_ms)
    # TrialRecord(case_id, condition, epoch, input, expected, output, tags, difficulty, scores)
    return TrialRecord(case_id, condition, epoch,
                       loads(input_json) if input_json else None,
                       loads(expected_json) if expected_json else None,
                       output, loads(tags_json) if tags_json else [], difficulty, scores)


def score_row(m: Any) -> ScoreRow:
    return score_row_of([m[name] for name in SCORE_ROW_FIELDS])


SCORE_ROW_FIELDS = ("case_id", "condition", "epoch", "scorer", "value", "passed", "error",
                    "scale_min", "scale_max", "input_tokens", "output_tokens", "cost_usd",
                    "cache_hits", "shared_cost_usd", "tags_json", "difficulty")
"""The columns (of `scores`, and the trial's tags and difficulty) a ScoreRow is read from,
in the order `score_row_of` takes them."""


def score_row_of(values: Sequence[Any]) -> ScoreRow:
    """The ScoreRow in these `SCORE_ROW_FIELDS` values (read by position: a summary reads
    one per scorer per trial)."""
    (case_id, condition, epoch, scorer, value, passed, error, scale_min, scale_max,
     input_tokens, output_tokens, cost_usd, cache_hits, shared_cost_usd, tags_json,
     difficulty) = values
    return ScoreRow(
        case_id=case_id, condition=condition, epoch=epoch, scorer=scorer,
        value=value, passed=None if passed is None else bool(passed),
        error=error, scale=(_float(scale_min, 0.0), _float(scale_max, 1.0)),
        tags=_tags(tags_json) if tags_json else (),
        difficulty=difficulty, input_tokens=input_tokens,
        output_tokens=output_tokens, cost_usd=cost_usd, cache_hits=cache_hits or 0,
        shared_cost_usd=shared_cost_usd,
    )


TRIAL_ROW_FIELDS = ("case_id", "condition", "epoch", "error", "latency_ms", "input_tokens",
                    "output_tokens", "cost_usd", "cache_hits", "output_json", "tags_json",
                    "difficulty")
"""The `trials` columns a TrialRow is read from, in the order `trial_row` takes them
(`output_json` only for an agent target's trial: the query leaves the others' out)."""


def trial_row(values: Sequence[Any]) -> TrialRow:
    """The TrialRow in these `TRIAL_ROW_FIELDS` values."""
    (case_id, condition, epoch, error, latency_ms, input_tokens, output_tokens, cost_usd,
     cache_hits, output_json, tags_json, difficulty) = values
    calls = errors = turns = 0
    if output_json and '"agent"' in output_json:  # decode only what an agent target wrote
        agent = (loads(output_json).get("metadata") or {}).get("agent") or {}
        calls = int(agent.get("tool_calls") or 0)
        errors = int(agent.get("tool_errors") or 0)
        turns = int(agent.get("turns") or 0)
    return TrialRow(
        case_id=case_id, condition=condition, epoch=epoch, error=error,
        latency_ms=latency_ms, input_tokens=input_tokens, output_tokens=output_tokens,
        cost_usd=cost_usd, cache_hits=cache_hits, tool_calls=calls, tool_errors=errors,
        turns=turns, tags=_tags(tags_json) if tags_json else (), difficulty=difficulty,
    )


PREVIEW_CHARS = 600
"""How much of an input, expected answer or output a preview reads from the database."""


def trial_preview(m: Any, scores: dict[str, ScoreRow]) -> TrialPreview:
    """A row of `Browsing.trial_previews` (texts already cut by the query) as a TrialPreview."""
    return TrialPreview(
        run_id=m["run_id"], case_id=m["case_id"], condition=m["condition"], epoch=m["epoch"],
        input=preview_text(m["input_json"], m["input_chars"]),
        input_cut=_cut(m["input_json"], m["input_chars"]),
        expected=preview_text(m["expected_json"], m["expected_chars"]),
        expected_cut=_cut(m["expected_json"], m["expected_chars"]),
        **_output_preview(m["output_text"], m["output_length"]),
        tags=tuple(loads(m["tags_json"])) if m["tags_json"] else (),
        error=m["error"], latency_ms=m["latency_ms"], input_tokens=m["input_tokens"],
        output_tokens=m["output_tokens"], cost_usd=m["cost_usd"], scores=scores,
    )


def _output_preview(start: str | bytes | None, length: int | None) -> dict[str, Any]:
    """`output` and `output_cut` from the start of an output and its length, both in
    characters, or in bytes where the query read bytes (SQLite: see `_output_start`)."""
    if isinstance(start, bytes):
        cut = (length or 0) > len(start)
        text = start.decode("utf-8", errors="ignore" if cut else "strict")
    else:
        text, cut = start or "", (length or 0) > len(start or "")
    return {"output": text[:PREVIEW_CHARS], "output_cut": cut or len(text) > PREVIEW_CHARS}


def _cut(json_start: str | None, total_chars: int | None) -> bool:
    """The query cut the column's JSON short (its text, decoded, is always shorter)."""
    return (total_chars or 0) > len(json_start or "")


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


@lru_cache(maxsize=1024)
def _tags(text: str) -> tuple[str, ...]:
    """A trial's tags, decoded once for all its scores (and the trials that share them)."""
    return tuple(loads(text))


def _float(value: Any, default: float) -> float:
    return default if value is None else float(value)
