"""The Trial: one (case, condition, epoch), the unit that is scheduled, stored and resumed."""

from __future__ import annotations

from dataclasses import dataclass, field

from assay.case import Case
from assay.output import Output
from assay.score import Score

TrialKey = tuple[str, str, int]
"""(case id, condition name, epoch): unique within a run."""


@dataclass(slots=True)
class TrialResult:
    """A finished trial: what the target produced and how each scorer judged it."""

    case: Case
    condition: str
    epoch: int
    output: Output
    scores: dict[str, Score] = field(default_factory=dict)

    @property
    def key(self) -> TrialKey:
        return (self.case.id, self.condition, self.epoch)
