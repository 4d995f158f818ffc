"""Run one config from the command line: execute, compare, write files, print, judge the gates."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.errors import RunFailed, UserError
from assay.runner.options import RunOptions


@dataclass
class RunRequest:
    """One config to run from the command line: the run's options plus what only the CLI does
    with a finished run (where its files go, the baseline condition, regression gates, JUnit)."""

    config: Path
    options: RunOptions = field(default_factory=RunOptions)
    output: Path | None = None
    output_parent: Path | None = None
    """Write the files into OUTPUT_PARENT/<run id>/ (a suite's --output)."""
    baseline: str | None = None
    """The condition the others are compared with (the first condition when None)."""
    fail_on_regression: bool = False
    junit: Path | None = None


@dataclass
class RunDone:
    """What a finished run hands back to the command (and to a suite)."""

    exit_code: int
    outcome: Any
    gates: list[Any]
    output_dir: Path


def run_one(request: RunRequest, store: Any, out: Any) -> RunDone:
    """Run a config, compare it, write its files and return its exit code (1 a gate failed)."""
    from assay.config import load_config
    from assay.review.finish import print_review, regression_checks, review_run
    from assay.runner.session import execute

    loaded = load_config(request.config)
    options = request.options
    chosen = options.conditions or list(loaded.config.conditions)
    if request.baseline is not None and request.baseline not in chosen:
        raise UserError(f"--baseline '{request.baseline}' is not a condition of this run of "
                        f"{request.config} (conditions: {', '.join(chosen)})")
    regressions = regression_checks(loaded.config.gates, store, loaded.name,
                                    fail_on_regression=request.fail_on_regression)
    try:
        outcome = execute(loaded, store, options)
    except RunFailed as exc:
        unfinished = store.list_runs(loaded.name, limit=1)
        hint = ""
        if unfinished and unfinished[0].status != "completed":
            hint = f"\n  resume with: assay run {request.config} --resume {unfinished[0].id}"
        raise RunFailed(f"{exc}{hint}") from None
    run = outcome.run
    review = review_run(store, outcome, regressions, baseline=request.baseline)
    gates = review.gates
    output_dir = request.output or (request.output_parent or Path(".assay") / "runs") / run.id
    write_reports(store, outcome, output_dir, gates=gates, comparisons=review.comparisons,
                  previous=review.previous)
    if request.junit is not None:
        from assay.reports.junit import render_junit

        request.junit.parent.mkdir(parents=True, exist_ok=True)
        request.junit.write_text(render_junit(run, store.iter_trials(run.id), gates),
                                 encoding="utf-8")
    print_review(out, outcome, review)
    out.print(f"results: {output_dir / 'results.json'}\nreport:  {output_dir / 'report.md'}"
              f"\nhtml:    {output_dir / 'report.html'}")
    if request.junit is not None:
        out.print(f"junit:   {request.junit}")
    return RunDone(0 if review.passed else 1, outcome, gates, output_dir)


def write_reports(store: Any, outcome: Any, output_dir: Path, *, gates: list[Any] | None = None,
                  comparisons: Any = None, previous: Any = None) -> None:
    from assay.reports.comparisons import condition_comparisons_markdown
    from assay.reports.html import render_html
    from assay.reports.markdown import FailureList, render_markdown
    from assay.reports.results_json import write_results_json
    from assay.reports.run_diff import run_diff_markdown
    from assay.reports.trial_table import TrialSelector

    gates = list(outcome.gates) if gates is None else gates
    output_dir.mkdir(parents=True, exist_ok=True)
    run, summary = outcome.run, outcome.summary
    extra: dict[str, Any] = {"gates": [g.to_dict() for g in gates]}
    sections: list[str] = []
    if comparisons is not None:
        extra["comparisons"] = comparisons.to_dict()
        if comparisons.entries or comparisons.skipped:
            sections.append(condition_comparisons_markdown(comparisons))
    extra["previous_run"] = None if previous is None else previous.to_dict()
    if previous is not None:
        sections.append(run_diff_markdown(
            previous, title=f"Compared with the previous run `{previous.run_a.id}`"))
    # One pass over the stored trials feeds all three files.
    failures = FailureList()
    selector = TrialSelector(summary.scorer_names, summary.condition_names)

    def trials() -> Iterator[dict[str, Any]]:
        for trial in store.iter_trials(run.id):
            failures.add(trial)
            selector.add(trial)
            yield trial

    with (output_dir / "results.json").open("w", encoding="utf-8") as handle:
        write_results_json(handle, run, summary, trials(), extra=extra)
    markdown = render_markdown(run, summary, failures, gates=gates, sections=sections)
    (output_dir / "report.md").write_text(markdown, encoding="utf-8")
    page = render_html(run, summary, selector, gates=gates, comparisons=comparisons,
                       previous=previous)
    (output_dir / "report.html").write_text(page, encoding="utf-8")
