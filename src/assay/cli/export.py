"""`assay export RUN --format eee`: write a stored run in a format other tools read."""

from __future__ import annotations

from pathlib import Path

import click

from assay.cli.common import check_output_file, open_store, store_option

FORMATS = ("eee",)
RUNS_DIR = Path(".assay") / "runs"


@click.command("export")
@click.argument("run_ref", default="latest", metavar="[RUN]")
@click.option("--format", "-f", "fmt", type=click.Choice(FORMATS), default="eee",
              show_default=True,
              help="The format: eee is Every Eval Ever (aggregate JSON and instance JSONL).")
@click.option("--output", "-o", type=click.Path(file_okay=False, path_type=Path),
              help="The directory to write under (default .assay/runs/<run id>/<format>).")
@store_option
@click.option("--experiment", "-e", help="Resolve `latest` within this experiment.")
@click.option("--organization", default="unknown", show_default=True,
              help="Who ran the evaluation, as the files' source organization.")
@click.option("--relationship", type=click.Choice(
    ("first_party", "third_party", "collaborative", "other")), default="other",
    show_default=True, help="How the evaluator relates to the model's developer.")
def command(run_ref: str, fmt: str, output: Path | None, store_url: str | None,
            experiment: str | None, organization: str, relationship: str) -> None:
    """Write RUN (an id, an id prefix, `latest` or `latest~N`) as Every Eval Ever files.

    One aggregate file and one instance-level JSONL per condition, under
    OUTPUT/data/<experiment>/<developer>/<model>/, each checked against the
    format's schemas. The export is recorded with the run, and the run's
    results.json (in .assay/runs/<run id>/) links to the files.
    """
    from assay.export.writing import export_eee
    from assay.reports.results_json import link_exports

    store = open_store(store_url, existing=True)
    try:
        run = store.resolve_run(run_ref, experiment)
        directory = output or RUNS_DIR / run.id / fmt
        check_output_file(directory)  # its parent: the folder itself is made only on writing
        record = export_eee(store, run, directory, organization=organization,
                            relationship=relationship)  # type: ignore[arg-type]
        exports = store.exports(run.id)
    finally:
        store.close()
    for name in record.files:
        click.echo(str(directory / name))
    results = RUNS_DIR / run.id / "results.json"
    if results.is_file():
        link_exports(results, exports)
        click.echo(f"linked from {results}")
    else:
        click.echo(f"recorded with run {run.id}: `assay report {run.id} --format json` "
                   "lists it", err=True)
