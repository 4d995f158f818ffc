"""A finished trial as the rows the store writes: every value storable, every change noted.

Each text and JSON column passes through `Storable`; what had to change is
counted per field and kept on the trial itself, in its output's metadata
under `made_storable` (e.g. `{"input": {"lone_surrogates": 1}}`), so a
report or a person reading the row sees that the stored text is not
byte for byte what the target or the dataset gave.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from assay.score import Score
from assay.store import schema
from assay.store.storable import Replacements, Storable
from assay.trial import TrialKey, TrialResult

TRIAL_TEXT_COLUMNS = ("input_json", "expected_json", "output_text", "output_json", "error")
"""The columns of a trial row that can hold a secret: a case may quote a key as much as a
target's answer may echo one (masked before storing)."""

SCORE_TEXT_COLUMNS = ("reason", "details_json", "error")
"""The columns of a score row that can quote what a target or judge said (masked for secrets)."""

NOTE_KEY = "made_storable"
"""The output metadata key that records what the store replaced (see the module notes)."""


@dataclass
class TrialRows:
    """One trial's row and its scores' rows, ready to insert."""

    key: TrialKey
    trial: dict[str, Any]
    scores: list[dict[str, Any]] = field(default_factory=list)


def trial_rows(run_id: str, result: TrialResult, finished: str, storable: Storable) -> TrialRows:
    """The rows of one finished trial, made storable, with a note of what changed."""
    case, output, usage = result.case, result.output, result.output.usage
    notes = Replacements()
    key = {"run_id": run_id, "case_id": case.id, "condition": result.condition,
           "epoch": result.epoch}
    scores = [score_row(key, name, score, storable, notes)
              for name, score in result.scores.items()]
    trial = {
        **key,
        "input_json": storable.json(case.input, "input", notes),
        "expected_json": storable.json(case.expected, "expected", notes),
        "tags_json": storable.json(case.tags, "tags", notes) if case.tags else None,
        "difficulty": _within_column(
            storable.text(case.difficulty, "difficulty", notes), "difficulty", notes),
        "output_text": storable.text(output.text, "output_text", notes),
        "error": storable.text(output.error, "error", notes),
        "latency_ms": output.latency_ms,
        "input_tokens": usage.input_tokens or None,
        "output_tokens": usage.output_tokens or None,
        "cost_usd": usage.cost_usd,
        "cache_hits": usage.cache_hits or None,
        "finished_at": finished,
    }
    stored_output = output.to_dict()
    trial["output_json"] = storable.json(stored_output, "output", notes)
    if notes:
        stored_output["metadata"] = {**(output.metadata or {}), NOTE_KEY: notes.by_field}
        trial["output_json"] = storable.json(stored_output, "output", Replacements())
    return TrialRows(result.key, trial, scores)


def errored_rows(run_id: str, key: TrialKey, reason: str, finished: str,
                 storable: Storable) -> TrialRows:
    """The trial recorded as an error because its rows could not be stored: its key and why."""
    case_id, condition, epoch = key
    notes = Replacements()
    error = f"not stored: {reason}"
    row: dict[str, Any] = dict.fromkeys(schema.trials.columns.keys())
    row.update(run_id=run_id, case_id=case_id, condition=condition, epoch=epoch,
               error=storable.text(error, "error", notes), finished_at=finished)
    return TrialRows(key, row)


def score_row(key: dict[str, Any], name: str, score: Score, storable: Storable,
              notes: Replacements) -> dict[str, Any]:
    """The `scores` row of one scorer's score on one trial (`key`: run id, case id,
    condition, epoch), its texts made storable."""
    spent = score.usage
    reason, details, error = _score_fields(name)
    return {
        **key,
        "scorer": name,
        "value": score.value,
        "scale_min": score.scale[0],
        "scale_max": score.scale[1],
        "passed": None if score.passed is None else int(score.passed),
        "reason": storable.text(score.reason or None, reason, notes),
        "details_json": storable.json(score.details, details, notes) if score.details else None,
        "error": storable.text(score.error, error, notes),
        "input_tokens": spent.input_tokens if spent else None,
        "output_tokens": spent.output_tokens if spent else None,
        "cost_usd": spent.cost_usd if spent else None,
        "cache_hits": spent.cache_hits or None if spent else None,
        "shared_cost_usd": spent.shared_cost_usd if spent else None,
    }


@lru_cache(maxsize=256)
def _score_fields(name: str) -> tuple[str, str, str]:
    """Where a change to the reason, details or error of scorer `name` is noted (named once
    per scorer, not once per score)."""
    return f"scores.{name}.reason", f"scores.{name}.details", f"scores.{name}.error"


@lru_cache(maxsize=8)
def _column_length(column: str) -> int | None:
    return schema.trials.c[column].type.length  # type: ignore[attr-defined, no-any-return]


def _within_column(value: str | None, column: str, notes: Replacements) -> str | None:
    """`value` cut to the length its (non-key) column holds on PostgreSQL, the cut noted."""
    limit = _column_length(column)
    if value is None or limit is None or len(value) <= limit:
        return value
    notes.add(column, "characters_cut", len(value) - limit)
    return value[:limit]
