"""What a run's review concluded once, kept on the run so every later rendering shows it.

Some of a review cannot be had again from the store: the gates given on the
command line (`--fail-under`, `--fail-on-regression`) or by the pytest
plugin's thresholds, regression gates (they depend on which runs existed
when the run ended), the run's warnings, its LLM usage, and the baseline
condition it was compared against (`--baseline`). `finish_run` stores them
on the run (`RunRecord.review`); `assay report`, `--rewrite`, the viewer and
a resume that only writes the files again read them back, so a run that
failed a gate never later reads as passed.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from assay.review.result import GateBars, GateResult

if TYPE_CHECKING:
    from assay.records import RunRecord


@dataclass(frozen=True, slots=True)
class RecordedReview:
    """The gates, warnings, usage and baseline of a run, as its review concluded them."""

    gates: list[GateResult]
    warnings: list[str] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)
    baseline: str | None = None
    """The condition the others were compared with; None for the first condition."""
    bars: GateBars | None = None
    """The minimums of the threshold gates it judged, `--fail-under`'s too, whose value the
    stored config does not hold (the score table prints its intervals beside them); None
    in a record from before they were kept."""

    def to_dict(self) -> dict[str, Any]:
        data = {"gates": [g.to_dict() for g in self.gates], "warnings": list(self.warnings),
                "usage": dict(self.usage), "baseline": self.baseline}
        return data if self.bars is None else {**data, "bars": self.bars.to_list()}

    def adding(self, gates: list[GateResult], *, baseline: str | None,
               bars: GateBars) -> RecordedReview:
        """This review with `gates` judged since (those it already has are kept as they
        were), their minimums `bars`, and the baseline compared with now."""
        known = {g.name for g in self.gates}
        return replace(self, gates=[*self.gates, *(g for g in gates if g.name not in known)],
                       baseline=baseline,
                       bars=bars if self.bars is None else self.bars.joined(bars))

    @classmethod
    def of(cls, run: RunRecord) -> RecordedReview | None:
        """The run's recorded review; None for a run not reviewed yet, or reviewed by a
        version that did not record it."""
        data = run.review
        if not isinstance(data, dict):
            return None
        baseline = data.get("baseline")
        return cls(gates=[GateResult.from_dict(g) for g in data.get("gates") or []],
                   warnings=[str(w) for w in data.get("warnings") or []],
                   usage=dict(data.get("usage") or {}),
                   baseline=baseline if isinstance(baseline, str) else None,
                   bars=GateBars.from_list(data.get("bars")))
