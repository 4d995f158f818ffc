"""After a run: summary, condition comparisons, the previous-run diff, gates, then the files.

`assay run`, suites and `assay.evaluate` all end with `finish_run`, so a run
reads the same whichever way it was started; `assay report` rebuilds the
same review of a stored run with `review_stored`, showing the gates the run
was judged by when it ended (`review.recorded`). The run is marked
`completed` only once its files are written: a run killed while writing
them stays `reviewing`, one stopped by an error or Ctrl-C is recorded
`failed` or `interrupted`, and `--resume` reviews either again. The folder of the
files is recorded on the run (`report_dir`), so `rewrite_files` (`assay
report RUN --rewrite`) and a resume write them again where they were.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from assay.analysis.conditions import CaseCollector
from assay.errors import AssayError, FileWriteError, UserError
from assay.records import TRIAL_KINDS
from assay.reports.atomic import ensure_writable_folder
from assay.review.comparing import (
    compare_run_conditions,
    diff_stored_runs,
    diff_with_previous,
    previous_run,
)
from assay.review.files import ReportParts, read_parts, write_parts, write_reports
from assay.review.gates import (
    Gate,
    check_thresholds,
    gate_bars,
    regression_gates,
    regression_results,
    stored_config_gates,
    threshold_results,
)
from assay.review.judges import JudgeReview, review_judges, review_stored_judges
from assay.review.reading import TrialsRead, read_trials
from assay.review.recorded import RecordedReview
from assay.review.result import GateResult, ReportFiles, Review
from assay.review.summary import review_order, summarize_run, unmeasured_warnings
from assay.store.stalled_runs import status_said
from assay.wording import part_of

if TYPE_CHECKING:
    from collections.abc import Callable

    from assay.analysis.conditions import ScorerCases
    from assay.analysis.run_diff import RunDiff
    from assay.analysis.summary import RunSummary
    from assay.records import JudgeIdentity, RunRecord, TrialRecord
    from assay.runner.session import RunOutcome
    from assay.store import Store

COMPLETED = "completed"
DEFAULT_RUNS_DIR = Path(".assay") / "runs"


@dataclass
class ReviewRequest:
    """What the caller asks of a review beyond the config: more gates, the baseline, files."""

    extra_gates: list[Gate] = field(default_factory=list)
    """Gates added to the config's own (`--fail-under`)."""
    baseline: str | None = None
    """The condition the others are compared with (the first condition when None)."""
    fail_on_regression: bool = False
    """Fail when any metric dropped significantly since the previous run."""
    output: Path | None = None
    """The directory for the run's files (default `.assay/runs/<run id>/`)."""
    output_parent: Path | None = None
    """Put the files in OUTPUT_PARENT/<run id>/ instead (a suite's `--output`)."""
    junit: Path | None = None
    write_files: bool = True
    from_command_line: bool = False
    """`extra_gates` and `baseline` are `assay run`'s `--fail-under` and `--baseline`: an
    error refusing one names the option (an `ArgumentError`), not a gate of the config."""

    def directory(self, run_id: str) -> Path:
        return self.output or (self.output_parent or DEFAULT_RUNS_DIR) / run_id

    def asked_report_dir(self, run_id: str) -> str | None:
        """The folder asked for the files (`--output`), absolute, or None for the default:
        kept on a new run from its start, so a resume that asks for none writes them there."""
        if not self.write_files or (self.output is None and self.output_parent is None):
            return None
        return str(self.directory(run_id).absolute())


def prepare(gates: list[Gate], request: ReviewRequest, *, scorers: list[str],
            conditions: list[str]) -> None:
    """Check, before any trial is paid for, what the review will need: gates on the run's
    scorers and conditions, and a folder the files can be written to (a config's regression
    baselines: `api.review_checks.baseline_problems`)."""
    check_thresholds(gates, scorers, conditions)
    check_thresholds(request.extra_gates, scorers, conditions,
                     given="--fail-under" if request.from_command_line else None)
    if request.write_files:
        for folder in (request.output, request.output_parent):
            if folder is not None:
                ensure_writable_folder(folder)


def finish_run(store: Store, outcome: RunOutcome, request: ReviewRequest) -> Review:
    """Review a run whose trials are all stored, write its files, and mark it completed.

    Whatever stops the review records the run as failed (or interrupted), never leaving it
    `reviewing`: `--resume` reviews it again. A completed run whose files are written again
    stays completed, as it ended, whatever becomes of them."""
    from assay.store.run_ending import ended_if_stopped

    if outcome.run.status == COMPLETED:
        return _finish(store, outcome, request)
    with ended_if_stopped(store, outcome.run.id):
        return _finish(store, outcome, request)


