"""`assay runs`: the stored runs, newest first."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from assay.cli.common import GIVEN_TEXT, console, open_store, store_option
from assay.run_status import shown_status
from assay.shown_numbers import count

if TYPE_CHECKING:
    from assay.records import RunRecord


@click.command("runs")
@click.argument("experiment", required=False, type=GIVEN_TEXT)
@store_option
@click.option("--limit", "-n", default=20, show_default=True, type=click.IntRange(min=1),
              help="How many runs to list.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def command(experiment: str | None, store_url: str | None, limit: int, as_json: bool) -> None:
    """List runs (of EXPERIMENT, if given) with their status and headline scores.

    A run still marked running whose process is gone (its lock left behind, by kill -9 or
    a lost machine), or with no progress for 10 minutes, shows as `running?` (`reviewing?`
    when it was killed while its report files were written).
    """
    import json

    from rich.table import Table

    from assay.reports.console import fits, print_as_list
    from assay.reports.text import markup_free as escape
    from assay.store.stalled_runs import stalled_runs

    store = open_store(store_url, existing=True)
    try:
        runs = store.list_runs(experiment, limit=limit)
        stale = stalled_runs(store, runs)
        stored = {r.id: store.count_trials(r.id)[0] for r in runs
                  if r.kind != "traces" and r.status != "completed"}  # traces store no trials
    finally:
        store.close()
    if experiment and not runs:
        from assay.errors import UserError

        raise UserError(f"no runs of experiment '{experiment}' in the store")
    if as_json:
        click.echo(json.dumps([{"id": r.id, "experiment": r.experiment, "status": r.status,
                                "started_at": r.started_at, "finished_at": r.finished_at,
                                "kind": r.kind, "headline": headline(r.summary),
                                "stale": r.id in stale, "trials": r.total_trials,
                                "trials_stored": stored.get(r.id, r.total_trials)}
                               for r in runs], indent=2))
        return
    table = Table(title="runs", title_justify="left")
    table.add_column("id", no_wrap=True)  # the handle people copy: never cut or wrapped
    table.add_column("experiment", overflow="fold")
    table.add_column("status", no_wrap=True)
    table.add_column("started (UTC)")  # as stored, and as the run ids read
    table.add_column("trials", justify="right")
    table.add_column("headline")
    rows = [(run.id, _experiment(run),
             _status(run.status, stalled=run.id in stale),
             run.started_at[:16].replace("T", " "), _trials(run, stored.get(run.id)),
             escape(headline(run.summary))) for run in runs]
    for row in rows:
        table.add_row(*row)
    out = console()
    if not runs:
        out.print("no runs stored yet")
    elif fits(out, table):
        out.print(table)
    else:  # too narrow for the table: cut, it lost the ids' ends and whole columns
        print_as_list(out, "runs", [str(column.header) for column in table.columns], rows)
    for run in runs:
        if run.id in stale:
            out.print(f"[yellow]{stale[run.id].shown_status}[/yellow] {run.id} "
                      f"({stale[run.id].reason()})")


def _experiment(run: RunRecord) -> str:
    """The experiment, and what kind of run it was when not an eval: a rejudge's headline is
    its judge's verdicts on an earlier run's answers, not a new measure of the target."""
    from assay.records import experiment_label
    from assay.reports.text import markup_free as escape

    return escape(experiment_label(run.experiment, run.kind))


def _trials(run: RunRecord, stored: int | None) -> str:
    """The planned trials; of a run that did not complete, how many of them are stored."""
    if not run.total_trials:
        return "-" if stored is None else count(stored)
    if stored is None or stored == run.total_trials:
        return count(run.total_trials)
    return f"{count(stored)} of {count(run.total_trials)}"


def headline(summary: dict[str, Any] | None) -> str:
    """The first scorer's pass rate (or mean) per condition, e.g. `contains: a 80% · b 90%`;
    a condition with errored trials says how many (`b 100% (3 errored trials)`, as the
    report's column names them): the figure is over the trials scored, and bare it read as a
    clean run's."""
    from assay.reports.formatting import percent, score_text
    from assay.shown_numbers import significant
    from assay.wording import plural

    if not summary or not summary.get("scores"):
        return "-"
    scores = summary["scores"]
    first = scores[0]["scorer"]
    parts = []
    for entry in scores:
        if entry["scorer"] != first:
            continue
        figure = "-"
        if entry.get("pass_rate") is not None:
            figure = percent(entry["pass_rate"], 0)
        elif entry.get("mean") is not None:
            scale = entry.get("scale")
            figure = (score_text(entry["mean"], (scale[0], scale[1])) if scale
                      else significant(entry["mean"], 3))
        errors = entry.get("errors") or 0
        if figure != "-" or errors:
            parts.append(f"{entry['condition']} {figure}"
                         + (f" ({plural(errors, 'errored trial')})" if errors else ""))
    return f"{first}: " + " · ".join(parts) if parts else "-"


def _status(status: str, *, stalled: bool) -> str:
    colour = {"completed": "green", "running": "cyan", "interrupted": "yellow",
              "incomplete": "yellow", "aborted": "red", "failed": "red"}.get(status, "white")
    if stalled:  # under way, but probably stopped
        colour = "yellow"
    shown = shown_status(status, stalled=stalled)
    return f"[{colour}]{shown}[/{colour}]"
