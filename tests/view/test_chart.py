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


def test_a_mean_reads_on_its_scale_in_its_dots_and_ticks() -> None:
    """Regression: a mean of 0.9997 on 0..1 read `0.9997` on the run's page but `1` on its
    history chart, whose ticks read `0.999 1 1`."""
    mean = HistoryPoint("r0", "2026-01-01", "completed", None, {"graded.mean@b": 0.9997},
                        {"graded.mean@b": (0.999, 1.0)}, "d")
    history = ExperimentHistory("e", "eval", ["graded.mean@b"], [mean],
                                scales={"graded.mean@b": (0.0, 1.0)})
    [chart] = history_charts(history)
    assert chart.dots[0].value == "0.9997" and chart.dots[0].interval == "95% CI 0.999..1.000"
    assert [label for _, label in chart.ticks] == ["0.999", "0.9995", "1.000"]
