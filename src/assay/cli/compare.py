"""`assay compare [RUN_A] [RUN_B]`: two runs side by side, per metric and per case."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from assay.cli.common import (
    GIVEN_TEXT,
    OutputFile,
    check_output_file,
    console,
    given_on_command_line,
    open_store,
    slow_work_notice,
    slow_work_option,
    store_option,
)
from assay.wording import path_text

if TYPE_CHECKING:
    from assay.analysis.pairwise_verdicts import PairwiseResult
    from assay.judging.pairs import AnswerPair
    from assay.records import RunRecord
    from assay.store import Store


@click.command("compare")
@click.argument("run_a", required=False, metavar="[RUN_A]")
@click.argument("run_b", required=False, metavar="[RUN_B]")
@store_option
@click.option("--experiment", "-e", type=GIVEN_TEXT,
              help="Resolve `latest` and `latest~N` within this experiment.")
@click.option("--force", is_flag=True,
              help="Compare even when the runs are not comparable (dataset, judge or a "
                   "scorer's definition differ).")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@click.option("--output", "-o", type=OutputFile("compare.md"),
              help="Also write the comparison as Markdown to this file.")
@click.option("--pairwise", is_flag=True,
              help="Also have a judge compare B's answer with A's for every case, asked in "
                   "both orders: wins, ties, losses and the win rate per condition.")
@click.option("--judge-model", type=GIVEN_TEXT, metavar="MODEL",
              help="With --pairwise: the judge (`provider/model`; default run B's pairwise "
                   "scorer's model, or its config's judge.model).")
@slow_work_option
def command(run_a: str | None, run_b: str | None, store_url: str | None, experiment: str | None, force: bool,
            as_json: bool, output: str | None, pairwise: bool, judge_model: str | None,
            no_progress: bool) -> None:
    """Compare RUN_A (before) with RUN_B (after): ids, id prefixes, `latest` or `latest~N`.

    By default the latest two completed runs (of EXPERIMENT with -e), older
    first; runs stopped, aborted or still running, and rejudges, are left out
    and named. Per scorer and
    condition: the delta from A to B with its CI (95%, or the level of its Holm
    step when several metrics are compared), the paired test and the cases that
    newly fail or newly pass in B (with several epochs: that pass less or more
    often). Runs over a different dataset,
    graded by a different judge model or prompt, or with a scorer defined
    differently under the same name, are refused (exit 2) unless --force, and
    then every difference is named in red.

    Exit codes: 0 compared, whatever the comparison found (a drop fails a build through
    `assay run`'s regression gates or --fail-on-regression), 2 bad arguments, no such run,
    runs not comparable or with no metric in common, 3 the store could not be read, the file not written, or --pairwise's
    judge gave no verdict on any pair.
    """
    import json

    from assay.errors import UserError
    from assay.judging.pairs import read_answer_pairs
    from assay.review.comparing import diff_stored_runs
    from assay.store.compared_runs import compared_runs
    from assay.store.snapshot import one_moment

    if not pairwise and (given := given_on_command_line("judge_model")):
        raise click.UsageError(f"{given[0]} picks the judge of --pairwise: give --pairwise "
                               "too, or leave --judge-model out")
    check_output_file(output)
    store = open_store(store_url, existing=True)
    answers = pairs = None
    try:
        with one_moment(store):  # a run still being written: both runs as they stood together
            picked = compared_runs(store, run_a, run_b, experiment)
            first, second = picked.first, picked.second
            if first.id == second.id:
                raise UserError(f"RUN_A and RUN_B are the same run ({first.id})")
            trials = sum(store.count_trials(run.id)[0] for run in (first, second))
            with slow_work_notice(f"runs {first.id} and {second.id}", trials,
                                  doing="comparing", parts="per metric and per case",
                                  no_progress=no_progress):
                diff = diff_stored_runs(store, first, second)
            if pairwise and (diff.comparable or force):
                answers = read_answer_pairs(store, first, second)
        if answers is not None:  # judged outside the moment: no read held open meanwhile
            pairs = _pairwise(store, first, second, answers, judge_model)
    finally:
        store.close()
    from assay.reports.text import markup_free

    out, notes = console(), console(stderr=True)  # notes stay out of --json
    if picked.note:
        notes.print(f"[yellow]note:[/yellow] {markup_free(picked.note)}")
    if first.experiment != second.experiment:
        notes.print("[bold yellow]warning:[/bold yellow] " + markup_free(
            f"different experiments: '{first.experiment}' and '{second.experiment}'"))
    if first.started_at > second.started_at:
        notes.print(f"[yellow]note:[/yellow] RUN_A {first.id} started after RUN_B {second.id}; "
                    "deltas read from A (before) to B (after) as given")
    if not diff.comparable and not force:
        reasons = "\n".join(f"  - {p}" for p in diff.problems)
        raise UserError(f"runs {first.id} and {second.id} are not comparable:\n{reasons}\n"
                        "  (--force compares them anyway)")
    if not diff.entries and pairs is None:
        raise UserError(_nothing_compared(first, second, diff.skipped + diff.notes))
    if as_json:
        document = diff.to_dict()
        if pairs is not None:
            document["pairwise"] = [result.to_dict() for result in pairs]
        click.echo(json.dumps(document, indent=2, ensure_ascii=False, default=str))
    else:
        from assay.reports.run_diff import print_run_diff

        print_run_diff(out, diff)
        if pairs is not None:
            from assay.reports.judges import print_pairwise

            print_pairwise(out, pairs)
    if output:
        from pathlib import Path

        from assay.reports.atomic import write_text
        from assay.reports.run_diff import run_diff_markdown

        text = run_diff_markdown(diff)
        if pairs is not None:
            from assay.reports.judges import pairwise_markdown

            text += "\n\n" + pairwise_markdown(pairs)
        write_text(Path(output), text + "\n")
        click.echo(f"wrote {path_text(output)}", err=True)
    sys.exit(0)


def _nothing_compared(first: RunRecord, second: RunRecord, reasons: list[str]) -> str:
    """Why two runs gave no comparison at all: an exit 0 over an empty table read as a
    comparison that found nothing to worry about."""
    lines = "".join(f"\n  - {reason}" for reason in reasons)
    return (f"runs {first.id} and {second.id} have no metric in common, so nothing was "
            f"compared{':' if lines else ''}{lines}")


def _pairwise(store: Store, first: RunRecord, second: RunRecord, answers: list[AnswerPair],
              judge_model: str | None) -> list[PairwiseResult]:
    """Run B's answers judged against run A's, in both orders, per condition."""
    import asyncio

    from assay.judging.pairs import compare_runs_pairwise

    return asyncio.run(compare_runs_pairwise(store, first, second, answers,
                                             judge_model=judge_model))
