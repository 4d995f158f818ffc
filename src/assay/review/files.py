"""A reviewed run's files: `results.json`, `report.md`, `report.html`, and JUnit when asked.

The three files come from one pass over the stored trials, streamed: the
trials go into `results.json` as they are read, while the failure list and
the replayed answers worse than recorded of `report.md`, and the trials of
`report.html`, are fed from the same pass.
Every file is written atomically (see `reports.atomic`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from assay.reports.atomic import atomic_writer, write_text
from assay.review.result import ReportFiles, Review

if TYPE_CHECKING:
    from assay.records import TrialRecord
    from assay.store import Store


def write_reports(store: Store, review: Review, directory: Path, *,
                  junit: Path | None = None) -> ReportFiles:
    """Write the run's files into `directory` (and JUnit XML to `junit`); returns their paths."""
    from assay.reports.html import trial_data, write_html
    from assay.reports.markdown import FailureList, render_markdown
    from assay.reports.recorded import RecordedComparisons, worse_than_recorded_markdown
    from assay.reports.results_json import write_results_json

    run = review.run
    failures = FailureList()
    recorded = RecordedComparisons()
    page_trials = trial_data(review)

    def trials() -> Iterator[TrialRecord]:
        for trial in store.iter_trials(run.id):
            failures.add(trial)
            recorded.add(trial)
            page_trials.add(trial)
            yield trial

    files = ReportFiles(directory=directory, results=directory / "results.json",
                        markdown=directory / "report.md", html=directory / "report.html",
                        junit=junit)
    with atomic_writer(files.results) as handle:
        write_results_json(handle, review, trials())
    write_text(files.markdown, _joined(render_markdown(review, failures),
                                       worse_than_recorded_markdown(recorded)))
    with atomic_writer(files.html) as handle:
        write_html(handle, review, page_trials)
    if junit is not None:
        from assay.reports.junit import render_junit

        write_text(junit, render_junit(run, store.iter_trials(run.id), review.gates))
    return files


def _joined(report: str, *sections: str) -> str:
    """`report.md` with the sections that have something to say appended."""
    return "\n".join([report.rstrip("\n"), *(s.rstrip("\n") for s in sections if s)]) + "\n"
