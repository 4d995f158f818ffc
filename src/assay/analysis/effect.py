"""One paired difference with its interval and its test, set at one level so they cannot disagree.

An `Effect` is what one line of a comparison says: B - A for one quantity
(the pass rate in percentage points, or the mean score), the interval of
that same quantity, and the test of "no difference" in that same quantity,
both at the same level. The interval is built by inverting the test (see
`pass_rate_delta` and `mean_delta`), so the verdict is read from the
interval: "significant" exactly when the printed interval leaves out 0.

The level is the alpha of the step at which the comparison was tested: the
plain alpha alone, or its Holm step within a family (see `multiple`). The
evidence (two counts for a pass rate; for a mean, its moments and its
distinct differences with their counts) is kept so the same effect can be
set again at another level.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeAlias

from assay.analysis.interval import Interval
from assay.analysis.significance import PairedTest

Metric: TypeAlias = Literal["pass_rate", "mean"]


class Evidence(Protocol):
    """What a quantity's test and interval are computed from (counts or moments of the cases)."""

    @property
    def n(self) -> int: ...

    @property
    def estimate(self) -> float:
        """B - A as a fraction or in score units."""
        ...

    def test(self) -> PairedTest:
        """The test of no difference; its p-value does not depend on the level."""
        ...

    def interval(self, level: float, test: PairedTest) -> Interval:
        """The interval at confidence 1 - level that leaves out 0 exactly when test.p < level."""
        ...

    def to_dict(self) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class Effect:
    """B - A for one quantity: estimate, interval and test at one level (`level` = its alpha)."""

    metric: Metric
    estimate: float
    """In percentage points for a pass rate, in score units for a mean."""
    interval: Interval
    test: PairedTest
    level: float
    evidence: Evidence

    @property
    def unit(self) -> str:
        return "pp" if self.metric == "pass_rate" else ""

    @property
    def significant(self) -> bool:
        """Read from the interval, which leaves out 0 exactly when the test rejects at `level`."""
        return not self.interval.contains(0.0)

    def at(self, level: float) -> Effect:
        """The same effect with its interval set at another level (a Holm step)."""
        return measure(self.metric, self.evidence, level, self.test)

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "estimate": self.estimate, "unit": self.unit,
                "interval": self.interval.to_dict(), "test": self.test.to_dict(),
                "level": self.level, "significant": self.significant,
                "evidence": self.evidence.to_dict()}


def measure(metric: Metric, evidence: Evidence, level: float,
            test: PairedTest | None = None) -> Effect:
    """Test and interval of one quantity at one level (the test is reused when given)."""
    test = test or evidence.test()
    interval = evidence.interval(level, test)
    factor = 100.0 if metric == "pass_rate" else 1.0
    return Effect(metric, evidence.estimate * factor, interval.scaled(factor), test, level,
                  evidence)
