"""`assay run CONFIG...`: run evals (or a suite), write reports, apply gates, pick the exit code."""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from assay.cli.common import (
    GIVEN_TEXT,
    GivenPath,
    OutputFile,
    OutputFolder,
    check_output_file,
    console,
    open_store,
    run_setting_range,
    store_given,
    store_option,
)
from assay.cli.termination import INTERRUPTED

if TYPE_CHECKING:
    from assay.api.suite_start import SuiteStart
    from assay.config.loading import LoadedConfig
    from assay.knowledge_packs.all_packs import SuiteEntry
    from assay.reports.terminal import Detail
    from assay.review.finish import ReviewRequest
    from assay.review.result import Review
    from assay.runner.options import RunOptions
    from assay.store import Store
    from assay.store.run_ending import Unfinished


@click.command("run")
@click.argument("configs", nargs=-1, required=True, type=GivenPath(dir_okay=False))
@store_option
@click.option("--resume", type=GIVEN_TEXT,
              default=None, is_flag=False, flag_value="latest", metavar="[RUN_ID]",
              help="Finish an interrupted run: the latest unfinished one no other "
                   "assay is running, or RUN_ID. Of a completed run, write its "
                   "missing or damaged files again. Of a suite (the same configs or suite "
                   "file): keep its completed runs, resume its stopped run, run the configs "
                   "it did not reach, and write the summary of the whole suite (RUN_ID: "
                   "the suite's id or one of its runs').")
@click.option("--retry-errors", is_flag=True,
              help="With --resume: run errored trials again (the target's or a scorer's error).")
@click.option("--sample", type=run_setting_range("sample"),
              help="Run a seeded, stable sample of N cases (of each config in a suite).")
@click.option("--epochs", type=run_setting_range("epochs"), help="Override run.epochs.")
@click.option("--concurrency", "-j", type=run_setting_range("concurrency"),
              help="Override run.concurrency.")
@click.option("--condition", "conditions", multiple=True, help="Only this condition (repeatable).")
@click.option("--no-cache", is_flag=True, help="Bypass the LLM response cache.")
@click.option("--output", "-o", type=OutputFolder(),
              help="Directory for results.json, report.md and report.html (default "
                   ".assay/runs/<run-id>/); for a suite, runs go to OUTPUT/<run-id>/ and the "
                   "summary to OUTPUT/suite.json and OUTPUT/suite.md.")
@click.option("--fail-under", multiple=True, metavar="SCORER[.mean][@COND]=VALUE",
              help="Exit 1 when a pass rate (or mean) is below VALUE (repeatable).")
@click.option("--baseline", metavar="COND",
              help="Compare the other conditions with COND (default: the first condition).")
@click.option("--fail-on-regression", is_flag=True,
              help="Exit 1 when any metric dropped significantly since the previous run.")
@click.option("--junit", type=OutputFile("junit.xml"),
              help="Also write JUnit XML here: a test per case and condition, and the gates.")
@click.option("--no-progress", is_flag=True,
              help="Show no progress (by default: a live bar on a terminal, else a line "
                   "every 5 s, or every ASSAY_PROGRESS_SECONDS).")
@click.option("--quiet", "-q", is_flag=True,
              help="Print only the verdict, the warnings, the gates, errors and where the "
                   "reports are.")
@click.option("--verbose", "-v", is_flag=True,
              help="Also print each comparison's method and the calls and cost per model.")
