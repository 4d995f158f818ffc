"""The stored trials of a run judged again, committed as they finish, under the run's error budget.

A rejudge calls no target, so only the judges can fail, and they fail
alike on every answer when the judge is unreachable, refuses every request
or the key is wrong. Such a rejudge must not end `completed` with a report
of nothing: like `assay run`, it stops with `RunFailed` (exit 3, status
`aborted`) when `run.max_consecutive_errors` answers in a row, or
`run.max_errors` in all, got no verdict, and when no answer got one at all.
Only trials with an answer count: one whose target failed in the original
run is copied as it was, never judged, and is no judge's failure.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from assay.errors import RunFailed
from assay.judging.batched_commits import BatchedCommits
from assay.judging.bounded import bounded_map
from assay.output import Usage
from assay.runner.pipeline import PipelineStats, trial_error, trial_unusable
from assay.trial import TrialKey, TrialResult
from assay.wording import plural, the_last

if TYPE_CHECKING:
    from assay.config.models import RunSettings
    from assay.judging.stored_config import StoredCases
    from assay.records import TrialRecord
    from assay.scorers.base import Scorer
    from assay.store import Store

@dataclass
class JudgeBudget:
    """When to give up on judges that keep failing (the run's own error budget)."""

    max_errors: int | None = None
    max_consecutive_errors: int | None = None

    @classmethod
    def of(cls, settings: RunSettings) -> JudgeBudget:
        return cls(settings.max_errors, settings.max_consecutive_errors)


@dataclass
class JudgeTally:
    """What the judges made of the answers so far; `stats` is what progress shows."""

    stats: PipelineStats = field(default_factory=PipelineStats)
    judged: int = 0
    """Trials with an answer handed to the judges."""
    unjudged: int = 0
    """Of those, trials where every judge failed."""

    def count(self, result: TrialResult, budget: JudgeBudget) -> None:
        """Count one committed trial; set `stats.stopped_reason` when the budget is spent."""
        stats = self.stats
        stats.done += 1
        if result.output.error is not None or not result.scores:
            return  # not judged: nothing the judges could fail at
        self.judged += 1
        error = trial_error(result)
        if error is None:
            stats.consecutive_errors = 0
            return
        stats.errors += 1
        stats.consecutive_errors += 1
        stats.first_error = stats.first_error or error
        if trial_unusable(result):
            self.unjudged += 1
        if stats.stopped_reason:
            return
        if (budget.max_consecutive_errors is not None
                and stats.consecutive_errors >= budget.max_consecutive_errors):
            stats.stopped_reason = (
                f"the judges failed on {the_last(stats.consecutive_errors, 'answer')} "
                f"(run.max_consecutive_errors = {budget.max_consecutive_errors}); "
                f"latest error: {error[:300]}")
        elif budget.max_errors is not None and stats.errors >= budget.max_errors:
            stats.stopped_reason = (
                f"error budget reached: the judges failed on {plural(stats.errors, 'answer')} "
                f"(run.max_errors = {budget.max_errors}); first error: "
                f"{(stats.first_error or '')[:300]}")

    def nothing_judged(self) -> str | None:
        """Why the rejudge has no verdict at all, when that is so."""
        if self.judged and self.unjudged == self.judged:
            return (f"the judges failed on every answer ({self.unjudged} of {self.judged}), "
                    f"so there is no verdict; first error: {(self.stats.first_error or '')[:300]}")
        return None


Judge = Callable[["TrialRecord"], Awaitable[TrialResult]]


async def judge_stored_trials(store: Store, source_run: str, run_id: str, judge: Judge, *,
                              skip: set[TrialKey], concurrency: int, batch_size: int,
                              budget: JudgeBudget, commit_check: Callable[[], None],
                              on_committed: Callable[[PipelineStats], None]) -> JudgeTally:
    """Judge every stored trial of `source_run` not in `skip`, storing each result in
    `run_id`; raises `RunFailed` when the judges keep failing (what finished is stored)."""
    tally = JudgeTally()

    def commit(batch: list[TrialResult]) -> None:
        commit_check()
        store.write_trials(run_id, batch)
        for result in batch:
            tally.count(result, budget)
        on_committed(tally.stats)

    results_kept = BatchedCommits(commit, size=batch_size)
    pending = (trial for trial in store.iter_trials(source_run) if trial.key not in skip)
    try:  # closed on leaving, so no judge call is still in flight once the budget is spent
        async with aclosing(bounded_map(pending, judge, concurrency=concurrency)) as results:
            async for _trial, result in results:
                if results_kept.add(result) and tally.stats.stopped_reason:
                    break
    finally:
        results_kept.flush()  # what finished is kept, even on Ctrl-C or an error
    reason = tally.stats.stopped_reason or tally.nothing_judged()
    if reason:
        raise RunFailed(reason)
    return tally


def judging_stored(judges: list[Scorer], cases: StoredCases, timeout: float | None) -> Judge:
    """The judging of one stored trial: its answer handed to the judges that scored it in
    the original run, under its epoch (each epoch is its own sample, in the cache too).
    The trial keeps its answer but not its usage: no target was called, so none was spent."""
    from assay.providers.cache import trial_epoch
    from assay.runner.trial import score_output

    per_trial = [judge for judge in judges if not getattr(judge, "deferred", False)]

    async def judge(trial: TrialRecord) -> TrialResult:
        case = cases.case_of(trial)
        scores = {}
        if trial.error is None and per_trial:
            wanted = [j for j in per_trial if j.name in trial.scores]
            with trial_epoch(trial.epoch, trial.key):  # the trial pays for its asks
                scores = await score_output(wanted, case, trial.output, timeout)
        trial.output.usage = Usage()
        return TrialResult(case=case, condition=trial.condition, epoch=trial.epoch,
                           output=trial.output, scores=scores)

    return judge
