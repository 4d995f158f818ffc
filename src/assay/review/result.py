"""What a review hands back: the run as stored and everything concluded after it.

Plain typed values, so renderers take them in without loading the store or
the analysis code that produced them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from assay.analysis.conditions import ConditionComparisons
    from assay.analysis.run_diff import RunDiff
    from assay.analysis.summary import RunSummary
    from assay.records import ExportRecord, RunRecord
    from assay.reports.costs import RunCosts
    from assay.review.judges import JudgeReview


@dataclass(frozen=True, slots=True)
class GateResult:
    """One gate on one condition (or one metric, for a regression gate): passed or not, and why."""

    gate: str
    passed: bool
    detail: str
    rule: str = ""
    """The bound the gate applies ("min 80.0%", "max drop 2pp"): two gates on one metric
    differ by it."""

    @property
    def name(self) -> str:
        """The gate and its rule: what tells it apart from another gate on the same metric."""
        return f"{self.gate} ({self.rule})" if self.rule else self.gate

    def to_dict(self) -> dict[str, Any]:
        return {"gate": self.gate, "passed": self.passed, "detail": self.detail,
                "rule": self.rule}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GateResult:
        """A result as `to_dict` stored it (`rule` is absent from older records)."""
        return cls(str(data["gate"]), bool(data["passed"]), str(data["detail"]),
                   str(data.get("rule") or ""))


@dataclass(frozen=True, slots=True)
class GateBar:
    """One minimum a threshold gate holds a scorer's pass rate or mean to."""

    scorer: str
    condition: str | None
    """The condition it holds; every condition when None."""
    metric: Literal["pass_rate", "mean"]
    minimum: float


@dataclass(frozen=True, slots=True)
class GateBars:
    """The minimums every threshold gate a run was judged by holds its scores to, those of
    its config and those given beside it (`--fail-under`, the pytest plugin's thresholds):
    the score table prints an interval beside them with the digits that keep each bound on
    its side (`[79.6%–100.0%]` beside a gate at min 80%, not `[80%–100%]`)."""

    bars: tuple[GateBar, ...] = ()

    def of(self, scorer: str, condition: str) -> tuple[list[float], list[float]]:
        """The minimum pass rates and minimum means `scorer` is held to under `condition`."""
        held = [bar for bar in self.bars
                if bar.scorer == scorer and bar.condition in (None, condition)]
        return ([bar.minimum for bar in held if bar.metric == "pass_rate"],
                [bar.minimum for bar in held if bar.metric == "mean"])

    def joined(self, other: GateBars) -> GateBars:
        """Both sets of minimums, each once."""
        return GateBars(tuple(dict.fromkeys([*self.bars, *other.bars])))

    def to_list(self) -> list[dict[str, Any]]:
        return [{"scorer": b.scorer, "condition": b.condition, "metric": b.metric,
                 "minimum": b.minimum} for b in self.bars]

    @classmethod
    def from_list(cls, data: Any) -> GateBars | None:
        """Bars as `to_list` stored them; None when there are none to read (a record from
        before they were kept) or they do not read as bars."""
        if not isinstance(data, list):
            return None
        bars = []
        for item in data:
            if not (isinstance(item, dict) and isinstance(item.get("scorer"), str)
                    and item.get("metric") in ("pass_rate", "mean")
                    and isinstance(item.get("minimum"), int | float)
                    and isinstance(item.get("condition"), str | None)):
                return None
            bars.append(GateBar(item["scorer"], item["condition"], item["metric"],
                                float(item["minimum"])))
        return cls(tuple(bars))


@dataclass(frozen=True, slots=True)
class ReportFiles:
    """Where a review wrote the run's files."""

    directory: Path
    results: Path
    markdown: Path
    html: Path
    junit: Path | None = None


@dataclass
class Review:
    """A finished run, reviewed: its summary, comparisons, diff with the previous run, gates."""

    run: RunRecord
    summary: RunSummary
    """Per scorer and condition: mean, pass rate, intervals, errors."""
    comparisons: ConditionComparisons
    """Every condition against the baseline condition, paired per case."""
    previous: RunDiff | None
    """This run against the previous completed run of its experiment; None for the first."""
    gates: list[GateResult]
    """The threshold gates, then the regression gates."""
    warnings: list[str] = field(default_factory=list)
    """What the run found worth telling that did not stop it."""
    usage: dict[str, Any] = field(default_factory=dict)
    """LLM calls, tokens and cost of the run, when it used providers."""
    files: ReportFiles | None = None
    """The report files written for the run; None when none were asked for."""
    exports: list[ExportRecord] = field(default_factory=list)
    """Where the run was written in other formats (`assay export`)."""
    judges: JudgeReview = field(default_factory=lambda: _no_judges())
    """The run's judges: calibrated or not, rubric metrics, unstable verdicts, pairwise."""
    bars: GateBars = field(default_factory=GateBars)
    """The minimums its threshold gates hold its scores to, for the score table."""
    status_said: str | None = None
    """A stored run that did not complete: its status as a sentence says it
    (`stalled_runs.status_said`: a run killed with kill -9 reads `marked running, but its
    process is gone...`), read once for its gates and its JUnit ending; None otherwise."""

    @property
    def passed(self) -> bool:
        """True when every gate passed (and trivially when there are none)."""
        return all(g.passed for g in self.gates)

    @cached_property
    def costs(self) -> RunCosts:
        """The run's costs as text, built once for every place that shows them (the
        terminal, report.md, report.html, the viewer): the digits they share come from a
        pass over every cost of the run."""
        from assay.reports.costs import RunCosts

        return RunCosts(self.summary, self.usage,
                        [s.model for s in self.judges.statuses if s.model])

    def to_dict(self) -> dict[str, Any]:
        return {
            "run": self.run.header(),
            "summary": self.summary.to_dict(),
            "gates": [g.to_dict() for g in self.gates],
            "passed": self.passed,
            "comparisons": self.comparisons.to_dict(),
            "previous_run": None if self.previous is None else self.previous.to_dict(),
            "warnings": list(self.warnings),
            "usage": dict(self.usage),
            "judges": self.judges.to_dict(),
        }


def _no_judges() -> JudgeReview:
    from assay.review.judges import JudgeReview

    return JudgeReview()