def command(configs: tuple[str, ...], store_url: str | None, resume: str | None,
            retry_errors: bool, sample: int | None, epochs: int | None, concurrency: int | None,
            conditions: tuple[str, ...], no_cache: bool, output: str | None,
            fail_under: tuple[str, ...], baseline: str | None, fail_on_regression: bool,
            junit: str | None, no_progress: bool, quiet: bool, verbose: bool) -> None:
    """Run the eval described by CONFIG (a YAML file) and report.

    Several configs, globs or a suite file (a YAML file with a `suite:` list of
    configs) run one after the other and end with a grand summary in suite.json.

    Exit codes: 0 all gates pass, 1 a gate failed, 2 bad config, dataset or
    arguments, 3 the run could not complete (for a suite: the worst of its runs),
    130 interrupted by Ctrl-C or SIGTERM (the trials stored are kept; --resume goes on).
    """
    from assay.cli.termination import decided
    from assay.runner.heap import collector_off_for_start_up

    click.get_current_context().with_resource(collector_off_for_start_up())  # see runner.heap
    from assay.api.review_checks import check_suite_reviewable
    from assay.api.suite_runs import suite_held
    from assay.api.suite_start import suite_resume_command, suite_started
    from assay.config.suite_file import expand_configs
    from assay.errors import UserError
    from assay.review.finish import ReviewRequest
    from assay.review.gates import parse_fail_under
    from assay.runner.options import RunOptions
    from assay.runner.preflight import preflight_suite

    if quiet and verbose:
        raise UserError("--quiet and --verbose cannot be used together")
    detail: Detail = "quiet" if quiet else "verbose" if verbose else "normal"
    if retry_errors and not resume:
        raise UserError("--retry-errors runs the errored trials of a stopped run again: "
                        "give it with --resume (for example --resume --retry-errors)")
    check_output_file(junit, "--junit")  # before a trial is paid for, as -o is
    paths, is_suite = expand_configs(configs)
    options = RunOptions(
        resume=True if resume == "latest" else resume, retry_errors=retry_errors,
        sample=sample, epochs=epochs, concurrency=concurrency,
        conditions=list(conditions) or None, use_cache=not no_cache,
        progress=not (no_progress or quiet), store_words=store_given(store_url))
    request = ReviewRequest(
        extra_gates=[parse_fail_under(spec) for spec in fail_under], baseline=baseline,
        fail_on_regression=fail_on_regression,
        output=Path(output) if output and not is_suite else None,
        output_parent=Path(output) if output and is_suite else None,
        junit=Path(junit) if junit and not is_suite else None, from_command_line=True)
    suite = []
    if is_suite:  # every config is checked before the first one spends anything
        suite = preflight_suite(paths, sample=sample, conditions=list(conditions) or None,
                                store_url=store_url, store_words=options.store_words)
    store = open_store(store_url)
    out = console()
    # the config being run and the store it is on, for what to say after Ctrl-C
    running = Running(paths[0], store_words=options.store_words)
    try:
        if not is_suite:
            exit_code = _run_one(running, store, options, request, out, detail)
        else:
            started = suite_started(store, configs, suite, options, resume,
                                    Path(output) if output else None)
            if started.note:
                click.echo(started.note, err=True)
            options = started.options
            request = replace(request, output_parent=started.runs_folder)
            running.suite_command = suite_resume_command(configs, options.store_words)
            check_suite_reviewable(suite, store, options, request)
            with suite_held(store, started.record):
                exit_code = _run_suite(suite, running, store, options, request, out, detail,
                                       started=started, junit=Path(junit) if junit else None)
        decided(exit_code)
    except KeyboardInterrupt:
        said, exit_code = after_ctrl_c(store, running, suite=is_suite)
        decided(exit_code)
        click.echo(said, err=True)
        sys.exit(exit_code)
    finally:
        store.close()
    sys.exit(exit_code)


@dataclass
class Running:
    """The config `assay run` works on, and the run this command holds. Never the
    experiment's latest run: with two `assay run`s of one experiment at once (two CI jobs on
    one store), that is the other's, and a cancelled job exited 0 with its verdict."""

    path: Path
    store: Store | None = None
    run_id: str | None = None
    """The run this command holds (new or resumed), once it holds one."""
    before: str | None = None
    """That run's `finished_at` when this command took it (None for a new run)."""
    store_words: str = ""
    """` --store URL` when the command line named the store (see `store_given`)."""
    suite_command: str | None = None
    """The command that resumes the suite this command runs (None: it runs one config)."""

    def resume_command(self, run_id: str) -> str:
        """The command that resumes `run_id`: this config, on this command's store."""
        return f"assay run {shlex.quote(str(self.path))} --resume {run_id}{self.store_words}"

    def stopped_command(self, run_id: str) -> str:
        """The command that goes on after this command stopped in `run_id`: of a suite, the
        suite's resume, which resumes that run and runs the configs after it."""
        return self.suite_command or self.resume_command(run_id)

    def hold(self, run_id: str) -> None:
        """`RunOptions.on_run`: remember the run and how it had ended before."""
        run = self.store.get_run(run_id) if self.store is not None else None
        self.run_id, self.before = run_id, run.finished_at if run else None


