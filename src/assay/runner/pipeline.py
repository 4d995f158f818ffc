"""The bounded pipeline: answer, score, commit; `concurrency` trials in flight.

Workers pull trials from one shared generator, so nothing but the trials
in flight and the batches awaiting their commit is ever in memory. On a store
across a network a batch is committed in a thread while the next one fills
(`runner.commits`); either way a trial counts as done only once its batch is
committed. A trial that spends an error budget has its batch committed at
once, on the event loop, so the run stops there.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from assay.errors import CostBudgetSpent, RunFailed, StoreError
from assay.judging.batched_commits import FLUSH_SECONDS
from assay.providers.cache import trial_epoch
from assay.runner.commits import Commits
from assay.runner.plan import Plan
from assay.runner.trial import ScorerGroups, run_trial
from assay.trial import TrialKey, TrialResult
from assay.wording import plural, the_last
from assay.workers import WorkerPool, using

__all__ = ["PipelineStats", "run_pipeline", "run_trial", "trial_error", "trial_unusable"]

YIELD_SECONDS = 0.05
"""A worker whose trials never wait (a sync target run on the event loop with `threaded:
false`, and inline scorers) gives the loop a turn this often anyway: otherwise Ctrl-C, the
progress line and the other workers waited for the whole run."""


@dataclass
class PipelineStats:
    done: int = 0
    errors: int = 0
    """Trials with an error: the target's, or any scorer's."""
    unusable: int = 0
    """Trials that produced nothing to score: the target failed, or every scorer did."""
    consecutive_errors: int = 0
    first_error: str | None = None
    started: float = field(default_factory=time.monotonic)
    stopped_reason: str | None = None
    over_cost_budget: bool = False
    """The stop is `run.max_cost_usd`'s (raised as `CostBudgetSpent`)."""
    unscored: set[str] = field(default_factory=set)
    """Scorers that have given no value yet on a trial of this process."""
    scorer_errors: dict[str, int] = field(default_factory=dict)
    """Per scorer with no value yet: its errors on trials whose target answered. Not empty
    at the end means a scorer may have measured nothing (`runner.session` asks the store)."""
    scorer_failed: bool = False
    """A scorer errored on a trial whose target answered: a scorer may then have measured
    nothing under some condition (`runner.session` asks the store)."""
    without_verdict: set[str] = field(default_factory=set)
    """Conditions none of whose trials in this process has given a verdict yet. Not empty
    at the end means a condition may have measured nothing (`runner.session` asks the store)."""

    def count_scores(self, result: TrialResult) -> None:
        """Note which scorers gave a value, and the errors of those that have given none;
        nothing to do once every scorer has given one and one has failed."""
        if result.output.error:
            return
        if not self.scorer_failed:
            self.scorer_failed = any(s.error is not None for s in result.scores.values())
        if not self.unscored:
            return
        for name, score in result.scores.items():
            if score.error is None:
                self.unscored.discard(name)
                self.scorer_errors.pop(name, None)
            elif name in self.unscored:
                self.scorer_errors[name] = self.scorer_errors.get(name, 0) + 1

Commit = Callable[[list[TrialResult]], Mapping[TrialKey, str] | None]
"""Stores a batch; returns the trials stored as errors instead (the store refused their rows),
each with why."""
OnCommitted = Callable[[PipelineStats], None]


@dataclass
class _Batch:
    """Finished trials, whether each failed (`_failed`, worked out once as it finished), and
    their errors for the budgets."""

    results: list[TrialResult] = field(default_factory=list)
    failures: list[bool] = field(default_factory=list)
    pending: _PendingErrors = field(default_factory=lambda: _PendingErrors())

    def add(self, result: TrialResult, failed: bool) -> None:
        self.results.append(result)
        self.failures.append(failed)
        self.pending.add(failed)

    def put_back(self, earlier: _Batch) -> None:
        """`earlier`'s trials before these: its commit failed, and the last one tries again."""
        self.results[:0] = earlier.results
        self.failures[:0] = earlier.failures
        self.pending = self.pending.following(earlier.pending)


