"""`assay report RUN`: render a stored run."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from assay.cli.common import (
    GIVEN_TEXT,
    OutputFile,
    check_output_file,
    given_on_command_line,
    open_store,
    slow_work_notice,
    slow_work_option,
    store_option,
)

if TYPE_CHECKING:
    from assay.records import RunRecord
    from assay.review.files import TrialParts
    from assay.review.result import Review
    from assay.store import Store

FORMATS = ("md", "json", "junit", "html")


@click.command("report")
@click.argument("run_ref", default="latest", metavar="[RUN]")
@store_option
@click.option("--format", "-f", "fmt", type=click.Choice(FORMATS), default="md",
              show_default=True, help="Output format.")
@click.option("--output", "-o", type=OutputFile("report.md", stdout=True),
              help="Write to this file instead of standard output.")
@click.option("--experiment", "-e", type=GIVEN_TEXT,
              help="Resolve `latest` within this experiment.")
@click.option("--rewrite", is_flag=True,
              help="Write the run's results.json, report.md and report.html again, where "
                   "they were written (for files lost or damaged).")
@slow_work_option
def command(run_ref: str, store_url: str | None, fmt: str, output: str | None,
            experiment: str | None, rewrite: bool, no_progress: bool) -> None:
    """Render RUN (an id, an id prefix, `latest` or `latest~N`; default `latest`) as
    Markdown, JSON, JUnit or HTML.

    The run is reviewed again from the store as `assay run` reviewed it: its summary,
    conditions compared and the diff with the run before it, with the gates it was judged
    by when it ended (thresholds and regressions, as stored with it).
    With --rewrite, its own files are written again instead (each file whole or not at all).

    Exit codes: 0 the report was written, whatever the run's gates said (the report shows
    each verdict; `assay run` exited 1 for it), 2 bad arguments or no such run, 3 the store
    could not be read or the report not written.
    """
    from assay.review.finish import rewrite_files
    from assay.store.snapshot import one_moment

    if rewrite:
        _refuse_with_rewrite()
    check_output_file(output)
    store = open_store(store_url, existing=True)
    try:
        run = store.resolve_run(run_ref, experiment)
        if run.kind == "traces":
            from assay.errors import UserError

            raise UserError(f"run {run.id} is a traces analysis: its report is the "
                            "eval-report.md `assay traces` wrote, and `assay history traces` "
                            "shows its metrics over time")
        if rewrite:
            files = rewrite_files(store, run)
            from assay.wording import path_text

            click.echo(f"rewrote {path_text(files.results)}, {files.markdown.name} and "
                       f"{files.html.name}", err=True)
            return
        with one_moment(store):  # a run still being written: every number of one moment
            _write_report(store, run, fmt, output, no_progress=no_progress)
    finally:
        store.close()
    if output:
        from assay.wording import path_text

        click.echo(f"wrote {path_text(Path(output))}", err=True)


def _write_report(store: Store, run: RunRecord, fmt: str, output: str | None, *,
                  no_progress: bool) -> None:
    """The report of `run` in `fmt`, to `output` or stdout, read in one moment of the store
    (`store.snapshot.one_moment`): its status and counts as they stood together."""
    from assay.review.finish import review_stored

    run = store.get_run(run.id) or run
    note = unfinished_note(store, run)
    if note:
        click.echo(note, err=True)
    stored, _ = store.count_trials(run.id)
    with slow_work_notice(f"run {run.id}", stored, doing="reviewing",
                          parts=f"summary, comparisons, the previous run's diff, the {fmt} "
                                "report", no_progress=no_progress) as notice:
        if fmt in ("md", "json"):  # their trials' part is gathered in the review's own pass
            part = _trials_part(fmt, run, output)
            try:
                review = review_stored(store, run, also=part.add)
            except BaseException:
                part.close()
                raise
        else:
            review, part = review_stored(store, run), None
        if not output and sys.stdout.isatty():
            notice.end()  # the report, written to this terminal, shows itself
        _render(store, run, review, fmt, output, part)


def _trials_part(fmt: str, run: RunRecord, output: str | None) -> TrialParts:
    """What report.md (its failures, its answers worse than recorded) or results.json (its
    trial lines, in a temporary file beside the output) takes from the run's trials, fed
    as the review reads them, so the run is read once."""
    from assay.reports.results_json import TrialLines
    from assay.review.files import TrialParts

    if fmt != "json":
        return TrialParts(run.epochs)
    return TrialParts(run.epochs, lines=TrialLines(Path(output).parent if output else None),
                      results=Path(output) if output else None)


def _render(store: Store, run: RunRecord, review: Review, fmt: str, output: str | None,
            part: TrialParts | None) -> None:
    """`review` and the run's trials (`part`, when the review's pass gathered them) in
    `fmt`, to `output` or stdout."""
    import contextlib

    from assay.reports.atomic import atomic_writer

    target = atomic_writer(Path(output)) if output else contextlib.nullcontext(sys.stdout)
    try:
        with target as handle:  # streamed: a 100k-trial results.json is never held whole
            if part is not None and part.lines is not None:
                from assay.reports.results_json import write_results_json

                write_results_json(handle, review, part.lines)
            elif part is not None:
                from assay.reports.markdown import render_markdown
                from assay.reports.recorded import worse_than_recorded_markdown

                handle.write(render_markdown(review, part.failures))
                section = worse_than_recorded_markdown(part.recorded)
                if section:
                    handle.write("\n" + section)
            elif fmt == "junit":
                from assay.reports.junit import write_junit

                write_junit(handle, run, store.iter_trials(run.id), review.gates,
                            status=review.status_said)
            else:
                from assay.reports.html import write_html

                write_html(handle, review, store.iter_trials(run.id))
    finally:
        if part is not None:
            part.close()


def unfinished_note(store: Store, run: RunRecord) -> str | None:
    """One line when the run did not complete: the report shows what was stored so far, and
    a run killed with kill -9 still reads `running` in it, where `assay runs` says `running?`
    and why."""
    from assay.store.run_ending import how_unfinished

    unfinished = how_unfinished(store, run)
    if unfinished is None:
        return None
    return (f"note: run {run.id} is not completed ({unfinished.how}); this report shows the "
            f"{unfinished.stored_trials} stored so far")


def _refuse_with_rewrite() -> None:
    """--rewrite writes the run's own three files where they were: an -o or --format asked
    for beside it would be ignored, the file asked for never written."""
    from assay.errors import UserError

    if asked := given_on_command_line("fmt", "output"):
        raise UserError(f"--rewrite writes the run's results.json, report.md and report.html "
                        f"again where they were, so {' and '.join(asked)} would be ignored: "
                        "give either --rewrite or them")
