"""An experiment's history as small SVG charts: a line per metric over its runs, with the
band of each run's 95% CI around it, so a move that stays inside the bands reads as noise.
Where the dataset changed between two runs the line breaks at a dashed mark: the runs on
either side answered different questions, so no line joins them.

Pure geometry: the template draws the points it is given. Pass rates (in %)
share a 0-100 axis; means get an axis from their lowest to highest bound.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from assay.analysis.history import ExperimentHistory, HistoryPoint
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
    lines: list[str]
    """SVG polyline points, one line per stretch of runs over the same dataset."""
    bands: list[str]
    """SVG polygon points of the CI band, one per stretch with two or more intervals."""
    dots: list[Dot]
    ticks: list[tuple[float, str]]
    """(y, label) for the axis."""
    changes: list[float]
    """x of each dashed mark where the dataset changed."""
    whiskers: list[tuple[float, float, float]]
    """(x, y low, y high): the CI of a run alone in its stretch, which has no band."""
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

    dots: list[Dot] = []
    lines: list[str] = []
    bands: list[str] = []
    whiskers: list[tuple[float, float, float]] = []
    scale = history.scales.get(metric)
    for stretch in _same_dataset(history, points):
        for index, point in stretch:
            ci = point.intervals.get(metric)
            dots.append(Dot(x(index), y(point.metrics[metric]), point.run_id, point.started_at,
                            format_value(metric, point.metrics[metric], scale),
                            "" if ci is None else f"95% CI {format_value(metric, ci[0], scale)}"
                                                  f"..{format_value(metric, ci[1], scale)}",
                            point.run_id in marked))
        lines.append(" ".join(f"{d.x},{d.y}" for d in dots[-len(stretch):]))
        upper = [(x(i), y(p.intervals[metric][1])) for i, p in stretch if metric in p.intervals]
        lower = [(x(i), y(p.intervals[metric][0])) for i, p in stretch if metric in p.intervals]
        if len(upper) > 1:
            bands.append(" ".join(f"{a},{b}" for a, b in upper + lower[::-1]))
        elif upper:  # a band needs two runs: one run's interval is a whisker
            whiskers.append((upper[0][0], lower[0][1], upper[0][1]))
    changes = [round((x(i - 1) + x(i)) / 2, 1)
               for i, p in enumerate(history.points) if p.dataset_changed and i > 0]
    ticks = [(y(v), format_value(metric, v, scale)) for v in (low, (low + high) / 2, high)]
    return Chart(metric, lines, bands, dots, ticks, changes, whiskers)


def _same_dataset(history: ExperimentHistory, points: list[tuple[int, HistoryPoint]]
                  ) -> list[list[tuple[int, HistoryPoint]]]:
    """`points` (index, point) cut into stretches where no run in between changed the dataset."""
    stretches: list[list[tuple[int, HistoryPoint]]] = []
    for index, point in points:
        if not stretches or history.dataset_changed_between(stretches[-1][-1][0], index):
            stretches.append([])
        stretches[-1].append((index, point))
    return stretches
