"""`assay history` on a terminal: a row per run, a sparkline per metric, dataset changes marked."""

from __future__ import annotations

from types import SimpleNamespace

from rich.console import Console

from assay.analysis.history import ExperimentHistory, HistoryPoint, build_history
from assay.reports.history import arrow, print_history, sparkline


def history(*datasets: str, values: tuple[float, ...] = (20.0, 67.0, 50.0)) -> ExperimentHistory:
    points = [HistoryPoint(f"r{i}", f"2026-01-0{i + 1}", "completed", None,
                           {"exact@a": values[i]}, dataset_hash=dataset,
                           dataset_changed=i > 0 and dataset != datasets[i - 1])
              for i, dataset in enumerate(datasets)]
    return ExperimentHistory("exp", "eval", ["exact@a"], points)


def printed(history: ExperimentHistory) -> str:
    console = Console(width=140, record=True, color_system=None)
    print_history(console, history)
    return console.export_text()


def test_a_history_over_one_dataset_shows_no_dataset_column_and_an_arrow() -> None:
    text = printed(history("d1" * 32, "d1" * 32))
    assert "dataset" not in text
    assert "↑ exact@a" in text
    assert "¦" not in text


def test_a_dataset_change_is_shown_in_its_row_in_the_sparkline_and_instead_of_an_arrow() -> None:
    text = printed(history("a" * 64, "b" * 64))
    assert "dataset" in text
    assert "¦ bbbbbbbbbbbb" in text  # the row that changed, by the sha256's start
    assert "≠ exact@a" in text and "↑" not in text
    assert "▁¦█" in text
    assert "no trend is read across it" in text


def test_a_series_that_never_moved_is_drawn_at_half_height_not_as_the_lowest_bar() -> None:
    """Regression: a pass rate of 100% in every run was drawn '▁▁▁', which reads as low."""
    assert sparkline([100.0, 100.0, None, 100.0]) == "▄▄ ▄"
    assert sparkline([0.0]) == "▄"
    assert sparkline([0.0, 100.0]) == "▁█"


def test_a_sparkline_breaks_before_the_runs_it_is_told() -> None:
    assert sparkline([1.0, 2.0, None, 3.0], breaks={1}) == "▁¦▅ █"


def test_the_columns_of_one_scorers_conditions_can_be_told_apart() -> None:
    """Regression: at 200 columns, judge_score@training, @pack and @terse were each cut to
    'judge_score@…'. A metric's header now breaks before its condition."""
    metrics = [f"judge_score{part}@{c}" for part in (".mean", "") for c in
               ("training", "pack", "terse")] + ["verdict@training", "verdict@pack"]
    points = [HistoryPoint(f"20261123-12000{i}-d164d2", f"2026-11-23T12:0{i}", "completed",
                           None, {m: 50.0 + i for m in metrics}) for i in range(2)]
    console = Console(width=200, record=True, color_system=None)
    print_history(console, ExperimentHistory("exp", "eval", metrics, points))
    header = console.export_text().split("─", 1)[0]
    assert "…" not in header
    for condition in ("@training", "@pack", "@terse"):
        assert header.count(condition) == 3 - (condition == "@terse")


def test_at_40_columns_each_run_is_a_line_with_its_whole_id() -> None:
    """Regression: a narrow terminal cut the run ids ('20261123-19095…') and statuses
    ('com…'), the handles people copy into `assay compare`."""
    runs = ExperimentHistory("exp", "eval", ["exact@a"], [
        HistoryPoint("20260101-120000-abcdef", "2026-01-01T12:00", "completed", None,
                     {"exact@a": 50.0})])
    console = Console(width=40, record=True, color_system=None, soft_wrap=True)
    print_history(console, runs)
    assert ("20260101-120000-abcdef: started (UTC) 2026-01-01 12:00, status completed, exact@a 50.0%"
            in console.export_text())


def moved(kind: str, metric: str, intervals: list[tuple[float, float] | None]
          ) -> ExperimentHistory:
    values = (40.0, 60.0)
    points = [HistoryPoint(f"r{i}", f"2026-01-0{i + 1}", "completed", None, {metric: value},
                           {metric: interval} if interval else {})
              for i, (value, interval) in enumerate(zip(values, intervals))]
    return ExperimentHistory("exp", kind, [metric], points)


def test_a_pass_rate_that_rose_beyond_both_runs_intervals_gets_a_green_arrow() -> None:
    assert arrow(moved("eval", "exact@a", [(30.0, 50.0), (51.0, 70.0)]), "exact@a") == \
        "[green]↑[/green]"


