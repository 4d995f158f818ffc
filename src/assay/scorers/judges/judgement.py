"""One judge judgement, and how several judgements of a repeated judge become one.

A judge asked k times may not agree with itself. The reductions here
(mean, median, majority) make one judgement of the k, and `agreement`
describes how far apart they were and whether they fell on both sides
of the pass line ("unstable"), so a reader can tell a firm judgement from
a coin toss.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from assay.errors import UserError

Reduction = Literal["mean", "median", "majority"]
H = TypeVar("H", bound=Hashable)


class JudgeConfigError(UserError, ValueError):
    """Judge params that cannot work together.

    A `UserError` (exit 2) when raised while building a scorer, and a
    `ValueError`, so pydantic reports it against the field when raised
    while validating params.
    """


class ReplyParseError(ValueError):
    """The judge's reply holds no readable judgement (the message says what was missing)."""


@dataclass(slots=True)
class Judgement:
    """What one judge reply said, read into numbers.

    `value` is on the format's scale (None for label judgements); `label` is
    set for label judgements; `metrics` holds per-metric values of a rubric;
    `data` keeps the other fields worth storing (reasoning, unverified claims).
    """

    passed: bool
    value: float | None = None
    label: str | None = None
    reason: str = ""
    metrics: dict[str, float] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"passed": self.passed}
        if self.value is not None:
            out["value"] = self.value
        if self.label is not None:
            out["label"] = self.label
        if self.metrics:
            out["metrics"] = dict(self.metrics)
        if self.reason:
            out["reason"] = self.reason
        out.update(self.data)
        return out


def reduce_numbers(values: Sequence[float], how: Reduction) -> float:
    """Mean, median or most common value; a tie for most common goes to the lowest."""
    if not values:
        raise ValueError("no values to reduce")
    if how == "mean":
        return statistics.fmean(values)
    if how == "median":
        return float(statistics.median(values))
    return majority(values, prefer=lambda value: value)


def majority(items: Sequence[H], *, prefer: Callable[[H], Any]) -> H:
    """The most common item; among tied items the one with the smallest `prefer` key.

    Callers pass a key that ranks failing judgements first, so a tie is
    broken toward the stricter reading rather than by chance.
    """
    counts = Counter(items)
    top = max(counts.values())
    tied = [item for item in counts if counts[item] == top]
    return min(tied, key=prefer)


def spread(values: Sequence[float]) -> float:
    """The distance between the highest and the lowest judgement."""
    return max(values) - min(values) if values else 0.0


def agreement(judgements: Sequence[Judgement]) -> dict[str, Any]:
    """How repeated judgements agree: their spread and whether they flip across the pass line."""
    values = [v.value for v in judgements if v.value is not None]
    info: dict[str, Any] = {
        "unstable": len({v.passed for v in judgements}) > 1,
        "pass_votes": sum(v.passed for v in judgements),
    }
    if values:
        info["spread"] = spread(values)
        info["stdev"] = statistics.pstdev(values) if len(values) > 1 else 0.0
    labels = [v.label for v in judgements if v.label is not None]
    if labels:
        info["label_counts"] = dict(Counter(labels))
    metric_names = [name for v in judgements for name in v.metrics]
    if metric_names:
        info["metric_spread"] = {
            name: spread([v.metrics[name] for v in judgements if name in v.metrics])
            for name in dict.fromkeys(metric_names)
        }
    return info
