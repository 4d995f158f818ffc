"""`assay history [EXPERIMENT]`: runs over time, their headline metrics and where they are heading."""

from __future__ import annotations

import click

from assay.cli.common import GIVEN_TEXT, console, open_store, store_option


@click.command("history")
@click.argument("experiment", required=False, type=GIVEN_TEXT)
@store_option
@click.option("--limit", "-n", default=20, show_default=True, type=click.IntRange(min=1),
              help="How many of the newest runs to show per experiment.")
@click.option("--metric", "-m", "metrics", type=GIVEN_TEXT, multiple=True,
              help="Only metrics whose name contains this text (repeatable), e.g. contains@docs.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
def command(experiment: str | None, store_url: str | None, limit: int,
            metrics: tuple[str, ...], as_json: bool) -> None:
    """Show EXPERIMENT's runs (every experiment's, if omitted), oldest first, with a trend.

    Eval runs show each scorer's pass rate (or mean) per condition; `assay
    traces` runs show their stored metrics (hit rate, wasted reads, ...).
    """
    import json

    from assay.analysis.history import build_history
    from assay.errors import UserError
    from assay.store.snapshot import one_moment
    from assay.store.stalled_runs import stalled_runs

    store = open_store(store_url, existing=True)
    try:
        with one_moment(store):  # a run ending meanwhile is not shown stalled
            runs = store.list_runs(experiment, limit=None)
            stale = stalled_runs(store, runs)
    finally:
        store.close()
    if experiment and not runs:
        raise UserError(f"no runs of experiment '{experiment}' in the store")
    histories = build_history(runs, stale)
    known = list(dict.fromkeys(m for history in histories for m in history.metrics))
    for history in histories:
        history.points = history.points[-limit:]
        if metrics:
            history.metrics = [m for m in history.metrics if any(f in m for f in metrics)]
    if metrics and histories:
        histories = [history for history in histories if history.metrics]
        if not histories:
            asked = " or ".join(f"'{f}'" for f in metrics)
            raise UserError(f"no metric matches {asked}: the metrics are "
                            f"{', '.join(known)}" if known else
                            f"no metric matches {asked}: no run has stored metrics")
    if as_json:
        click.echo(json.dumps([h.to_dict() for h in histories], indent=2))
        return
    from assay.reports.history import print_history

    out = console()
    if not histories:
        out.print("no runs stored yet")
    for history in histories:
        print_history(out, history)
