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


def epoch_label(epoch: int, epochs: int | None) -> str:
    """How people read a stored epoch: `epoch 2 of 3`, counted from 1 as inspect_ai shows it,
    while the store, the viewer's URLs and `results.json` count from 0.

    Every report, page and message that names an epoch calls this, so no two of them count
    differently. `epochs` is how many the run has: "" when it has one (there is nothing to
    tell apart), `epoch 2` when it is not known.
    """
    if epochs == 1:
        return ""
    return f"epoch {epoch + 1} of {epochs}" if epochs else f"epoch {epoch + 1}"
