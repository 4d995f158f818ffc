"""A stored run's summary: its score and trial rows aggregated, in the order the run reported."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from assay.analysis.conditions import CaseCollector
from assay.analysis.summary import RunSummary, summarize
from assay.records import RunRecord, ScoreRow, TrialRow
from assay.shown_numbers import count

T = TypeVar("T")

if TYPE_CHECKING:
    from assay.store import Store


def summarize_run(store: Store, run_id: str, *, scorers: Sequence[str] | None = None,
                  conditions: Sequence[str] | None = None,
                  cases: CaseCollector | None = None) -> RunSummary:
    """The summary of a stored run; scorers and conditions in the given (config's) order.

    `cases`, when given, gathers the run's per-case values from the same rows, so a
    command that both summarises and compares a run reads its rows once."""
    trials: Iterable[TrialRow] = store.iter_trial_rows(run_id)
    rows: Iterable[ScoreRow] = store.iter_score_rows(run_id)
    if cases is not None:
        trials = _feeding(trials, lambda trial: cases.add_failed(trial) if trial.error else None)
        rows = _feeding(rows, cases.add_score)
    return summarize(rows, trials, list(scorers) if scorers else None,
                     list(conditions) if conditions else None,
                     per_case=store.epochs(run_id) > 1)


def _feeding(items: Iterable[T], add: Callable[[T], object]) -> Iterator[T]:
    """`items`, each also handed to `add` as it passes (one pass feeds two readers)."""
    for item in items:
        add(item)
        yield item


ERRORS_IN_REPORT_MD = "see Errors in report.md"
"""Where a warning's reader finds every error, for a run that has written its report.md."""


def unmeasured_warnings(summary: RunSummary, *, report_md: bool) -> list[str]:
    """What the run measured nothing with or under, said out loud: conditions, then scorers.
    With `report_md` (the run has one) each points at the Errors listed there; a run stopped
    before its files were written has none to point at."""
    return [*condition_warnings(summary, report_md=report_md),
            *scorer_warnings(summary, report_md=report_md)]


def _why(first: str | None, *, report_md: bool) -> str:
    """` (first: X; see Errors in report.md)`, or what of it there is."""
    parts = ([f"first: {first}"] if first else []) + ([ERRORS_IN_REPORT_MD] if report_md else [])
    return f" ({'; '.join(parts)})" if parts else ""


def condition_warnings(summary: RunSummary, *, report_md: bool) -> list[str]:
    """A condition none of whose trials gave a verdict (the target failed, or every scorer
    did: the store's `conditions_without_verdict`): its rows of dashes and "not compared"
    lines are easy to miss beside the others' results. A run stops on it (exit 3,
    `runner.session`); a run that ended so is reported with this warning."""
    if not summary.scorer_names:
        return []
    valued = {s.condition for s in summary.scores if s.n}
    warnings = []
    for c in summary.conditions:
        if c.trials and c.condition not in valued:
            first = next(iter(c.error_examples), None) or next(
                (example for failures in summary.scorer_failures.values()
                 for example in failures.examples if f"({c.condition}):" in example), None)
            warnings.append(f"condition {c.condition} has no result: all {count(c.trials)} of its "
                            f"trials failed"
                            f"{_why(first or 'no error kept', report_md=report_md)}")
    return warnings


def scorer_warnings(summary: RunSummary, *, report_md: bool) -> list[str]:
    """A scorer with no value anywhere in the run (it errored on every trial) is said out
    loud: its row of dashes alone is easy to miss. A run, resumed or not, and a rejudge
    stop on it (exit 3, `runner.session.require_measures`); a run stored before that rule
    can still end with one. Only the trials
    with an answer are counted: one whose target failed gave the scorer nothing to score,
    and the trial warnings already count it."""
    unanswered = {c.condition: c.errors for c in summary.conditions}
    warnings = []
    for name in summary.scorer_names:
        cells = [s for s in summary.scores if s.scorer == name]
        own = sum(s.errors - unanswered.get(s.condition, 0) for s in cells)
        if own > 0 and not any(s.n for s in cells):
            failures = summary.scorer_failures.get(name)
            first = failures.examples[0] if failures and failures.examples else None
            warnings.append(f"scorer {name} has no value: it errored on all {own} of its "
                            f"trials with an answer{_why(first, report_md=report_md)}")
    return warnings


def stored_order(run: RunRecord) -> tuple[list[str], list[str]]:
    """The scorers and conditions in the order the run's stored summary lists them."""
    stored = run.summary if isinstance(run.summary, dict) else {}
    scorers = list(dict.fromkeys(str(s.get("scorer")) for s in stored.get("scores") or []
                                 if isinstance(s, dict)))
    conditions = [str(c.get("condition")) for c in stored.get("conditions") or []
                  if isinstance(c, dict)]
    return scorers, conditions


def review_order(store: Store, run: RunRecord) -> tuple[list[str], list[str]]:
    """The scorers and conditions in the order every view of the run lists them, its first
    condition the baseline its conditions are compared with: the stored summary's order; for
    a run stopped before it was summarised, the conditions it stored trials under and its
    scorers in its config's order, as the run would have listed them had it completed (not
    the order their trials happened to be written in, nor by name)."""
    scorers, conditions = stored_order(run)
    if conditions:
        return scorers, conditions
    listed = (run.config or {}).get("conditions") if isinstance(run.config, dict) else None
    configured = [str(name) for name in listed] if isinstance(listed, dict | list) else []
    present = sorted(store.condition_counts(run.id))
    return _scorers_else_configured(run, scorers), sorted(present, key=lambda name: (
        configured.index(name) if name in configured else len(configured)))


def scorer_order(run: RunRecord) -> list[str]:
    """The scorers in the order every view of the run lists them: the stored summary's; for
    an eval run stopped before it was summarised, its config's, as it would have listed them
    had it completed (not by name)."""
    return _scorers_else_configured(run, stored_order(run)[0])


def _scorers_else_configured(run: RunRecord, stored: list[str]) -> list[str]:
    if stored or run.kind != "eval":  # a rejudge's scorers are its judges, not its config's
        return stored
    return list(configured_scorers(run))


def configured_scorers(run: RunRecord) -> dict[str, dict[str, Any]]:
    """Each scorer spec of the run's stored config as written, by name (`name`, else
    `type`), in the config's order."""
    listed = run.config.get("scorers") if isinstance(run.config, dict) else None
    return {str(spec.get("name") or spec.get("type")): spec
            for spec in (listed if isinstance(listed, list) else [])
            if isinstance(spec, dict) and (spec.get("name") or spec.get("type"))}
