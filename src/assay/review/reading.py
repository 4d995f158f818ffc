"""One read of a finished run's stored trials, for everything its review takes from them.

The summary, the per-case tables that comparisons pair, and the parts of the
three files all come from the same pass over `Store.iter_trials`: a
100k-trial run is read once, not once for its scores, once for its trials
and once more for its files. The files' head (summary, gates, comparisons)
is known only after the last trial, so the trials' part of each file waits
in a temporary file until then (see `ReportParts`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from assay.analysis.conditions import CaseCollector, ScorerCases
from assay.analysis.summary import RunSummary, SummaryBuilder
from assay.review.judges import JudgedScores

if TYPE_CHECKING:
    from collections.abc import Callable

    from assay.records import TrialRecord
    from assay.review.files import ReportParts
    from assay.store import Store


@dataclass
class TrialsRead:
    """What one pass over a run's trials gathered."""

    summary: RunSummary
    cases: dict[str, ScorerCases] | None
    """Every scorer's per-case values, when the pass was asked to keep them."""
    parts: ReportParts | None
    """The files' parts, when a directory was given; they hold a temporary file until
    written (`review.files.write_parts`) or closed."""
    judged: JudgedScores
    """The judged scores, for the review of the run's judges."""


def read_trials(store: Store, run_id: str, *, scorers: list[str], conditions: list[str],
                keep_cases: bool, directory: Path | None, epochs: int | None,
                also: Callable[[TrialRecord], None] | None = None) -> TrialsRead:
    """Read the run's trials once, feeding the summary (scorers and conditions in the given
    order), the per-case tables when `keep_cases`, the files' parts for `directory`
    (which name each trial's epoch of the run's `epochs`), and `also` when given."""
    from assay.reports.html_trials import TextCaps, TrialData
    from assay.review.files import ReportParts

    builder = SummaryBuilder(list(scorers) or None, list(conditions) or None,
                             per_case=store.epochs(run_id) > 1)
    collector = CaseCollector() if keep_cases else None
    judged = JudgedScores(epochs)
    parts = None
    if directory is not None:
        total, _ = store.count_trials(run_id)
        parts = ReportParts(directory, TrialData(scorers, conditions, epochs=epochs,
                                                 caps=TextCaps.for_trials(total)))
    try:
        for trial in store.iter_trials(run_id):
            builder.add_record(trial)
            judged.add(trial)
            if collector is not None:
                collector.add_scores(trial)
                if trial.output.error:
                    collector.add_failed(trial)
            if parts is not None:
                parts.add(trial)
            if also is not None:
                also(trial)
    except BaseException:
        if parts is not None:
            parts.close()
        raise
    return TrialsRead(builder.summary(), None if collector is None else collector.cases(), parts,
                      judged)
