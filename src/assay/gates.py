"""Gates: thresholds on a run's summary that decide the exit code."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from assay.analysis.summary import RunSummary
from assay.config.models import GateConfig
from assay.errors import UserError


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


def check_gates(gates: list[GateConfig], summary: RunSummary) -> list[GateResult]:
    """Evaluate every gate on every condition it covers."""
    results: list[GateResult] = []
    for gate in gates:
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