def _finish(store: Store, outcome: RunOutcome, request: ReviewRequest) -> Review:
    """`finish_run`. The stored trials are read once (`review.reading`), for the summary,
    the comparisons and the three files alike."""
    gates = [*outcome.config.gates, *request.extra_gates]
    directory = report_directory(outcome.run, request) if request.write_files else None
    try:
        read = read_trials(store, outcome.run.id, scorers=outcome.scorers,
                           conditions=outcome.conditions,
                           keep_cases=_compares(store, outcome, gates, request),
                           directory=directory, epochs=outcome.run.epochs)
        try:
            review = _concluded(store, outcome, request, read, gates)
            if read.parts is not None:
                parts = _page_checked(store, review, read.parts)
                review.files = write_parts(store, review, parts, junit=request.junit)
        finally:
            if read.parts is not None:
                read.parts.close()
    except FileWriteError as exc:
        config = outcome.run.config_path or "CONFIG"
        raise FileWriteError(f"{exc}. Every trial is stored; once it can be written, "
                             f"`assay run {config} --resume` writes the run's files") from None
    store.update_run(outcome.run.id, status=COMPLETED)
    return review


def _compares(store: Store, outcome: RunOutcome, gates: list[Gate],
              request: ReviewRequest) -> bool:
    """Whether the review pairs this run's cases: several conditions, a previous run to diff
    with, or a regression gate's baseline run."""
    if len(outcome.conditions) > 1 or previous_run(store, outcome.run) is not None:
        return True
    return any(gate.regression.baseline is not None for gate in regression_gates(
        gates, fail_on_any=request.fail_on_regression))


def _page_checked(store: Store, review: Review, parts: ReportParts) -> ReportParts:
    """The parts read with the files, or, when the run's scorers or conditions are not the
    config's (a resumed run that ran other conditions, a pairing scorer's baseline left
    out), read again so the page lists them as the summary does."""
    page = parts.page
    if (tuple(review.summary.scorer_names), tuple(review.summary.condition_names)) == \
            (page.initial_scorers, page.initial_conditions):
        return parts
    parts.close()
    return read_parts(store, review, parts.directory)


def _concluded(store: Store, outcome: RunOutcome, request: ReviewRequest, read: TrialsRead,
               gates: list[Gate]) -> Review:
    """The review of a run whose trials were just read: summary stored on the run first.

    The gates, warnings, usage and baseline are concluded once and recorded on the run
    before its files are written. A resume that ran no trial (its files were lost) reads
    them back rather than judge them again, and adds what its own command line asks for
    (`--fail-under`, `--fail-on-regression`, `--baseline`), so its exit code answers it."""
    concluded = RecordedReview.of(outcome.run) if outcome.stats.done == 0 else None
    baseline = request.baseline or (concluded.baseline if concluded else None)
    summary = read.summary
    judges = review_judges(store, outcome.run, summary.condition_names, read.judged)
    summary = without_pair_baselines(summary, judges)
    directory = read.parts.directory if read.parts is not None else None
    recorded = str(directory.absolute()) if directory else outcome.run.report_dir
    store.update_run(outcome.run.id, summary=summary.to_dict(), report_dir=recorded)
    run = replace(outcome.run, summary=summary.to_dict(), report_dir=recorded)
    cases = read.cases
    comparisons = compare_run_conditions(store, run, conditions=summary.condition_names,
                                         scorers=summary.scorer_names, baseline=baseline,
                                         exclude=pair_scorers(judges), cases=cases)
    previous = diff_with_previous(store, run, cases=cases)
    if concluded is None:
        results = _judged(gates, request, store, run, summary, previous, cases)
        unmeasured = unmeasured_warnings(summary, report_md=directory is not None)
        concluded = RecordedReview(results, [*outcome.warnings, *unmeasured],
                                   dict(outcome.usage), baseline, gate_bars(gates))
        store.update_run(run.id, review=concluded.to_dict())
    elif request.extra_gates or request.fail_on_regression or baseline != concluded.baseline:
        asked = _judged(list(request.extra_gates), request, store, run, summary, previous,
                        cases)
        concluded = concluded.adding(asked, baseline=baseline, bars=gate_bars(gates))
        store.update_run(run.id, review=concluded.to_dict())
    # The files describe the run as it will be once they are written: completed.
    return Review(run=replace(run, status=COMPLETED, review=concluded.to_dict()),
                  summary=summary, comparisons=comparisons, previous=previous,
                  gates=concluded.gates, warnings=concluded.warnings, usage=concluded.usage,
                  exports=store.exports(run.id), judges=judges, bars=gate_bars(gates))


