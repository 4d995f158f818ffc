"""`assay rejudge RUN`: judge a stored run's outputs again, to measure the judge's own noise."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from assay.cli.common import console, open_store, store_option


@click.command("rejudge")
@click.argument("run_ref", default="latest", metavar="[RUN]")
@store_option
@click.option("--repeats", "-k", type=click.IntRange(1, 25), default=3, show_default=True,
              help="Ask the judge this many times about every stored answer.")
@click.option("--scorer", "scorers", multiple=True, metavar="NAME",
              help="Judge again with this judged scorer only (repeatable; default all).")
@click.option("--judge-model", metavar="MODEL",
              help="Judge with this model instead of the run's (`provider/model`).")
@click.option("--concurrency", "-j", type=click.IntRange(min=1),
              help="Judge calls in flight at once (default the run's concurrency).")
@click.option("--output", "-o", type=click.Path(file_okay=False, path_type=Path),
              help="Directory for the new run's results.json, report.md and report.html "
                   "(default .assay/runs/<run-id>/).")
def command(run_ref: str, store_url: str | None, repeats: int, scorers: tuple[str, ...],
            judge_model: str | None, concurrency: int | None, output: Path | None) -> None:
    """Judge RUN's stored outputs again (an id, an id prefix, `latest` or `latest~N`).

    No target is called. Every answer is judged REPEATS times with real judge calls (a
    fresh cache tag), and the verdicts are kept as a new run linked to RUN. Its report
    gives the judge's self-consistency per scorer (flip rate, score SD, Krippendorff's
    alpha over the asks, the unstable cases) and, when RUN had several epochs, the
    split of each condition's score variance into agent and judge, and the judge's
    share of each delta's uncertainty.

    Exit codes: 0 done, 2 bad arguments, 3 the judging could not complete.
    """
    from assay.judging.rejudge import RejudgeRequest, rejudge
    from assay.reports.terminal import print_review
    from assay.review.finish import ReviewRequest

    store = open_store(store_url)
    try:
        review = rejudge(store, RejudgeRequest(run=run_ref, repeats=repeats,
                                               scorers=list(scorers), judge_model=judge_model,
                                               concurrency=concurrency),
                         ReviewRequest(output=output))
    finally:
        store.close()
    print_review(console(), review)
    sys.exit(0)