def _run_one(running: Running, store: Store, options: RunOptions, request: ReviewRequest,
             out: Any, detail: Detail) -> int:
    """Run and review one config, print it; 0 when every gate passed, else 1."""
    from assay.config import load_config
    from assay.reports.terminal import print_review
    from assay.store.run_ending import left_unfinished

    loaded = load_config(running.path)
    unfinished = None if options.resume else left_unfinished(store, loaded.name)
    review = _run(running, store, loaded, options, request, unfinished)
    print_review(out, review, detail=detail)
    return 0 if review.passed else 1


def _run(running: Running, store: Store, loaded: LoadedConfig, options: RunOptions,
         request: ReviewRequest, unfinished: Unfinished | None) -> Any:
    """`run_config`, with how to resume the run when it could not finish. `unfinished` is
    the experiment's run left unfinished, read before the new run exists, said once the new
    run has passed its checks (not above a refusal)."""
    from assay.api.running import run_config
    from assay.errors import CostBudgetSpent, RunFailed, StoreError

    running.store, running.run_id, running.before = store, None, None
    note = "" if options.resume else unfinished_note(running, unfinished, loaded.hash)

    def started(run_id: str) -> None:
        if note:
            click.echo(note, err=True)
        running.hold(run_id)

    try:
        return run_config(loaded, store, replace(options, on_run=started), request)
    except RunFailed as exc:
        unfinished = store.get_run(running.run_id) if running.run_id is not None else None
        hint = ""
        if unfinished and unfinished.status != "completed":
            resume = running.stopped_command(unfinished.id)
            hint = (f"\n  raise run.max_cost_usd in {running.path}, then resume with: {resume}"
                    if isinstance(exc, CostBudgetSpent) else
                    f"\n  resume with: {resume} (add --retry-errors to run its failed trials "
                    "again)")
        raise RunFailed(f"{exc}{hint}") from None
    except StoreError as exc:
        if exc.run_id is None:
            raise
        raise StoreError(f"{exc}\n  run {exc.run_id} keeps the trials stored before; once the "
                         f"store works again, resume with: "
                         f"{running.stopped_command(exc.run_id)}") from None