def _judged(gates: list[Gate], request: ReviewRequest, store: Store, run: RunRecord,
            summary: RunSummary, previous: RunDiff | None,
            cases: dict[str, ScorerCases] | None) -> list[GateResult]:
    """The results of `gates` on this run: thresholds on its summary, regressions since the
    run before it."""
    results = threshold_results(gates, summary)
    regressions = regression_gates(gates, fail_on_any=request.fail_on_regression)
    return results + regression_results(regressions, store, run, previous, cases=cases)


def report_directory(run: RunRecord, request: ReviewRequest) -> Path:
    """Where the run's files go: where the caller asks, else where they were written before
    (a resumed run), else `.assay/runs/<run id>/`."""
    if request.output is None and request.output_parent is None and run.report_dir:
        return recorded_folder(run.report_dir)
    return request.directory(run.id)


def recorded_folder(report_dir: str) -> Path:
    """The folder a run recorded for its files (in full, so a resume from elsewhere finds
    it), from the working directory when it is under it: the resumed run names its files
    `.assay/runs/ID/report.md`, as the fresh run did."""
    folder = Path(report_dir)
    try:
        return folder.resolve().relative_to(Path.cwd().resolve())
    except (ValueError, OSError):  # elsewhere, or the working directory is gone
        return folder


def rewrite_files(store: Store, run: RunRecord) -> ReportFiles:
    """Write a completed run's files again, from the store, where they were written before.

    For files lost, damaged, or written by a version that wrote in place. The run is held
    (`RunLocked` when another process works on it); its files show what its review
    concluded when it ended, as `review_stored` does."""
    if run.status != COMPLETED:
        raise UserError(f"run {run.id} is {run.status}, not completed: its files are written "
                        f"when it is finished (assay run CONFIG --resume {run.id})")
    with store.run_lock() as lock:
        lock.acquire(run.id)
        review = review_stored(store, run)
        directory = recorded_folder(run.report_dir) if run.report_dir else DEFAULT_RUNS_DIR / run.id
        files = write_reports(store, review, directory)
        if run.report_dir is None:
            store.update_run(run.id, report_dir=str(directory.absolute()))
    return files


def write_stopped_junit(store: Store, run_id: str, junit: Path) -> None:
    """JUnit XML for a run that stopped before its end (`--junit` of an aborted or
    interrupted run): the trials it stored, its gates (none passed), and a testcase with
    what stopped it, in place of whatever an earlier run left at `junit`. When the store
    cannot be read either, that earlier file is removed rather than left to pass for this
    run's (the error that stopped the run is the one to tell)."""
    from assay.reports.atomic import atomic_writer
    from assay.reports.junit import write_junit

    try:
        run = store.get_run(run_id)
        if run is None:
            return
        scorers, conditions = review_order(store, run)
        summary = summarize_run(store, run.id, scorers=scorers, conditions=conditions)
        recorded = RecordedReview.of(run) or _judged_again(run, summary, status_said(store, run))
        with atomic_writer(junit) as handle:
            write_junit(handle, run, store.iter_trials(run.id), recorded.gates)
    except FileWriteError:
        raise
    except AssayError:
        junit.unlink(missing_ok=True)


