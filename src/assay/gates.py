"""Gates: thresholds on a run's summary, and regressions against an earlier run, that decide the exit code."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from assay.analysis.summary import RunSummary
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
            if gate.min_pass_rate is not None:
                rate = stats.pass_rate
                ok = rate is not None and rate >= gate.min_pass_rate
                shown = "n/a" if rate is None else f"{rate:.1%}"
                results.append(GateResult(f"{label} pass rate", ok,
                                          f"{shown} (min {gate.min_pass_rate:.1%})"))
            if gate.min_mean is not None:
                ok = stats.mean is not None and stats.mean >= gate.min_mean
                shown = "n/a" if stats.mean is None else f"{stats.mean:.3g}"
                results.append(GateResult(f"{label} mean", ok, f"{shown} (min {gate.min_mean:g})"))
            if gate.max_error_rate is not None:
                rate = stats.errors / total if total else 0.0
                results.append(GateResult(f"{label} error rate", rate <= gate.max_error_rate,
                                          f"{rate:.1%} (max {gate.max_error_rate:.1%})"))
    return results


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
                                             " not significant"))
        results.append(GateResult(name, not failed,
                                  f"{-drop:+.1f}pp {against} (max drop {spec.max_drop_pp:g}pp"
                                  f"{', significant only' if spec.significant else ''}; "
                                  f"{evidence})"))
    return results
