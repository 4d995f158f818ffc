"""`assay export RUN --format eee`: write a stored run in a format other tools read."""

from __future__ import annotations

from pathlib import Path

import click

from assay.cli.common import (
    GIVEN_TEXT,
    OutputFolder,
    check_output_folder,
    open_store,
    slow_work_notice,
    slow_work_option,
    store_option,
)

FORMATS = ("eee",)
RUNS_DIR = Path(".assay") / "runs"


@click.command("export")
@click.argument("run_ref", default="latest", metavar="[RUN]")
@click.option("--format", "-f", "fmt", type=click.Choice(FORMATS), default="eee",
              show_default=True,
              help="The format: eee is Every Eval Ever (aggregate JSON and instance JSONL).")
@click.option("--output", "-o", type=OutputFolder(path_type=Path),
              help="The directory to write under (default <format>/ in the run's folder, "
                   ".assay/runs/<run id>/ unless it was written elsewhere).")
@store_option
@click.option("--experiment", "-e", type=GIVEN_TEXT,
              help="Resolve `latest` within this experiment.")
@click.option("--organization", type=GIVEN_TEXT, default="unknown", show_default=True,
              help="Who ran the evaluation, as the files' source organization.")
@click.option("--relationship", type=click.Choice(
    ("first_party", "third_party", "collaborative", "other")), default="other",
    show_default=True, help="How the evaluator relates to the model's developer.")
@slow_work_option
def command(run_ref: str, fmt: str, output: Path | None, store_url: str | None,
            experiment: str | None, organization: str, relationship: str,
            no_progress: bool) -> None:
    """Write RUN (an id, an id prefix, `latest` or `latest~N`; default `latest`) as Every
    Eval Ever files.

    One aggregate file and one instance-level JSONL per condition, under
    OUTPUT/data/<experiment>/<developer>/<model>/, each checked against the
    format's schemas. The export is recorded with the run, and the run's
    results.json (in the run's folder, from wherever this is run) links to the files;
    from a store this process can only read (a read-only mount), the files are written
    and the export is not recorded, with a warning.
    """
    from assay.errors import FileWriteError
    from assay.export.writing import export_eee
    from assay.reports.results_json import link_exports
    from assay.store.failures import store_name
    from assay.wording import path_text

    store = open_store(store_url, existing=True)
    try:
        run = store.resolve_run(run_ref, experiment)
        folder = run_folder(run.report_dir, run.id)
        directory = output or folder / fmt
        check_output_folder(directory)
        with slow_work_notice(f"run {run.id}", store.count_trials(run.id)[0],
                              doing="exporting", parts="aggregate and instance files, "
                              "each checked against its schema", no_progress=no_progress):
            record = export_eee(store, run, directory, organization=organization,
                                relationship=relationship,  # type: ignore[arg-type]
                                recorded=not store.read_only)
        exports = store.exports(run.id)
    finally:
        store.close()
    for name in record.files:
        click.echo(path_text(directory / name))
    if store.read_only:  # the files are what was asked for; the store can only be read
        click.echo(f"warning: the store {store_name(store.url)} cannot be written here, so "
                   f"the export is not recorded with run {run.id} and its results.json does "
                   "not link to it: the files above are all it wrote", err=True)
        return
    results = folder / "results.json"
    if results.is_file():
        try:
            link_exports(results, exports)
        except (OSError, ValueError, FileWriteError) as exc:  # a damaged or locked file
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            click.echo(f"warning: not linked from {path_text(results)}: {reason}; the export is recorded "
                       f"with run {run.id}, and `assay report {run.id} --rewrite` writes "
                       "results.json again, listing it", err=True)
            return
        click.echo(f"linked from {path_text(results)}")
    else:
        click.echo(f"recorded with run {run.id}: `assay report {run.id} --format json` "
                   "lists it", err=True)


def run_folder(report_dir: str | None, run_id: str) -> Path:
    """The folder the run's files were written to, as recorded with it; a run that recorded
    none has them in .assay/runs/<run id>/. (The export looked there, from the working
    directory, alone: run elsewhere, or for a run written with -o, its results.json never
    linked to the files.)"""
    return Path(report_dir) if report_dir else RUNS_DIR / run_id
