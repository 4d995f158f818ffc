"""An experiment's history for people: a row per run (oldest first), a sparkline per metric.

The table shows as many metrics as the terminal has room for; every metric gets its
sparkline line, with an arrow for the last move. Where the dataset changed, the table
says so in a dataset column, each sparkline breaks (¦), and a last move across the
change is not an arrow but ≠: the runs on either side answered different questions.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from assay.analysis.history import TARGET_ERRORS, ExperimentHistory
from assay.records import experiment_label
from assay.reports.formatting import percent, score_text
from assay.shown_numbers import count, significant
from assay.wording import plural

BARS = "▁▂▃▄▅▆▇█"
ARROWS = {"up": "↑", "down": "↓", "flat": "→", "new": "·", "dataset_changed": "[yellow]≠[/yellow]"}
"""The last move of a metric. Green and red say better and worse, so they are kept for a
pass rate or a mean score (higher is better) that moved beyond both runs' 95% intervals: a
green arrow on noise, or on a traces metric such as a tool error rate going up, would say
something false."""
BETTER = {"up": "[green]↑[/green]", "down": "[red]↓[/red]"}
BREAK = "¦"
"""Between two runs over different datasets in a sparkline."""
LEVEL = BARS[(len(BARS) - 1) // 2]
"""Every bar of a series that never moved: half height, as neither its lowest nor its highest
(the lowest bar read as a low value beside a pass rate of 100%)."""


def sparkline(values: list[float | None], breaks: Collection[int] = ()) -> str:
    """One bar per run, scaled between the lowest and highest value (a series that never moved
    at half height); a gap for a missing one, and a break before each index in `breaks`."""
    present = [v for v in values if v is not None]
    if not present:
        return ""
    low, high = min(present), max(present)
    span = high - low
    return "".join(
        (BREAK if i in breaks else "")
        + (" " if v is None else LEVEL if span == 0
           else BARS[round((v - low) / span * (len(BARS) - 1))])
        for i, v in enumerate(values))


def format_value(metric: str, value: float | None,
                 scale: tuple[float, float] | None = None) -> str:
    """A metric's value as the run's report prints it; a mean on its `scale` when known
    (a mean of 0.9997 read `1`, the top of its scale, beside the report's `0.9997`)."""
    if value is None:
        return "-"
    if "@" in metric and ".mean@" not in metric:
        return percent(value / 100)
    if metric == TARGET_ERRORS:
        return f"{value:,.0f}"
    return score_text(value, scale) if scale is not None else significant(value, 3)


def arrow(history: ExperimentHistory, metric: str) -> str:
    """The metric's last move, coloured only when it is an eval metric's move beyond noise.
    A move too small to show in the values printed (0.8331 to 0.8334, both `0.833`) is
    flat: an arrow beside two equal numbers says they differ."""
    trend = history.trend(metric)
    if trend in BETTER and len({format_value(metric, value, history.scales.get(metric))
                                for value in last_two(history, metric)}) == 1:
        return ARROWS["flat"]
    if history.kind == "eval" and trend in BETTER and history.beyond_noise(metric):
        return BETTER[trend]
    return ARROWS[trend]


def last_two(history: ExperimentHistory, metric: str) -> list[float]:
    """The metric's last two values, among the runs that have it."""
    return [value for value in history.series(metric) if value is not None][-2:]


def print_history(console: Any, history: ExperimentHistory) -> None:
    from rich import box
    from rich.table import Table

    from assay.reports.console import fits, print_as_list
    from assay.reports.text import markup_free as escape
    from assay.reports.text import padded

    title = experiment_label(history.experiment, history.kind)
    runs = len(history.points)
    heading = f"{escape(title)} · {plural(runs, 'run')}, oldest first"
    table = Table(title=heading, title_justify="left", box=box.SIMPLE_HEAD)
    room = max(1, (getattr(console, "width", 80) - 55) // 16)
    shown = history.metrics[:room]
    breaks = {i for i, point in enumerate(history.points) if point.dataset_changed}
    datasets = bool(breaks) or len({p.dataset_hash for p in history.points}) > 1
    packs = any(point.packs_changed for point in history.points)
    extra = (("dataset",) if datasets else ()) + (("packs changed",) if packs else ())
    for column in ("run", "started (UTC)", "status", *extra):
        table.add_column(column, no_wrap=True)
    for column in shown:  # `judge_score@pack` on two lines: cut to `judge_score@…`, the
        # columns of one scorer's conditions could not be told apart
        table.add_column(escape(column).replace("@", "\n@", 1), justify="right",
                         overflow="fold")
    rows = []
    for i, point in enumerate(history.points):
        dataset = ((f"{BREAK} " if i in breaks else "") + (point.dataset_hash or "-")[:12],)
        edited = (", ".join(point.packs_changed) or "-",)
        rows.append((point.run_id, point.started_at[:16].replace("T", " "), point.shown_status,
                     *(dataset if datasets else ()), *(edited if packs else ()),
                     *(format_value(m, point.metrics.get(m), history.scales.get(m))
                       for m in shown)))
        table.add_row(*rows[-1])
    if fits(console, table):
        console.print(table)
    else:  # too narrow even for the run ids: a table would cut them
        names = ["started (UTC)", "status", *extra, *map(escape, shown)]
        print_as_list(console, heading, ["run", *names], rows)
    if len(shown) < len(history.metrics):
        console.print(f"  the table has room for {count(len(shown))} of the {count(len(history.metrics))} "
                      "metrics; each one's last value and trend are below, and `-m NAME` or "
                      "`--json` gives every run's value")
    arrows = {metric: arrow(history, metric) for metric in history.metrics}
    for metric in history.metrics:
        series = history.series(metric)
        last = next((v for v in reversed(series) if v is not None), None)
        console.print(f"  {arrows[metric]} {padded(metric, 28)} {sparkline(series, breaks)}  "
                      f"{format_value(metric, last, history.scales.get(metric))}")
    if any(shown not in (ARROWS["flat"], ARROWS["new"], ARROWS["dataset_changed"])
           for shown in arrows.values()):
        console.print("  ↑ ↓ the last move; green or red only for a pass rate or mean that moved "
                      "beyond both runs' 95% intervals, else it may be noise "
                      "(`assay compare` tests it case by case)")
    if packs:
        console.print("  packs changed: the knowledge packs whose documents were edited since "
                      "the run before; the runs' numbers move with them too")
    if breaks:
        console.print(f"  {BREAK} the dataset changed (sha256 in the dataset column): the runs "
                      "on either side answered different questions, so no trend is read across "
                      "it (≠)")
