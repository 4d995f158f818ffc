"""A pairwise judge against people's preferences: accuracy per order, when consistent, overall.

People said which of two answers is better (or that they tie). The judge
was asked in both orders. Its accuracy is read four ways, because a
position bias hides in the average: per order (A shown first, B shown
first), over the items where both orders agree (the verdicts a careful
user would trust), and for the reconciled verdict a run reports (an
inconsistent pair counts as a tie). Beside them, the judge's positional
consistency, first-position rate and tie rate (`pairwise_verdicts`), and
Cohen's kappa of the reconciled verdict over a/b/tie.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assay.analysis.interval import Interval, wilson
from assay.analysis.kappa import Kappa, cohen_kappa
from assay.analysis.pairwise_verdicts import (
    CHOICES,
    Choice,
    OrderedVerdicts,
    PositionStats,
    position_stats,
)


@dataclass(frozen=True, slots=True)
class Accuracy:
    """Correct verdicts out of n, with a Wilson interval."""

    correct: int
    n: int
    interval: Interval | None

    @property
    def rate(self) -> float | None:
        return self.correct / self.n if self.n else None

    def to_dict(self) -> dict[str, Any]:
        return {"correct": self.correct, "n": self.n, "rate": self.rate,
                "interval": self.interval.to_dict() if self.interval else None}


def accuracy(pairs: Sequence[tuple[Choice, Choice | None]]) -> Accuracy:
    judged = [(human, judge) for human, judge in pairs if judge is not None]
    correct = sum(human == judge for human, judge in judged)
    return Accuracy(correct, len(judged), wilson(correct, len(judged)) if judged else None)


@dataclass(frozen=True)
class PairwiseAgreement:
    """The pairwise judge against people over `n` items with a preference and both verdicts."""

    n: int
    a_first: Accuracy
    """Accuracy of the verdicts given with A shown first."""
    b_first: Accuracy
    consistent: Accuracy
    """Accuracy over the items whose two verdicts agree."""
    reconciled: Accuracy
    """Accuracy of the verdict a run reports (inconsistent pairs as ties)."""
    kappa: Kappa
    positions: PositionStats
    human_ties: int
    disagreements: tuple[str, ...]

    @property
    def agreement(self) -> float:
        return self.reconciled.rate or 0.0

    @property
    def agreement_ci(self) -> Interval | None:
        return self.reconciled.interval

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "preference", "n": self.n, "agreement": self.agreement,
                "agreement_ci": self.agreement_ci.to_dict() if self.agreement_ci else None,
                "a_first": self.a_first.to_dict(), "b_first": self.b_first.to_dict(),
                "consistent": self.consistent.to_dict(),
                "reconciled": self.reconciled.to_dict(), "kappa": self.kappa.to_dict(),
                "positions": self.positions.to_dict(), "human_ties": self.human_ties,
                "disagreements": list(self.disagreements)}


def pairwise_agreement(human: Mapping[str, Choice],
                       verdicts: Sequence[OrderedVerdicts]) -> PairwiseAgreement:
    """The judge's verdicts (both orders) against people's preference, joined by item id."""
    items = [v for v in verdicts if v.id in human and v.winner is not None]
    if not items:
        raise ValueError("no item has both a human preference and the judge's verdicts "
                         "in both orders")
    truth = [human[v.id] for v in items]
    return PairwiseAgreement(
        n=len(items),
        a_first=accuracy([(t, v.a_first) for t, v in zip(truth, items)]),
        b_first=accuracy([(t, v.b_first) for t, v in zip(truth, items)]),
        consistent=accuracy([(t, v.winner) for t, v in zip(truth, items) if v.consistent]),
        reconciled=accuracy([(t, v.winner) for t, v in zip(truth, items)]),
        kappa=cohen_kappa([(t, v.winner) for t, v in zip(truth, items)], list(CHOICES)),
        positions=position_stats(items),
        human_ties=sum(t == "tie" for t in truth),
        disagreements=tuple(v.id for t, v in zip(truth, items) if v.winner != t))
