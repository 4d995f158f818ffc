"""An experiment's history for people: a row per run (oldest first), a sparkline per metric.

The table shows as many metrics as the terminal has room for; every metric gets its
sparkline line, with an arrow for the last move.
"""

from __future__ import annotations

from typing import Any

from assay.analysis.history import ExperimentHistory
from assay.reports.formatting import percent

BARS = "▁▂▃▄▅▆▇█"
ARROWS = {"up": "[green]↑[/green]", "down": "[red]↓[/red]", "flat": "→", "new": "·"}


def sparkline(values: list[float | None]) -> str:
    """One bar per run, scaled between the lowest and highest value; a gap for a missing one."""
    present = [v for v in values if v is not None]
    if not present:
        return ""
    low, high = min(present), max(present)
    span = high - low
    return "".join(
        " " if v is None else BARS[0 if span == 0 else round((v - low) / span * (len(BARS) - 1))]
        for v in values)


def format_value(metric: str, value: float | None) -> str:
    if value is None:
        return "-"
    if "@" in metric and ".mean@" not in metric:
        return percent(value / 100)
    return f"{value:.3g}"


def print_history(console: Any, history: ExperimentHistory) -> None:
    from rich import box
    from assay.reports.text import markup_free as escape
    from rich.table import Table

    title = f"{history.experiment}" + (f" ({history.kind})" if history.kind != "eval" else "")
    runs = len(history.points)
    table = Table(title=f"{escape(title)} · {runs} run{'s' * (runs != 1)}, oldest first",
                  title_justify="left", box=box.SIMPLE_HEAD)
    room = max(1, (getattr(console, "width", 80) - 55) // 16)
    shown = history.metrics[:room]
    for column in ("run", "started", "status"):
        table.add_column(column, no_wrap=True)
    for column in shown:
        table.add_column(escape(column), justify="right")
    for point in history.points:
        table.add_row(point.run_id, point.started_at[:16].replace("T", " "), point.status,
                      *(format_value(m, point.metrics.get(m)) for m in shown))
    console.print(table)
    for metric in history.metrics:
        series = history.series(metric)
        last = next((v for v in reversed(series) if v is not None), None)
        name = escape(metric) + " " * (28 - len(metric))
        console.print(f"  {ARROWS[history.trend(metric)]} {name} {sparkline(series)}  "
                      f"{format_value(metric, last)}")
