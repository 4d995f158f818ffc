"""Intervals drawn, not only printed: a value with its 95% CI as fractions of a track
(`Meter`), and paired deltas on one axis around zero (`DeltaTable`), each delta in
percent of its scale so pass rates and means line up. What `report.html` draws its bars
and dots from; the page's templates do the drawing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from assay.reports.comparisons import ComparisonText

if TYPE_CHECKING:
    from assay.analysis.conditions import ComparisonEntry
    from assay.analysis.interval import Interval
    from assay.analysis.paired import PairedComparison
    from assay.analysis.summary import ScoreStats


@dataclass
class Meter:
    """A value and its CI as fractions of the drawn track (0..1)."""

    value: float
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class DeltaRow(ComparisonText):
    """One paired comparison, with its position on the shared axis (fractions, 0.5 is zero)."""

    entry: ComparisonEntry
    label: str
    point: float
    low: float
    high: float


@dataclass
class DeltaTable:
    """The rows of one comparison table and the axis they share."""

    rows: list[DeltaRow]
    axis: float
    """The axis runs from -axis to +axis percent of scale."""


def mean_meter(stats: ScoreStats) -> Meter | None:
    """The mean on its scorer's scale, with its CI when it has one; None without a mean."""
    if stats.mean is None:
        return None
    ci = stats.mean_ci
    return Meter(on_scale(stats.mean, stats.scale),
                 on_scale(ci.low, stats.scale) if ci else None,
                 on_scale(ci.high, stats.scale) if ci else None)


def rate_meter(rate: float | None, ci: Interval | None) -> Meter | None:
    """A pass rate with its CI when it has one; None without verdicts."""
    if rate is None:
        return None
    return Meter(clamp(rate), clamp(ci.low) if ci else None, clamp(ci.high) if ci else None)


def delta_table(entries: Sequence[ComparisonEntry], label: Any,
                scales: dict[str, tuple[float, float]]) -> DeltaTable:
    """Rows on one axis: every delta in percent of its scale, so pass rates and means line up."""
    spans = [share_of_scale(e.comparison, scales) for e in entries]
    reach = max((max(abs(lo), abs(hi), abs(d)) for d, lo, hi in spans), default=0.0)
    axis = nice_axis(reach)
    rows = [DeltaRow.of(entry.comparison, entry=entry, label=label(entry),
                        point=axis_at(delta, axis), low=axis_at(low, axis),
                        high=axis_at(high, axis))
            for entry, (delta, low, high) in zip(entries, spans)]
    return DeltaTable(rows, axis)


def share_of_scale(c: PairedComparison, scales: dict[str, tuple[float, float]]
                   ) -> tuple[float, float, float]:
    """(delta, CI low, CI high) of the headline metric in percent of its scale."""
    if c.kind == "pass_fail" and c.delta_pp is not None and c.ci_pp is not None:
        return c.delta_pp, c.ci_pp.low, c.ci_pp.high
    low, high = scales.get(c.scorer or "", (0.0, 1.0))
    factor = 100 / (high - low) if high > low else 100.0
    return c.delta_mean * factor, c.ci_mean.low * factor, c.ci_mean.high * factor


def nice_axis(reach: float) -> float:
    """The half-width of the shared axis: a round number of percent that `reach` fits in."""
    for step in (5, 10, 20, 25, 50, 100):
        if reach <= step:
            return float(step)
    return float(math.ceil(reach / 100) * 100)


def axis_at(value: float, axis: float) -> float:
    """Where `value` (percent of scale) stands on an axis from -axis to +axis (0..1)."""
    return clamp(0.5 + value / (2 * axis))


def on_scale(x: float, scale: tuple[float, float]) -> float:
    """Where `x` stands on `scale` as a fraction of its track (0..1); a scale without width
    reads as one unit wide."""
    low, high = scale
    return clamp((x - low) / ((high - low) or 1.0))


def clamp(x: float) -> float:
    """`x` kept on the track (0..1); what is not a number stands at its start."""
    return 0.0 if not math.isfinite(x) else min(1.0, max(0.0, x))
