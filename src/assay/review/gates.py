"""Gates: thresholds on a run's summary, and regressions against an earlier run, that decide the exit code."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from assay.analysis.summary import RunSummary, ScoreStats
from assay.config.models import GateConfig, RegressionGateConfig, RegressionSpec
from assay.errors import UserError

if TYPE_CHECKING:
    from assay.analysis.run_diff import RunDiff


@dataclass
class GateResult:
    gate: str
    passed: bool
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"gate": self.gate, "passed": self.passed, "detail": self.detail}


_FAIL_UNDER = re.compile(r"^(?P<scorer>[^=@.]+)(?:\.(?P<metric>mean|pass_rate))?"
                         r"(?:@(?P<condition>[^=]+))?=(?P<value>[-+0-9.eE]+)$")


def parse_fail_under(spec: str) -> GateConfig:
    """`SCORER[.mean|.pass_rate][@CONDITION]=VALUE` -> a gate (pass rate by default)."""
    match = _FAIL_UNDER.match(spec.strip())
    if not match:
        raise UserError(f"--fail-under '{spec}': expected SCORER[.mean|.pass_rate][@CONDITION]="
                        "VALUE, e.g. contains=0.8 or judge_score.mean@pack=7")
    value = float(match["value"])
    if match["metric"] == "mean":
        return GateConfig(scorer=match["scorer"], condition=match["condition"], min_mean=value)
    if not 0 <= value <= 1:
        raise UserError(f"--fail-under '{spec}': a pass rate is between 0 and 1")
    return GateConfig(scorer=match["scorer"], condition=match["condition"], min_pass_rate=value)


def check_gates(gates: list[GateConfig | RegressionGateConfig],
                summary: RunSummary) -> list[GateResult]:
    """Evaluate every threshold gate on every condition it covers.

    Regression gates need an earlier run and are judged by `check_regression`.
    """
    results: list[GateResult] = []
    for gate in gates:
        if isinstance(gate, RegressionGateConfig):
            continue
        if gate.scorer not in summary.scorer_names:
            known = ", ".join(summary.scorer_names)
            raise UserError(f"gate on unknown scorer '{gate.scorer}' (scorers: {known})")
        conditions = [gate.condition] if gate.condition else summary.condition_names
        for condition in conditions:
            stats = summary.get(gate.scorer, condition)
            label = f"{gate.scorer}@{condition}"
            if stats is None:
                results.append(GateResult(label, False, "no results for this condition"))
                continue
            total = stats.n + stats.errors
            if total == 0:
                results.append(GateResult(label, False, "no trials ran under this condition"))
                continue
            if gate.min_pass_rate is not None:
                results.append(_pass_rate_gate(label, stats, gate.min_pass_rate))
            if gate.min_mean is not None:
                results.append(_mean_gate(label, stats, gate.min_mean, gate.max_error_rate))
            if gate.max_error_rate is not None:
                rate = stats.errors / total
                results.append(GateResult(f"{label} error rate", rate <= gate.max_error_rate,
                                          f"{rate:.1%} (max {gate.max_error_rate:.1%})"))
    return results


def _pass_rate_gate(label: str, stats: ScoreStats, minimum: float) -> GateResult:
    """An errored trial did not pass: it counts against the rate, so errors cannot hide.
    With several epochs the rate is per case first, like every other pass rate."""
    if stats.judged == 0:
        reason = (f"no trial got a verdict ({stats.errors} errored)" if stats.errors
                  else "this scorer gives no pass/fail verdicts")
        return GateResult(f"{label} pass rate", False, reason)
    rate = stats.pass_rate_with_errors or 0.0
    detail = f"{rate:.1%} passed over {stats.n} cases (min {minimum:.1%})"
    if stats.errors:
        detail += f"; {stats.errors} errored trials count as not passed"
    return GateResult(f"{label} pass rate", rate >= minimum, detail)


def _mean_gate(label: str, stats: ScoreStats, minimum: float,
               max_error_rate: float | None) -> GateResult:
    """The mean is over scored trials; errors fail the gate unless it tolerates them."""
    if stats.mean is None:
        return GateResult(f"{label} mean", False, f"no trial was scored ({stats.errors} errors)")
    ok = stats.mean >= minimum
    detail = f"{stats.mean:.3g} over {stats.n} scored trials (min {minimum:g})"
    if stats.errors and max_error_rate is None:
        ok = False
        detail += (f"; {stats.errors} trials errored and a mean over the rest would hide "
                   "them (set max_error_rate to tolerate errors)")
    return GateResult(f"{label} mean", ok, detail)


def fail_on_regression() -> RegressionGateConfig:
    """The gate `--fail-on-regression` adds: any significant drop of any metric fails."""
    return RegressionGateConfig(regression=RegressionSpec())


def check_regression(spec: RegressionSpec, diff: RunDiff | None) -> list[GateResult]:
    """Judge a regression gate on a diff of the earlier run (A) against this run (B).

    No earlier run means nothing to regress from: the gate passes and says so.
    Runs that are not comparable fail the gate, naming why, rather than pass unseen.
    A metric regresses when it dropped by more than `max_drop_pp` and, with
    `significant`, the paired test (Holm-adjusted over the gate's metrics) agrees.
    """
    from assay.analysis.multiple import adjust_comparisons
    from assay.analysis.run_diff import condition_of

    label = "regression" + (f" {spec.scorer}" if spec.scorer else "") + (
        f"@{spec.condition}" if spec.condition else "")
    if diff is None:
        return [GateResult(label, True, "no earlier completed run to compare with")]
    assert diff.run_a is not None
    against = f"vs run {diff.run_a.id}"
    if not diff.comparable:
        return [GateResult(label, False, f"{against} not comparable: {'; '.join(diff.problems)}")]
    chosen = [e.comparison for e in diff.entries
              if (spec.scorer is None or e.comparison.scorer == spec.scorer)
              and (spec.condition is None or condition_of(e) == spec.condition)]
    if not chosen:
        return [GateResult(label, False, f"{against}: no metric to compare "
                                         f"({'; '.join(diff.skipped) or 'no common results'})")]
    results = []
    for c in adjust_comparisons(chosen):
        drop = -(c.delta_pp if c.delta_pp is not None else c.reading_delta_pp or 0.0)
        metric = "pass rate" if c.delta_pp is not None else "mean"
        name = f"regression {c.scorer}@{c.label_b.rpartition('@')[2]} {metric}"
        failed = drop > spec.max_drop_pp and (c.significant or not spec.significant)
        evidence = (f"p={c.p_value:.2g}" + (" significant" if c.significant else
                                             " within noise"))
        results.append(GateResult(name, not failed,
                                  f"{-drop:+.1f}pp {against} (max drop {spec.max_drop_pp:g}pp"
                                  f"{', significant only' if spec.significant else ''}; "
                                  f"{evidence})"))
    return results
