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
from typing import TYPE_CHECKING, Any

from assay.analysis.conditions import CaseCollector, ScorerCases
from assay.analysis.summary import RunSummary, SummaryBuilder
from assay.records import TrialRecord, TrialRow

if TYPE_CHECKING:
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


def read_trials(store: Store, run_id: str, *, scorers: list[str], conditions: list[str],
                keep_cases: bool, directory: Path | None) -> TrialsRead:
    """Read the run's trials once, feeding the summary (scorers and conditions in the given
    order), the per-case tables when `keep_cases`, and the files' parts for `directory`."""
    from assay.reports.html_trials import TextCaps, TrialData
    from assay.review.files import ReportParts

    builder = SummaryBuilder(list(scorers) or None, list(conditions) or None,
                             per_case=store.epochs(run_id) > 1)
    collector = CaseCollector() if keep_cases else None
    parts = None
    if directory is not None:
        total, _ = store.count_trials(run_id)
        parts = ReportParts(directory, TrialData(scorers, conditions,
                                                 caps=TextCaps.for_trials(total)))
    try:
        for trial in store.iter_trials(run_id):
            _tally(trial, builder, collector)
            if parts is not None:
                parts.add(trial)
    except BaseException:
        if parts is not None:
            parts.close()
        raise
    return TrialsRead(builder.summary(), None if collector is None else collector.cases(), parts)


def _tally(trial: TrialRecord, builder: SummaryBuilder, collector: CaseCollector | None) -> None:
    """Feed one trial, as its trial row and its scores, to the summary and the case tables."""
    row = trial_row_of(trial)
    builder.add_trial(row)
    builder.add_scores(trial)
    if collector is not None:
        collector.add_scores(trial)
        if row.error:
            collector.add_failed(row)


def trial_row_of(trial: TrialRecord) -> TrialRow:
    """The trial's figures without its texts, as `Store.iter_trial_rows` reads them."""
    output = trial.output
    usage = output.usage
    agent: Any = output.metadata.get("agent") if output.metadata else None
    if not isinstance(agent, dict):
        agent = {}
    return TrialRow(
        case_id=trial.case_id, condition=trial.condition, epoch=trial.epoch,
        error=output.error, latency_ms=output.latency_ms, input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens, cost_usd=usage.cost_usd,
        cache_hits=usage.cache_hits, tool_calls=int(agent.get("tool_calls") or 0),
        tool_errors=int(agent.get("tool_errors") or 0), turns=int(agent.get("turns") or 0))