def review_stored(store: Store, run: RunRecord, *,
                  also: Callable[[TrialRecord], None] | None = None) -> Review:
    """The review of a stored run, as `assay report` renders it.

    Its gates, warnings, usage and baseline are what its review recorded when it ended
    (`review.recorded`). A run reviewed before they were recorded has its config's threshold
    gates judged again; its regression gates and command-line gates are not known.
    The bars its score table's intervals are printed beside are its config's gates' (the
    record keeps a command-line gate's result, not its minimum).
    With `also`, the review comes from one pass over the run's whole trials, each handed to
    `also` as it passes (a report's trials part: the run is read once, not twice).
    """
    scorers, conditions = review_order(store, run)
    before = previous_run(store, run) if run.kind in TRIAL_KINDS else None
    keep_cases = len(conditions) > 1 or before is not None
    if also is None:
        summary, cases, judges, identities = _read_rows(store, run, scorers, conditions,
                                                        keep_cases=keep_cases)
    else:
        summary, cases, judges, identities = _read_whole(store, run, scorers, conditions,
                                                         keep_cases=keep_cases, also=also)
    summary = without_pair_baselines(summary, judges)
    said = None if run.status == COMPLETED else status_said(store, run)
    recorded = RecordedReview.of(run) or _judged_again(run, summary, said)
    comparisons = compare_run_conditions(store, run, conditions=summary.condition_names,
                                         scorers=summary.scorer_names,
                                         baseline=recorded.baseline,
                                         exclude=pair_scorers(judges), cases=cases)
    previous = None if before is None else diff_stored_runs(
        store, before, run, cases_b=cases, judges_b=identities)
    return Review(run=run, summary=summary, comparisons=comparisons, previous=previous,
                  gates=recorded.gates, warnings=recorded.warnings, usage=recorded.usage,
                  exports=store.exports(run.id), judges=judges,
                  bars=recorded.bars if recorded.bars is not None
                  else gate_bars(stored_config_gates(run).gates), status_said=said)


StoredRead = tuple["RunSummary", dict[str, "ScorerCases"] | None, JudgeReview,
                   dict[str, set["JudgeIdentity"]]]
"""A stored run's summary, per-case values (when kept), judges, and their identities."""


def _read_rows(store: Store, run: RunRecord, scorers: list[str], conditions: list[str], *,
               keep_cases: bool) -> StoredRead:
    """What `review_stored` takes from the run, from its score and trial rows: each row read
    once for its summary and its per-case values (the comparisons' and the diff's alike),
    its judged scores once for its judges and the diff's."""
    collector = CaseCollector() if keep_cases else None
    summary = summarize_run(store, run.id, scorers=scorers, conditions=conditions,
                            cases=collector)
    judges, identities = review_stored_judges(store, run, summary.condition_names)
    return summary, None if collector is None else collector.cases(), judges, identities


def _read_whole(store: Store, run: RunRecord, scorers: list[str], conditions: list[str], *,
                keep_cases: bool, also: Callable[[TrialRecord], None]) -> StoredRead:
    """What `review_stored` takes from the run, from one pass over its whole trials (as
    `assay run` reviews it), each also handed to `also`."""
    read = read_trials(store, run.id, scorers=scorers, conditions=conditions,
                       keep_cases=keep_cases, directory=None, epochs=run.epochs, also=also)
    judges = review_judges(store, run, read.summary.condition_names, read.judged)
    return read.summary, read.cases, judges, read.judged.identities


def _judged_again(run: RunRecord, summary: RunSummary, status: str | None) -> RecordedReview:
    """For a run with no recorded review: its config's threshold gates judged on `summary`.

    A run that did not complete (aborted, interrupted, failed) holds only the trials that
    ran before it stopped: its gates are shown on them, but none of them passed, and say
    why in its `status` as a sentence says it (`stalled_runs.status_said`; None for a
    completed run). A gate whose
    minimum the config stores as `${VAR}` fails, not judged: its value is not kept."""
    stored = stored_config_gates(run)
    results = threshold_results(list(stored.gates), summary)
    if run.status != COMPLETED:
        ran = sum(c.trials for c in summary.conditions)
        results = [replace(r, passed=False,
                           detail=f"{r.detail}; not passed: judged on the "
                                  f"{part_of(ran, run.total_trials, 'trial')} that ran, and "
                                  f"the run is {status}")
                   for r in results]
    # Only a completed run wrote its report.md (a stopped one never got that far).
    return RecordedReview(results + stored.unread, unmeasured_warnings(
        summary, report_md=run.status == COMPLETED and run.report_dir is not None))


def pair_scorers(judges: JudgeReview) -> list[str]:
    """Scorers that pair conditions: they are comparisons, not compared again."""
    return sorted({r.scorer for r in judges.findings.pairwise
                   if r.scorer is not None and r.label_a != "reference"})


def without_pair_baselines(summary: RunSummary, judges: JudgeReview) -> RunSummary:
    """The summary without the rows of a pairing scorer's baseline, which has no verdicts
    of its own (its answers are the other side of every pair)."""
    baselines = {(r.scorer, r.label_a) for r in judges.findings.pairwise}
    if not baselines:
        return summary
    return replace(summary, scores=[s for s in summary.scores
                                    if (s.scorer, s.condition) not in baselines])
