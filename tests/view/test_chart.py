"""The history charts: a line and CI band per stretch of runs over the same dataset."""

from __future__ import annotations

from assay.analysis.history import ExperimentHistory, HistoryPoint
from assay.view.chart import history_charts


def point(i: int, dataset: str, changed: bool = False) -> HistoryPoint:
    return HistoryPoint(f"r{i}", f"2026-01-0{i + 1}", "completed", None, {"exact@a": 10.0 * i},
                        {"exact@a": (10.0 * i - 5, 10.0 * i + 5)}, dataset, changed)


def test_one_dataset_is_one_line_and_one_band() -> None:
    [chart] = history_charts(ExperimentHistory("e", "eval", ["exact@a"],
                                               [point(i, "d") for i in range(3)]))
    assert len(chart.lines) == 1 and len(chart.lines[0].split()) == 3
    assert len(chart.bands) == 1
    assert chart.changes == []


def test_the_line_and_band_break_where_the_dataset_changed_with_a_mark_between_the_runs() -> None:
    points = [point(0, "d"), point(1, "d"), point(2, "e", changed=True), point(3, "e")]
    [chart] = history_charts(ExperimentHistory("e", "eval", ["exact@a"], points))
    assert [len(line.split()) for line in chart.lines] == [2, 2]
    assert len(chart.bands) == 2
    [mark] = chart.changes
    assert chart.dots[1].x < mark < chart.dots[2].x


def test_a_run_alone_between_two_changes_shows_its_interval_as_a_whisker() -> None:
    points = [point(0, "d"), point(1, "e", changed=True), point(2, "d", changed=True)]
    [chart] = history_charts(ExperimentHistory("e", "eval", ["exact@a"], points))
    assert chart.bands == [] and len(chart.whiskers) == 3
    x, low, high = chart.whiskers[1]
    assert x == chart.dots[1].x and high < chart.dots[1].y < low  # SVG's y grows downwards
