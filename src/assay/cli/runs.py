"""`assay runs`: the stored runs, newest first."""

from __future__ import annotations

import click

from assay.cli.common import console, open_store, store_option


@click.command("runs")
@click.argument("experiment", required=False)
@store_option
@click.option("--limit", "-n", default=20, show_default=True, help="How many runs to list.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def command(experiment: str | None, store_url: str | None, limit: int, as_json: bool) -> None:
    """List runs (of EXPERIMENT, if given) with their status and headline scores."""
    import json

    from rich.table import Table

    store = open_store(store_url)
    try:
        runs = store.list_runs(experiment, limit=limit)
    finally:
        store.close()
    if as_json:
        click.echo(json.dumps([{"id": r.id, "experiment": r.experiment, "status": r.status,
                                "started_at": r.started_at, "finished_at": r.finished_at,
                                "kind": r.kind, "headline": headline(r.summary)}
                               for r in runs], indent=2))
        return
    table = Table(title="runs", title_justify="left")
    for column in ("id", "experiment", "status", "started", "trials", "headline"):
        table.add_column(column)
    for run in runs:
        table.add_row(run.id, run.experiment, _status(run.status), run.started_at[:19],
                      str(run.total_trials or "-"), headline(run.summary))
    console().print(table if runs else "no runs stored yet")


def headline(summary: dict | None) -> str:
    """The first scorer's pass rate (or mean) per condition, e.g. `contains: a 80% · b 90%`."""
    if not summary or not summary.get("scores"):
        return "-"
    scores = summary["scores"]
    first = scores[0]["scorer"]
    parts = []
    for entry in scores:
        if entry["scorer"] != first:
            continue
        if entry.get("pass_rate") is not None:
            parts.append(f"{entry['condition']} {entry['pass_rate']:.0%}")
        elif entry.get("mean") is not None:
            parts.append(f"{entry['condition']} {entry['mean']:.3g}")
    return f"{first}: " + " · ".join(parts) if parts else "-"


def _status(status: str) -> str:
    colour = {"completed": "green", "running": "cyan", "interrupted": "yellow",
              "aborted": "red", "failed": "red"}.get(status, "white")
    return f"[{colour}]{status}[/{colour}]"