def _run_suite(suite: list[tuple[Path, LoadedConfig]], running: Running, store: Store,
               options: RunOptions, request: ReviewRequest, out: Any, detail: Detail, *,
               started: SuiteStart, junit: Path | None) -> int:
    """Run every config, as the suite's checks loaded it, keep going past one that fails, end
    with the summary; of a resumed suite, each config's completed run is reviewed again, its
    stopped run resumed."""
    from assay.errors import AssayError
    from assay.reports.console import print_rule
    from assay.reports.suite import print_grand_summary
    from assay.reports.terminal import print_review
    from assay.reports.text import markup_free as escape
    from assay.review.suite import entry_of, write_suite
    from assay.wording import path_text, plural

    entries: list[SuiteEntry] = []
    reviews: list[Review] = []

    def completed(path: Path, review: Review) -> None:
        reviews.append(review)
        entries.append(entry_of(path, 0 if review.passed else 1, review))

    paths = [path for path, _ in suite]
    for index, (path, loaded) in enumerate(suite, 1):
        running.path = path
        print_rule(out, f"[bold]{escape(str(path))}[/bold] ({index}/{len(paths)})")
        review: Review | None = None
        try:
            try:
                review = _run(running, store, loaded, started.options_for(path), request,
                              started.unfinished_for(loaded.name))
            finally:  # refused before its run started: the next config of it says the note
                if running.run_id is not None:
                    started.held_run_of(loaded.name)
            print_review(out, review, detail=detail)
        except AssayError as exc:
            out.print(f"[red]error:[/red] {escape(f'{path_text(path)}: {exc}')}")
            entries.append(entry_of(path, exc.exit_code, error=str(exc)))
            continue
        except KeyboardInterrupt:
            # the suite's files (and JUnit) say what ran and where it stopped, in place of
            # an earlier suite's that would pass for this one's; a run that completed before
            # the Ctrl-C (while its review was printed) counts as run
            if review is None:
                entries.append(entry_of(path, 130, error="interrupted by the user"))
            else:
                completed(path, review)
            entries += [entry_of(later, 130, error=f"not run: the suite was interrupted "
                                                    f"at {path}") for later in paths[index:]]
            _, target = write_suite(store, entries, reviews, sample=options.sample,
                                    output=started.folder, junit=junit)
            not_run = f"; {plural(len(paths) - index, 'config')} not run" \
                if index < len(paths) else ""
            out.print(f"suite:   {escape(path_text(target))} (interrupted at "
                      f"{escape(path_text(path))}{not_run})")
            raise
        completed(path, review)
    document, target = write_suite(store, entries, reviews, sample=options.sample,
                                   output=started.folder, junit=junit)
    print_rule(out, "[bold]suite[/bold]")
    print_grand_summary(out, document)
    out.print(escape(f"suite:   {path_text(target)}\n"
                     f"report:  {path_text(target.with_name('suite.md'))}"))
    if junit is not None:
        out.print(escape(f"junit:   {path_text(junit)}"))
    return int(document["exit_code"])


def unfinished_note(running: Running, unfinished: Unfinished | None, config_hash: str) -> str:
    """One line when the experiment's latest run did not finish and no live process holds it
    (`left_unfinished`: killed with kill -9, stopped by Ctrl-C or an error): a new run starts
    beside it, and without this line the unfinished one would be forgotten. The resume
    command is offered only when this config (`config_hash`) can resume it."""
    if unfinished is None:
        return ""
    run = unfinished.run
    instead = (f"`{running.resume_command(run.id)}` continues that one instead"
               if run.config_hash == config_hash else
               "that one was started with another config (or ${VAR} values), which "
               "this one cannot resume")
    return (f"note: the previous run {run.id} of '{run.experiment}' did not finish "
            f"({unfinished.how}; {unfinished.stored_trials} stored); this is a new run: "
            f"{instead}")


def after_ctrl_c(store: Store, running: Running, *, suite: bool = False) -> tuple[str, int]:
    """What to say after Ctrl-C or SIGTERM, and the exit code, from one read of the run this
    command holds:
    - stored `completed` by this command (the signal came while its results were printed,
      or the process shut down): the run is not interrupted, and the exit code is its
      gates' verdict (a suite's runs are not looked at: it is interrupted);
    - stored `interrupted`, or any run of a suite: 130, and how to resume it (of a suite,
      the suite's resume, which goes on from where it stopped);
    - the store does not answer (a PostgreSQL server that stopped): 130, and that too."""
    from assay.errors import StoreError
    from assay.review.recorded import RecordedReview

    try:
        run = store.get_run(running.run_id) if running.run_id is not None else None
    except StoreError as exc:
        resume = (f"; once the store works again, resume with: "
                  f"{running.stopped_command(running.run_id)}" if running.run_id else "")
        return f"interrupted; {exc}, so the run is not marked interrupted{resume}", INTERRUPTED
    if run is None:
        return "interrupted", INTERRUPTED
    recorded = RecordedReview.of(run) if run.status == "completed" and not suite else None
    if recorded is not None and running.before != run.finished_at:  # completed just now
        return ((f"interrupted after run {run.id} completed: every trial and file is written "
                f"(`assay report {run.id}` shows it)"),
                0 if all(gate.passed for gate in recorded.gates) else 1)
    if run.status == "interrupted" or (suite and running.suite_command is not None):
        return f"interrupted; resume with: {running.stopped_command(run.id)}", INTERRUPTED
    return "interrupted", INTERRUPTED
