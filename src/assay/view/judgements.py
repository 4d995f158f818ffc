"""What a score's details say, laid out for a person: the judge's reasoning, metrics,
unverified claims, and every repeat's own judgement.

Judged scorers store these under known keys of `Score.details` (see
`scorers.judges`); anything else in the details is kept and shown as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from assay.score import Score

SHOWN = ("judge_model", "prompt_hash", "metrics", "reasoning", "unverified_claims",
         "judgements", "repeats", "reduce", "unstable", "pass_votes", "spread", "stdev",
         "usage", "cached", "label", "judge_errors")


@dataclass
class Repeat:
    """One asking of a repeated judge."""

    passed: bool | None
    value: Any
    label: str | None
    reason: str
    reasoning: dict[str, str] | str | None
    metrics: dict[str, Any]
    unverified_claims: list[str]
    error: str | None
    raw_replies: list[str]
    attempts: int | None
    cached: bool


@dataclass
class ScoreDetails:
    judge_model: str | None
    reasoning: dict[str, str] | str | None
    metrics: dict[str, Any]
    unverified_claims: list[str]
    repeats: list[Repeat]
    unstable: bool
    label: str | None
    spread: float | None
    usage: dict[str, Any] | None
    other: dict[str, Any] = field(default_factory=dict)
    """Details no section above shows, kept whole."""


def score_details(score: Score) -> ScoreDetails:
    d = score.details if isinstance(score.details, dict) else {}
    repeats = [_repeat(r) for r in d.get("judgements") or [] if isinstance(r, dict)]
    return ScoreDetails(
        judge_model=_str(d.get("judge_model")), reasoning=_reasoning(d.get("reasoning")),
        metrics=dict(d["metrics"]) if isinstance(d.get("metrics"), dict) else {},
        unverified_claims=_strings(d.get("unverified_claims")), repeats=repeats,
        unstable=d.get("unstable") is True, label=_str(d.get("label")),
        spread=d.get("spread") if isinstance(d.get("spread"), int | float) else None,
        usage=d.get("usage") if isinstance(d.get("usage"), dict) else None,
        other={k: v for k, v in d.items() if k not in SHOWN})


def _repeat(r: dict[str, Any]) -> Repeat:
    return Repeat(passed=r.get("passed") if isinstance(r.get("passed"), bool) else None,
                  value=r.get("value"), label=_str(r.get("label")),
                  reason=str(r.get("reason") or ""), reasoning=_reasoning(r.get("reasoning")),
                  metrics=dict(r["metrics"]) if isinstance(r.get("metrics"), dict) else {},
                  unverified_claims=_strings(r.get("unverified_claims")),
                  error=_str(r.get("error")), raw_replies=_strings(r.get("raw_replies")),
                  attempts=r.get("attempts") if isinstance(r.get("attempts"), int) else None,
                  cached=r.get("cached") is True)


def _reasoning(value: Any) -> dict[str, str] | str | None:
    if isinstance(value, dict):
        return {str(k): str(v) for k, v in value.items()}
    return value if isinstance(value, str) and value else None


def _strings(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None
