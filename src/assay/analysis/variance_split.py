"""Whose noise is it: the agent's (between epochs) or the judge's (between asks of one answer)?

With every case run for E epochs and every answer judged R times, a score
is case + agent + judge: the agent answers differently each epoch, and the
judge scores one answer differently each ask. A nested one-way analysis
of variance separates the two (one condition at a time):

- judge variance: the pooled variance across the R asks of one answer;
- agent variance: the pooled variance of the per-epoch means of a case,
  less the judge's part of it (judge variance / R), floored at 0.

For a delta between two conditions over the same cases, the variance of
the per-case differences is case heterogeneity + agent + judge, and the
judge's part of it, when each answer is judged R0 times (as the run being
explained was), is sum over both conditions of judge variance / (E R0).
Its share of the whole is the share of the delta's uncertainty (its
squared standard error) that comes from the judge: what more asks per
answer, or a steadier judge, could remove.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

CaseScores = Mapping[str, Mapping[int, Sequence[float]]]
"""case id -> epoch -> the scores of the R asks of that epoch's answer."""


@dataclass(frozen=True, slots=True)
class VarianceSplit:
    """One condition's score variance, split into agent and judge parts."""

    condition: str
    cases: int
    epochs: int
    repeats: int
    judge_variance: float | None
    agent_variance: float | None
    """None with one epoch: the agent's variation cannot be told from the case's."""

    @property
    def judge_share(self) -> float | None:
        """The judge's share of one judged answer's variance around its case's mean."""
        if self.judge_variance is None or self.agent_variance is None:
            return None
        total = self.judge_variance + self.agent_variance
        return self.judge_variance / total if total > 0 else None

    def to_dict(self) -> dict[str, Any]:
        return {"condition": self.condition, "cases": self.cases, "epochs": self.epochs,
                "repeats": self.repeats, "judge_variance": self.judge_variance,
                "agent_variance": self.agent_variance, "judge_share": self.judge_share}


@dataclass(frozen=True, slots=True)
class DeltaNoise:
    """How much of a delta's uncertainty the judge contributes."""

    label_a: str
    label_b: str
    cases: int
    delta_variance: float
    """Variance of the per-case differences, as the run being explained measured them."""
    judge_part: float
    asks: int
    """Asks per answer in the run being explained (R0)."""

    @property
    def judge_share(self) -> float | None:
        return min(1.0, self.judge_part / self.delta_variance) if self.delta_variance > 0 \
            else None

    def to_dict(self) -> dict[str, Any]:
        return {"label_a": self.label_a, "label_b": self.label_b, "cases": self.cases,
                "delta_variance": self.delta_variance, "judge_part": self.judge_part,
                "asks": self.asks, "judge_share": self.judge_share}


def split_variance(condition: str, scores: CaseScores) -> VarianceSplit:
    """Agent and judge variance of one condition's scores."""
    within_squares = within_df = 0.0
    between_squares = between_df = 0.0
    repeat_counts: list[int] = []
    epochs = 0
    for by_epoch in scores.values():
        means = []
        for values in by_epoch.values():
            if not values:
                continue
            repeat_counts.append(len(values))
            mean = math.fsum(values) / len(values)
            means.append(mean)
            within_squares += math.fsum((v - mean) ** 2 for v in values)
            within_df += len(values) - 1
        epochs = max(epochs, len(means))
        if len(means) >= 2:
            centre = math.fsum(means) / len(means)
            between_squares += math.fsum((m - centre) ** 2 for m in means)
            between_df += len(means) - 1
    judge = within_squares / within_df if within_df else None
    repeats = round(len(repeat_counts) / sum(1 / r for r in repeat_counts)) \
        if repeat_counts else 0  # the harmonic mean, for cells of unequal size
    agent = None
    if between_df and judge is not None and repeats:
        agent = max(0.0, between_squares / between_df - judge / repeats)
    return VarianceSplit(condition, len(scores), epochs, repeats, judge, agent)


def delta_noise(a: VarianceSplit, b: VarianceSplit, a_scores: CaseScores,
                b_scores: CaseScores, *, asks: int = 1) -> DeltaNoise | None:
    """The judge's share of the variance of B - A over cases, at `asks` asks per answer.

    The per-case difference is observed with every rejudged ask averaged; the
    judge's part at that many asks is taken out and its part at `asks` put
    back, so the share describes the run whose verdicts each rest on `asks`.
    """
    if a.judge_variance is None or b.judge_variance is None or not a.repeats or not b.repeats:
        return None
    common = [case for case in a_scores if case in b_scores]
    diffs = [_case_mean(b_scores[case]) - _case_mean(a_scores[case]) for case in common]
    diffs = [d for d in diffs if math.isfinite(d)]
    if len(diffs) < 2:
        return None
    epochs = max(1, min(a.epochs, b.epochs))
    observed = float(np.var(diffs, ddof=1))
    judge_now = a.judge_variance / (epochs * a.repeats) + b.judge_variance / (epochs * b.repeats)
    judge_then = (a.judge_variance + b.judge_variance) / (epochs * asks)
    total = max(0.0, observed - judge_now) + judge_then
    return DeltaNoise(a.condition, b.condition, len(diffs), total, judge_then, asks)


def _case_mean(by_epoch: Mapping[int, Sequence[float]]) -> float:
    means = [math.fsum(v) / len(v) for v in by_epoch.values() if v]
    return math.fsum(means) / len(means) if means else math.nan