def test_a_rise_within_the_runs_intervals_is_an_arrow_without_a_colour() -> None:
    """40% -> 60% over 20 cases is within noise: a green arrow called it better."""
    assert arrow(moved("eval", "exact@a", [(22.0, 61.0), (39.0, 78.0)]), "exact@a") == "↑"
    assert arrow(moved("eval", "exact@a", [None, None]), "exact@a") == "↑"


def test_a_traces_metric_that_rose_is_never_green() -> None:
    """A tool error rate going up is worse, not better: traces metrics have no colour."""
    history = moved("traces", "tool_error_rate", [(0.0, 1.0), (5.0, 9.0)])
    assert arrow(history, "tool_error_rate") == "↑"


def test_the_arrows_are_explained_under_the_sparklines() -> None:
    text = printed(history("d1" * 32, "d1" * 32))
    assert "green or red only for a pass rate or mean that moved beyond both runs' 95% " \
           "intervals" in text


def test_metrics_the_table_has_no_room_for_are_named_as_left_out() -> None:
    """At 120 columns the table held 4 of 12 metrics, and nothing said the other 8 had
    columns left out; their values still have a line each below."""
    metrics = [f"scorer{s}@{c}" for s in range(4) for c in ("training", "pack", "pack2")]
    points = [HistoryPoint(f"20261123-12000{i}-d164d2", f"2026-11-23T12:0{i}", "completed",
                           None, {m: 50.0 + i for m in metrics}) for i in range(2)]
    console = Console(width=120, record=True, color_system=None)
    print_history(console, ExperimentHistory("exp", "eval", metrics, points))
    text = console.export_text()
    assert "the table has room for 4 of the 12 metrics" in text
    assert all(f" {m} " in text for m in metrics)  # each one's sparkline line
    wide = Console(width=400, record=True, color_system=None)
    print_history(wide, ExperimentHistory("exp", "eval", metrics, points))
    assert "room for" not in wide.export_text()


def test_a_move_too_small_to_show_in_the_printed_values_is_flat() -> None:
    """0.8331 -> 0.8334 printed `0.833` and `0.833` beside an up arrow."""
    points = [HistoryPoint(f"r{i}", f"2026-01-0{i + 1}", "completed", None,
                           {"judge.mean@a": value}, intervals={"judge.mean@a": (0.0, 2.0)})
              for i, value in enumerate((0.8331, 0.8334))]
    history = ExperimentHistory("exp", "eval", ["judge.mean@a"], points)
    assert arrow(history, "judge.mean@a") == "→"
    assert "→ judge.mean@a" in printed(history) and "↑" not in printed(history)
    points[1].metrics["judge.mean@a"] = 0.8344
    assert arrow(history, "judge.mean@a") == "↑"


def test_a_mean_is_printed_on_its_scale_as_the_runs_report_prints_it() -> None:
    """Regression: a mean of 0.9997 on 0..1 read `1` in the table and beside its sparkline,
    the top of its scale, where the run's report read `0.9997`."""
    summary = {"scores": [{"scorer": "graded", "condition": "b", "mean": 0.99967,
                           "pass_rate": None, "scale": [0.0, 1.0]}]}
    run = SimpleNamespace(id="r1", experiment="exp", kind="eval", started_at="2026-01-01",
                          status="completed", git_commit=None, dataset_hash="h",
                          summary=summary, pack_hashes=None)
    [history] = build_history([run])
    lines = printed(history).splitlines()
    assert [line.split()[-1] for line in lines if "r1" in line] == ["0.9997"]
    assert any(line.split()[-1] == "0.9997" for line in lines if "graded.mean@b" in line)


def test_a_pack_edited_between_runs_is_named_in_a_packs_changed_column() -> None:
    points = [HistoryPoint(f"r{i}", f"2026-01-0{i + 1}", "completed", None, {"exact@a": 50.0},
                           dataset_hash="d", packs_changed=changed)
              for i, changed in enumerate([(), ("go-docs",)])]
    text = printed(ExperimentHistory("exp", "eval", ["exact@a"], points))
    assert "packs changed" in text
    assert [line.split()[-2] for line in text.splitlines() if line.startswith(("  r0", "  r1"))] \
        == ["-", "go-docs"]
    assert "the knowledge packs whose documents were edited since the run before" in text
    assert "packs changed" not in printed(history("d", "d"))
