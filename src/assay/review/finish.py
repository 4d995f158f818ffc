"""After a run: summary, condition comparisons, the previous-run diff, gates, then the files.

`assay run`, suites and `assay.evaluate` all end with `finish_run`, so a run
reads the same whichever way it was started; `assay report` rebuilds the
same review of a stored run with `review_stored`. The run is marked
`completed` only once its files are written: a run killed while writing
them stays `reviewing`, and `--resume` reviews it again.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from assay.review.comparing import compare_run_conditions, diff_with_previous
from assay.review.files import write_reports
from assay.review.gates import Gate, regression_gates, regression_results, threshold_results
from assay.review.judges import JudgeReview, review_judges
from assay.review.result import Review
from assay.review.summary import stored_order, summarize_run

if TYPE_CHECKING:
    from assay.analysis.summary import RunSummary
    from assay.records import RunRecord
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

    def directory(self, run_id: str) -> Path:
        return self.output or (self.output_parent or DEFAULT_RUNS_DIR) / run_id


def prepare(store: Store, experiment: str, gates: list[Gate], request: ReviewRequest) -> None:
    """Check, before any trial is paid for, what the review will need (named baseline runs)."""
    regression_gates([*gates, *request.extra_gates], store, experiment,
                     fail_on_any=request.fail_on_regression)


def finish_run(store: Store, outcome: RunOutcome, request: ReviewRequest) -> Review:
    """Review a run whose trials are all stored, write its files, and mark it completed."""
    gates = [*outcome.config.gates, *request.extra_gates]
    summary = summarize_run(store, outcome.run.id, scorers=outcome.scorers,
                            conditions=outcome.conditions)
    judges = review_judges(store, outcome.run, summary.condition_names)
    summary = without_pair_baselines(summary, judges)
    store.update_run(outcome.run.id, summary=summary.to_dict())
    run = replace(outcome.run, summary=summary.to_dict())
    results = threshold_results(gates, summary)
    comparisons = compare_run_conditions(store, run, conditions=summary.condition_names,
                                         scorers=summary.scorer_names, baseline=request.baseline,
                                         exclude=pair_scorers(judges))
    previous = diff_with_previous(store, run)
    regressions = regression_gates(gates, store, run.experiment,
                                   fail_on_any=request.fail_on_regression)
    results += regression_results(regressions, store, run, previous)
    # The files describe the run as it will be once they are written: completed.
    review = Review(run=replace(run, status=COMPLETED),
                    summary=summary, comparisons=comparisons, previous=previous, gates=results,
                    warnings=list(outcome.warnings), usage=dict(outcome.usage),
                    exports=store.exports(run.id), judges=judges)
    if request.write_files:
        review.files = write_reports(store, review, request.directory(run.id),
                                     junit=request.junit)
    store.update_run(run.id, status=COMPLETED)
    return review


def review_stored(store: Store, run: RunRecord) -> Review:
    """The review of a stored run, as `assay report` renders it.

    Threshold gates are judged again from the run's stored config. Regression
    gates are not: they depend on which runs existed when it ran.
    """
    from assay.config.models import GateConfig

    scorers, conditions = stored_order(run)
    summary = summarize_run(store, run.id, scorers=scorers, conditions=conditions)
    items = ((run.config or {}).get("gates") or []) if isinstance(run.config, dict) else []
    gates = [GateConfig.model_validate(item) for item in items
             if isinstance(item, dict) and "regression" not in item]
    judges = review_judges(store, run, summary.condition_names)
    summary = without_pair_baselines(summary, judges)
    comparisons = compare_run_conditions(store, run, conditions=summary.condition_names,
                                         scorers=summary.scorer_names,
                                         exclude=pair_scorers(judges))
    previous = diff_with_previous(store, run) if run.kind in ("eval", "rejudge") else None
    return Review(run=run, summary=summary, comparisons=comparisons, previous=previous,
                  gates=threshold_results(list(gates), summary), exports=store.exports(run.id),
                  judges=judges)


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
