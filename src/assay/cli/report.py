"""`assay report RUN`: render a stored run."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from assay.cli.common import open_store, store_option

FORMATS = ("md", "json", "junit", "html")


@click.command("report")
@click.argument("run_ref", default="latest", metavar="[RUN]")
@store_option
@click.option("--format", "-f", "fmt", type=click.Choice(FORMATS), default="md",
              show_default=True, help="Output format.")
@click.option("--output", "-o", type=click.Path(dir_okay=False),
              help="Write to this file instead of standard output.")
@click.option("--experiment", "-e", help="Resolve `latest` within this experiment.")
def command(run_ref: str, store_url: str | None, fmt: str, output: str | None,
            experiment: str | None) -> None:
    """Render RUN (an id, an id prefix, `latest` or `latest~N`) as Markdown, JSON, JUnit or HTML."""
    store = open_store(store_url)
    try:
        run = store.resolve_run(run_ref, experiment)
        summary = _summary(store, run)
        handle = open(output, "w", encoding="utf-8") if output else sys.stdout
        try:
            if fmt == "junit":
                from assay.reports.junit import render_junit

                handle.write(render_junit(run, store.iter_trials(run.id),
                                          _gates(run, summary)))
            elif fmt == "html":
                handle.write(_html(store, run, summary))
            elif fmt == "json":
                from assay.reports.results_json import write_results_json

                write_results_json(handle, run, summary, store.iter_trials(run.id))
            else:
                from assay.reports.markdown import render_markdown

                handle.write(render_markdown(run, summary, store.iter_trials(run.id)))
        finally:
            if output:
                handle.close()
                click.echo(f"wrote {Path(output)}", err=True)
    finally:
        store.close()


def _summary(store: Any, run: Any) -> Any:
    """The run's summary, its scorers and conditions in the order the run itself reported them."""
    from assay.analysis.summary import summarize

    stored = run.summary if isinstance(run.summary, dict) else {}
    scorers = list(dict.fromkeys(s["scorer"] for s in stored.get("scores") or []))
    conditions = [c["condition"] for c in stored.get("conditions") or []]
    return summarize(store.iter_score_rows(run.id), store.iter_trial_rows(run.id),
                     per_case=store.epochs(run.id) > 1,
                     scorer_order=scorers or None, condition_order=conditions or None)


def _html(store: Any, run: Any, summary: Any) -> str:
    """The HTML page, with the conditions compared and the run against the previous one."""
    from assay.review.comparing import compare_run_conditions, diff_with_previous
    from assay.reports.html import render_html

    comparisons = compare_run_conditions(store, run, conditions=summary.condition_names,
                                         scorers=summary.scorer_names)
    previous = diff_with_previous(store, run) if run.kind == "eval" else None
    return render_html(run, summary, store.iter_trials(run.id), gates=_gates(run, summary),
                       comparisons=comparisons, previous=previous)


def _gates(run: Any, summary: Any) -> list[Any]:
    """The run's threshold gates from its stored config, judged again on its results.

    Regression gates depend on which runs existed when it ran, so they are not re-judged here.
    """
    from assay.config.models import GateConfig
    from assay.review.gates import check_gates

    items = ((run.config or {}).get("gates") or []) if isinstance(run.config, dict) else []
    gates = [GateConfig.model_validate(item) for item in items
             if isinstance(item, dict) and "regression" not in item]
    return check_gates(list(gates), summary)