@dataclass
class _PendingErrors:
    """The errors among finished trials not yet committed, so a trial that spends the error
    budget is committed at once and the run stops there, not up to a batch later."""

    errors: int = 0
    streak: int = 0
    """Errors at the end of the buffer, in a row."""
    only_errors: bool = True
    """Every trial in the buffer failed, so the streak continues the committed one."""

    def add(self, failed: bool) -> None:
        self.errors += failed
        self.streak = self.streak + 1 if failed else 0
        self.only_errors = self.only_errors and failed

    def following(self, earlier: _PendingErrors | None) -> _PendingErrors:
        """These errors after those of `earlier` (a batch being committed), as one buffer."""
        if earlier is None:
            return self
        return _PendingErrors(earlier.errors + self.errors,
                              self.streak + (earlier.streak if self.only_errors else 0),
                              earlier.only_errors and self.only_errors)

    def reach(self, stats: PipelineStats, max_errors: int | None,
              max_consecutive: int | None) -> bool:
        """Whether committing now would stop the run on either error budget."""
        if self.streak == 0:
            return False
        streak = self.streak + (stats.consecutive_errors if self.only_errors else 0)
        return ((max_errors is not None and stats.errors + self.errors >= max_errors)
                or (max_consecutive is not None and streak >= max_consecutive))


def _failed(result: TrialResult) -> bool:
    """`trial_error(result) is not None`, without building the message."""
    return bool(result.output.error) or any(s.error for s in result.scores.values())


