"""A judge asked k times about the same answer: how often it changes its mind.

Judging the same stored output again (`assay rejudge`) separates the
judge's noise from the agent's. Per scorer:

- the flip rate: the share of answers whose k verdicts do not all agree
  (pass on one ask, fail on another), with a Wilson interval; these are
  the unstable cases;
- the pair disagreement: the chance that two asks about one answer
  disagree on pass/fail (what a single re-ask would show);
- the score SD: the pooled standard deviation of the score across asks
  of the same answer (sqrt of the mean within-answer variance);
- an agreement coefficient: Krippendorff's alpha with the k asks as k
  raters (interval level for scores, nominal for verdicts). 1 is a judge
  that never changes its mind; 0 is one whose verdicts are noise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from assay.analysis.interval import Interval, wilson
from assay.analysis.krippendorff import Alpha, krippendorff_alpha


@dataclass(frozen=True, slots=True)
class Repeats:
    """The k judgements of one answer (None for an ask that failed)."""

    id: str
    """How reports name it: `case · condition` (and the epoch when there are several)."""
    values: tuple[float | None, ...]
    passed: tuple[bool | None, ...]

    @property
    def usable_values(self) -> list[float]:
        return [v for v in self.values if v is not None]

    @property
    def verdicts(self) -> list[bool]:
        return [p for p in self.passed if p is not None]

    @property
    def unstable(self) -> bool:
        return len(set(self.verdicts)) > 1


@dataclass(frozen=True)
class JudgeConsistency:
    """How one judge agreed with itself over `items` answers asked `repeats` times each."""

    scorer: str
    items: int
    """Answers with at least two usable judgements."""
    repeats: int
    flips: int
    """Answers whose verdicts were not all the same (unstable)."""
    flip_rate: float | None
    flip_ci: Interval | None
    pair_disagreement: float | None
    score_sd: float | None
    score_alpha: Alpha | None
    verdict_alpha: Alpha | None
    unstable: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"scorer": self.scorer, "items": self.items, "repeats": self.repeats,
                "flips": self.flips, "flip_rate": self.flip_rate,
                "flip_ci": self.flip_ci.to_dict() if self.flip_ci else None,
                "pair_disagreement": self.pair_disagreement, "score_sd": self.score_sd,
                "score_alpha": self.score_alpha.to_dict() if self.score_alpha else None,
                "verdict_alpha": self.verdict_alpha.to_dict() if self.verdict_alpha else None,
                "unstable": list(self.unstable)}


def judge_consistency(scorer: str, answers: Sequence[Repeats]) -> JudgeConsistency:
    """Self-consistency of a judge over answers each judged several times."""
    judged = [a for a in answers if len(a.verdicts) >= 2 or len(a.usable_values) >= 2]
    with_verdicts = [a for a in judged if len(a.verdicts) >= 2]
    flips = [a.id for a in with_verdicts if a.unstable]
    repeats = max((len(a.values) for a in answers), default=0)
    has_scores = any(len(set(a.usable_values)) > 0 for a in judged) and any(
        len(a.usable_values) >= 2 for a in judged)
    return JudgeConsistency(
        scorer=scorer, items=len(judged), repeats=repeats, flips=len(flips),
        flip_rate=len(flips) / len(with_verdicts) if with_verdicts else None,
        flip_ci=wilson(len(flips), len(with_verdicts)) if with_verdicts else None,
        pair_disagreement=_pair_disagreement(with_verdicts),
        score_sd=_pooled_sd(judged) if has_scores else None,
        score_alpha=krippendorff_alpha([list(a.values) for a in judged], level="interval")
        if has_scores else None,
        verdict_alpha=krippendorff_alpha([list(a.passed) for a in with_verdicts],
                                         level="nominal", categories=[False, True])
        if with_verdicts else None,
        unstable=tuple(flips))


def _pair_disagreement(answers: Sequence[Repeats]) -> float | None:
    """Disagreeing pairs of asks over all pairs of asks of the same answer."""
    pairs = differing = 0
    for answer in answers:
        verdicts = answer.verdicts
        m, passes = len(verdicts), sum(verdicts)
        pairs += m * (m - 1) // 2
        differing += passes * (m - passes)
    return differing / pairs if pairs else None


def _pooled_sd(answers: Sequence[Repeats]) -> float | None:
    """sqrt(sum of squared deviations from each answer's mean / sum of (k_i - 1))."""
    squares = degrees = 0.0
    for answer in answers:
        values = answer.usable_values
        if len(values) < 2:
            continue
        mean = math.fsum(values) / len(values)
        squares += math.fsum((v - mean) ** 2 for v in values)
        degrees += len(values) - 1
    return math.sqrt(squares / degrees) if degrees else None
