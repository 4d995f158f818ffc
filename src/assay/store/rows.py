"""Rows as plain data: JSON columns in and out, and the shapes the store hands back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson


def dumps(value: Any) -> str | None:
    """JSON text for a column; anything JSON cannot hold is stored as its `str()`."""
    if value is None:
        return None
    return orjson.dumps(value, default=str, option=orjson.OPT_NON_STR_KEYS).decode()


loads = orjson.loads


@dataclass
class RunInfo:
    """A run's row, as plain data."""

    id: str
    experiment: str
    kind: str
    status: str
    started_at: str
    finished_at: str | None
    config: dict[str, Any] | None
    config_hash: str | None
    config_path: str | None
    dataset_path: str | None
    dataset_hash: str | None
    git_commit: str | None
    assay_version: str | None
    total_trials: int | None
    summary: dict[str, Any] | None
    error: str | None
    options: dict[str, Any] | None = None
    """What the command line changed for this run (sample, epochs, conditions); resume reuses it."""

    @classmethod
    def from_row(cls, row: Any) -> RunInfo:
        data = dict(row._mapping)
        return cls(
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
        )


def score_dict(m: Any) -> dict[str, Any]:
    return {
        "value": m["value"],
        "scale": [m["scale_min"], m["scale_max"]],
        "passed": None if m["passed"] is None else bool(m["passed"]),
        "reason": m["reason"],
        "details": loads(m["details_json"]) if m["details_json"] else {},
        "error": m["error"],
    }


def trial_dict(row: dict[str, Any]) -> dict[str, Any]:
    output = loads(row["output_json"]) if row["output_json"] else {}
    return {
        "case_id": row["case_id"],
        "condition": row["condition"],
        "epoch": row["epoch"],
        "input": loads(row["input_json"]) if row["input_json"] else None,
        "expected": loads(row["expected_json"]) if row["expected_json"] else None,
        "tags": loads(row["tags_json"]) if row["tags_json"] else [],
        "difficulty": row["difficulty"],
        "output": output,
        "error": row["error"],
        "latency_ms": row["latency_ms"],
        "usage": {"input_tokens": row["input_tokens"], "output_tokens": row["output_tokens"],
                  "cost_usd": row["cost_usd"], "cache_hits": row["cache_hits"]},
        "scores": row["scores"],
    }
