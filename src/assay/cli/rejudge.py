"""`assay rejudge RUN`: judge a stored run's outputs again, to measure the judge's own noise."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from assay.cli.common import (
    GIVEN_TEXT,
    OutputFolder,
    console,
    open_store,
    run_setting_range,
    store_given,
    store_option,
)

if TYPE_CHECKING:
    from assay.store import Store


@click.command("rejudge")
@click.argument("run_ref", required=False, metavar="[RUN]")
@store_option
@click.option("--experiment", "-e", type=GIVEN_TEXT,
              help="Resolve `latest` within this experiment.")
@click.option("--repeats", "-k", type=click.IntRange(1, 25),
              help="Ask the judge this many times about every stored answer (default 3).")
@click.option("--scorer", "scorers", multiple=True, metavar="NAME",
              help="Judge again with this judged scorer only (repeatable; default all).")
@click.option("--judge-model", type=GIVEN_TEXT, metavar="MODEL",
              help="Judge with this model instead of the run's (`provider/model`).")
@click.option("--concurrency", "-j", type=run_setting_range("concurrency"),
              help="Judge calls in flight at once (default the run's concurrency).")
@click.option("--resume", type=GIVEN_TEXT,
              default=None, is_flag=False, flag_value="latest", metavar="[RUN_ID]",
              help="Continue an interrupted or stopped rejudge: the latest unfinished one, or "
                   "RUN_ID. Its stored verdicts are kept; the missing ones are judged.")
@click.option("--output", "-o", type=OutputFolder(path_type=Path),
              help="Directory for the new run's results.json, report.md and report.html "
                   "(default .assay/runs/<run-id>/).")
@click.option("--no-progress", is_flag=True,
              help="Show no progress (by default: a live bar on a terminal, else a line "
                   "every 5 s, or every ASSAY_PROGRESS_SECONDS).")
def command(run_ref: str | None, store_url: str | None, experiment: str | None,
            repeats: int | None, scorers: tuple[str, ...], judge_model: str | None,
            concurrency: int | None, resume: str | None, output: Path | None,
            no_progress: bool) -> None:
    """Judge RUN's stored outputs again (an id, an id prefix, `latest` or `latest~N`;
    default `latest`).

    No target is called. Every answer is judged REPEATS times with real judge calls (a
    fresh cache tag), and the verdicts are kept as a new run linked to RUN. Its report
    gives the judge's self-consistency per scorer (flip rate, score SD, Krippendorff's
    alpha over the asks, the unstable cases) and, when RUN had several epochs, the
    split of each condition's score variance into agent and judge, and the judge's
    share of each delta's uncertainty.

    Exit codes: 0 done, 2 bad arguments, 3 the judging could not complete (the judges
    kept failing; continue with --resume once they answer), 130 interrupted.
    """
    from assay.cli.termination import decided
    from assay.errors import RunFailed, UserError
    from assay.rejudge.session import RejudgeRequest, rejudge
    from assay.reports.terminal import print_review
    from assay.review.finish import ReviewRequest

    if resume is not None and run_ref is not None:
        raise UserError(f"--resume continues a rejudge run: give its id to --resume "
                        f"(--resume {run_ref}), not as RUN")
    held: list[str] = []  # the rejudge run this command holds, once it holds one
    request = RejudgeRequest(run=run_ref or "latest", experiment=experiment, repeats=repeats,
                             scorers=list(scorers), judge_model=judge_model,
                             concurrency=concurrency, resume=resume,
                             progress=not no_progress, on_run=held.append)
    store = open_store(store_url, existing=True)
    try:
        review = rejudge(store, request, ReviewRequest(output=output))
        decided(0)  # the rejudge is stored: a signal while it is printed cannot undo that
    except RunFailed as exc:
        hint = _resume_hint(store, held, "aborted", store_given(store_url))
        raise RunFailed(f"{exc}\n  resume with: {hint}" if hint else str(exc)) from None
    except KeyboardInterrupt:
        said, code = _after_interrupt(store, held, store_given(store_url))
        decided(code)
        click.echo(said, err=True)
        sys.exit(code)
    finally:
        store.close()
    print_review(console(), review)
    sys.exit(0)


def _after_interrupt(store: Store, held: list[str], store_words: str) -> tuple[str, int]:
    """What to say after Ctrl-C or SIGTERM, and the exit code: a rejudge run this command
    stored `completed` before the signal came (as its event loop closed) is done, exit 0;
    else 130, with how to resume it."""
    from assay.cli.termination import INTERRUPTED

    run = store.get_run(held[-1]) if held else None
    if run is not None and run.status == "completed":
        said = (f"interrupted after rejudge run {run.id} completed: every verdict and file is "
                f"written (`assay report {run.id}{store_words}` shows it)")
        return said, 0
    hint = _resume_hint(store, held, "interrupted", store_words)
    return (f"interrupted; resume with: {hint}" if hint else "interrupted"), INTERRUPTED


def _resume_hint(store: Store, held: list[str], status: str, store_words: str) -> str | None:
    """The command that continues the rejudge run this command held, when it ended `status`,
    on this command's store (`store_words`); None when it held none. Never the experiment's
    latest rejudge run: with two rejudges of one experiment at once, that may be the other's."""
    run = store.get_run(held[-1]) if held else None
    return (run.resume_command + store_words if run is not None and run.status == status
            else None)
