"""After a run: its conditions compared, the diff with the previous run, every gate judged.

`assay run` and `assay.evaluate` both end here, so a run reads the same
whichever way it was started.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from assay.config.models import GateConfig, RegressionGateConfig

if TYPE_CHECKING:
    from assay.analysis.conditions import ConditionComparisons
    from assay.analysis.run_diff import RunDiff
    from assay.review.gates import GateResult
    from assay.runner.session import RunOutcome


@dataclass
class Review:
    comparisons: ConditionComparisons
    """Every condition against the baseline condition."""
    previous: RunDiff | None
    """This run against the previous completed run of its experiment; None for the first."""
    gates: list[GateResult]
    """The threshold gates the run judged, then the regression gates."""

    @property
    def passed(self) -> bool:
        return all(g.passed for g in self.gates)


def regression_checks(gates: Sequence[GateConfig | RegressionGateConfig], store: Any,
                      experiment: str, *, fail_on_regression: bool = False
                      ) -> list[RegressionGateConfig]:
    """The run's regression gates; a named baseline that does not exist fails before any work."""
    from assay.review.comparing import regression_gates
    from assay.review.gates import fail_on_regression as any_regression

    regressions = regression_gates(gates)
    if fail_on_regression:
        regressions.append(any_regression())
    for gate in regressions:
        if gate.regression.baseline is not None:
            store.resolve_run(gate.regression.baseline, experiment)
    return regressions


def review_run(store: Any, outcome: RunOutcome, regressions: Sequence[RegressionGateConfig], *,
               baseline: str | None = None) -> Review:
    """Compare the finished run's conditions and diff it with the previous run; judge the gates."""
    from assay.review.comparing import check_regression_gates, compare_run_conditions, diff_with_previous

    run, summary = outcome.run, outcome.summary
    comparisons = compare_run_conditions(store, run, conditions=summary.condition_names,
                                         scorers=summary.scorer_names, baseline=baseline)
    previous = diff_with_previous(store, run)
    gates = list(outcome.gates) + check_regression_gates(list(regressions), store, run, previous)
    return Review(comparisons=comparisons, previous=previous, gates=gates)


def print_review(out: Any, outcome: RunOutcome, review: Review) -> None:
    """The run on the terminal: warnings, the summary table, the comparisons, the diff."""
    from assay.reports.comparisons import print_condition_comparisons
    from assay.reports.run_diff import print_run_diff
    from assay.reports.terminal import print_summary

    for warning in outcome.warnings:
        out.print(f"[yellow]warning:[/yellow] {warning}")
    print_summary(out, outcome.run, outcome.summary, review.gates, outcome.usage)
    print_condition_comparisons(out, review.comparisons)
    previous = review.previous
    if previous is None:
        out.print("[dim]first completed run of this experiment: nothing to compare with yet[/dim]")
    else:
        assert previous.run_a is not None
        print_run_diff(out, previous, title=f"vs previous run {previous.run_a.id}")
