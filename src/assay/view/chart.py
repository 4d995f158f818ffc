"""An experiment's history as small SVG charts: a line per metric over its runs, with the
band of each run's 95% CI around it, so a move that stays inside the bands reads as noise.

Pure geometry: the template draws the points it is given. Pass rates (in %)
share a 0-100 axis; means get an axis from their lowest to highest bound.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from assay.analysis.history import ExperimentHistory
from assay.reports.history import format_value

WIDTH, HEIGHT, PAD, LEFT = 640, 150, 20, 52
"""The drawing's size, its margin, and the room on the left for the axis labels."""


@dataclass(frozen=True, slots=True)
class Dot:
    x: float
    y: float
    run_id: str
    started_at: str
    value: str
    interval: str
    marked: bool
    """One of the runs the page is about (drawn larger)."""


@dataclass(frozen=True, slots=True)
class Chart:
    metric: str
    line: str
    """SVG polyline points."""
    band: str
    """SVG polygon points of the CI band; empty when no run stored an interval."""
    dots: list[Dot]
    ticks: list[tuple[float, str]]
    """(y, label) for the axis."""
    left: int = LEFT
    right: int = WIDTH - PAD
    width: int = WIDTH
    height: int = HEIGHT


def history_charts(history: ExperimentHistory, *, marked: Collection[str] = (),
                   metrics: Collection[str] | None = None) -> list[Chart]:
    """A chart per metric (all of them, or those in `metrics`) of the runs in `history`."""
    return [_chart(history, name, set(marked)) for name in history.metrics
            if metrics is None or name in metrics]


def _chart(history: ExperimentHistory, metric: str, marked: set[str]) -> Chart:
    points = [(i, p) for i, p in enumerate(history.points) if metric in p.metrics]
    values = [p.metrics[metric] for _, p in points]
    bounds = [b for _, p in points if metric in p.intervals for b in p.intervals[metric]]
    percent = "@" in metric and ".mean@" not in metric
    low, high = (0.0, 100.0) if percent else (min(values + bounds), max(values + bounds))
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    count = max(1, len(history.points) - 1)

    def x(index: int) -> float:
        return round(LEFT + (WIDTH - LEFT - PAD) * (index / count if len(history.points) > 1
                                                    else 0.5), 1)

    def y(value: float) -> float:
        return round(HEIGHT - PAD - (HEIGHT - 2 * PAD) * (value - low) / (high - low), 1)

    dots = []
    for index, point in points:
        ci = point.intervals.get(metric)
        dots.append(Dot(x(index), y(point.metrics[metric]), point.run_id, point.started_at,
                        format_value(metric, point.metrics[metric]),
                        "" if ci is None else f"95% CI {format_value(metric, ci[0])}"
                                              f"..{format_value(metric, ci[1])}",
                        point.run_id in marked))
    upper = [(x(i), y(p.intervals[metric][1])) for i, p in points if metric in p.intervals]
    lower = [(x(i), y(p.intervals[metric][0])) for i, p in points if metric in p.intervals]
    band = " ".join(f"{a},{b}" for a, b in upper + lower[::-1]) if len(upper) > 1 else ""
    ticks = [(y(v), format_value(metric, v)) for v in (low, (low + high) / 2, high)]
    return Chart(metric, " ".join(f"{d.x},{d.y}" for d in dots), band, dots, ticks)