def _stopping() -> bool:
    """Whether Ctrl-C or SIGTERM has asked this run to stop (its task is being cancelled).
    A store that does not answer then fails the last commit, and its error, raised in place
    of the cancellation, made a stopped run exit 3 instead of 130."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _error_budget_reason(stats: PipelineStats, max_errors: int) -> str:
    return (f"error budget reached: {plural(stats.errors, 'trial')} failed (run.max_errors = "
            f"{max_errors}); first error: {(stats.first_error or '')[:300]}")


def trial_error(result: TrialResult) -> str | None:
    """The trial's error, or its first scorer's error: either counts against the error budget."""
    if result.output.error:
        return result.output.error
    return next((f"{name}: {s.error}" for name, s in result.scores.items() if s.error), None)


def trial_unusable(result: TrialResult) -> bool:
    """True when the trial gave no verdict at all: the target failed, or every scorer that
    judged it did. A judge whose reply could not be read beside a valid exact-match score
    leaves the trial usable."""
    if result.output.error:
        return True
    return bool(result.scores) and all(s.error for s in result.scores.values())


async def run_pipeline(plan: Plan, commit: Commit, *, concurrency: int, timeout: float | None,
                       batch_size: int, max_output_bytes: int | None = None,
                       max_errors: int | None = None,
                       max_consecutive_errors: int | None = None,
                       on_committed: OnCommitted | None = None,
                       budget_exceeded: Callable[[], str | None] | None = None,
                       answered_before: int = 0, stored_before: int = 0,
                       commit_in_thread: bool = False) -> PipelineStats:
    """Run every remaining trial of `plan`; return counts.

    Raises `RunFailed` when the error budget (`max_errors` trials failed, or
    `max_consecutive_errors` in a row: an unreachable provider, a dead server)
    or the cost budget is reached, or when no trial of the whole run gave anything
    to score (`answered_before`: the trials a resumed run already has with a verdict, of
    its `stored_before`); what finished is committed first. `commit_in_thread`: for a store
    across a network (see `runner.commits`).
    """
    stats = PipelineStats(unscored={scorer.name for scorer in plan.trial_scorers},
                          without_verdict={c.name for c in plan.conditions})
    trials = plan.trials()
    buffer = _Batch()
    last_flush = time.monotonic()
    stop = False
    budget_spent = False

    def take() -> _Batch | None:
        """The finished trials, to commit; None when there are none."""
        nonlocal buffer, last_flush
        last_flush = time.monotonic()
        if not buffer.results:
            return None
        batch, buffer = buffer, _Batch()
        return batch

    def due() -> bool:
        """Whether the finished trials are to be committed: a batch's worth, or any once
        `FLUSH_SECONDS` have passed since the last commit."""
        return bool(buffer.results) and (len(buffer.results) >= batch_size
                                         or time.monotonic() - last_flush >= FLUSH_SECONDS)

    def put_back(batch: _Batch) -> None:
        buffer.put_back(batch)

    def counted(batch: _Batch, refused: Mapping[TrialKey, str] | None) -> None:
        """Count a committed batch's trials as done, and stop on a budget it spent."""
        nonlocal stop, budget_spent
        refused = refused or {}
        stats.done += len(batch.results)
        for result, failed in zip(batch.results, batch.failures):
            stats.count_scores(result)
            not_stored = refused.get(result.key) if refused else None
            if not_stored:
                error: str | None = f"not stored: {not_stored}"
            else:
                error = trial_error(result) if failed else None
            unusable = bool(not_stored) or (error is not None and trial_unusable(result))
            if stats.without_verdict and not unusable:
                stats.without_verdict.discard(result.condition)
            if error is None:
                stats.consecutive_errors = 0
                continue
            stats.errors += 1
            stats.unusable += unusable
            stats.consecutive_errors += 1
            stats.first_error = stats.first_error or error
            if (max_consecutive_errors is not None and not stats.stopped_reason
                    and stats.consecutive_errors >= max_consecutive_errors):
                stats.stopped_reason = (
                    f"{the_last(stats.consecutive_errors, 'trial')} ended in an error "
                    f"(run.max_consecutive_errors = {max_consecutive_errors}); "
                    f"latest error: {error[:300]}")
        if max_errors is not None and stats.errors >= max_errors and not stats.stopped_reason:
            budget_spent = True
            stats.stopped_reason = _error_budget_reason(stats, max_errors)
        if budget_exceeded is not None and not stats.stopped_reason:
            stats.stopped_reason = budget_exceeded()
            stats.over_cost_budget = stats.stopped_reason is not None
        stop = stop or stats.stopped_reason is not None
        if on_committed:
            on_committed(stats)

    committer = Commits(lambda batch: commit(batch.results), counted, put_back,
                        in_thread=commit_in_thread)

    def budget_reached() -> bool:
        """Whether committing the finished trials would stop the run on an error budget."""
        in_flight = committer.in_flight
        errors = buffer.pending.following(in_flight.pending if in_flight else None)
        return errors.reach(stats, max_errors, max_consecutive_errors)

    scorers = ScorerGroups.of(plan.trial_scorers)

    async def worker() -> None:
        yielded = time.monotonic()
        while not stop:
            try:
                case, condition, epoch = next(trials)
            except StopIteration:
                return
            # each epoch is its own sample, in the cache too; the trial pays for its calls
            with trial_epoch(epoch, (case.id, condition.name, epoch)):
                result = await run_trial(plan.targets[condition.name], case, condition, epoch,
                                         scorers, timeout,
                                         max_output_bytes=max_output_bytes)
            buffer.add(result, _failed(result))
            now = time.monotonic()
            if budget_reached():
                committer.commit_now(take)  # when this trial spends an error budget: stop on time
            elif len(buffer.results) >= batch_size or (due() and not committer.handing_over):
                # a full buffer holds each worker back till its batch is handed over: the
                # store sets the pace, and the finished trials in memory stay few
                await committer.hand_over(due, take)
                yielded = time.monotonic()
            if now - yielded >= YIELD_SECONDS:
                await asyncio.sleep(0)
                yielded = time.monotonic()

    async def ticker() -> None:
        """Commit what finished while no trial finishes to do it (the trials in flight wait
        on a slow or hung target): a kill then loses only the trials in flight."""
        while True:
            await asyncio.sleep(FLUSH_SECONDS)
            if due() and not committer.handing_over:
                try:
                    await committer.hand_over(due, take)
                except Exception:  # noqa: BLE001 - kept: the next commit raises it again
                    return

    # Sync targets and scorers run in threads of the run's own pool (never the loop's
    # default executor, which belongs to the caller): as many as there are trials in flight.
    pool = WorkerPool(max(1, concurrency), name="assay-trial")
    with using(pool):
        workers = [asyncio.create_task(worker()) for _ in range(max(1, concurrency))]
    ticking = asyncio.create_task(ticker())
    try:
        try:
            await asyncio.gather(*workers)
        finally:
            for task in [*workers, ticking]:
                task.cancel()
            try:
                committer.commit_now(take)  # what finished is kept, even on Ctrl-C or an error
            finally:
                committer.close()
    except StoreError as exc:
        if _stopping():  # the store's error is met on the way out: the run was stopped
            raise asyncio.CancelledError(str(exc)) from exc
        raise
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        if budget_spent:  # count the trials in flight at the stop too
            stats.stopped_reason = _error_budget_reason(stats, max_errors or 0)
    if (not stats.stopped_reason and stats.done and stats.unusable == stats.done
            and not answered_before):
        stats.stopped_reason = (f"every trial failed ({stats.unusable} of {stats.done}), so "
                                f"there is nothing to score; first error: "
                                f"{(stats.first_error or '')[:300]}")
    elif not stats.stopped_reason and not stats.done and stored_before and not answered_before:
        stats.stopped_reason = (f"every trial failed ({stored_before} of {stored_before}), "
                                "so there is nothing to score, and a resume keeps failed "
                                "trials: --retry-errors runs them again")
    if stats.stopped_reason:
        raise (CostBudgetSpent if stats.over_cost_budget else RunFailed)(stats.stopped_reason)
    return stats
