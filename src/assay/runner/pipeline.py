"""The bounded pipeline: answer, score, commit; `concurrency` trials in flight.

Workers pull trials from one shared generator, so nothing but the trials
in flight and the batch awaiting its commit is ever in memory. A trial
counts as done only once its batch is committed.
"""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field

from assay.case import Case
from assay.condition import Condition
from assay.errors import RunFailed
from assay.output import Output
from assay.runner.plan import Plan
from assay.score import Score
from assay.scorers.base import Scorer
from assay.targets.base import Target
from assay.trial import TrialResult

FLUSH_SECONDS = 0.25


@dataclass
class PipelineStats:
    done: int = 0
    errors: int = 0
    """Trials with an error: the target's, or any scorer's."""
    consecutive_errors: int = 0
    first_error: str | None = None
    started: float = field(default_factory=time.monotonic)
    stopped_reason: str | None = None


Commit = Callable[[list[TrialResult]], None]
OnCommitted = Callable[[PipelineStats], None]


def trial_error(result: TrialResult) -> str | None:
    """The trial's error, or its first scorer's error: either makes the trial count as failed."""
    if result.output.error:
        return result.output.error
    return next((f"{name}: {s.error}" for name, s in result.scores.items() if s.error), None)


async def run_pipeline(plan: Plan, commit: Commit, *, concurrency: int, timeout: float | None,
                       batch_size: int, max_errors: int | None = None,
                       max_consecutive_errors: int | None = None,
                       on_committed: OnCommitted | None = None,
                       budget_exceeded: Callable[[], str | None] | None = None) -> PipelineStats:
    """Run every remaining trial of `plan`; return counts.

    Raises `RunFailed` when the error budget (`max_errors` trials failed, or
    `max_consecutive_errors` in a row: an unreachable provider, a dead server)
    or the cost budget is reached; what finished is committed first.
    """
    stats = PipelineStats()
    trials = plan.trials()
    buffer: list[TrialResult] = []
    last_flush = time.monotonic()
    sync_scorers = [s for s in plan.scorers if s.is_sync]
    async_scorers = [s for s in plan.scorers if not s.is_sync]
    stop = False

    def flush() -> None:
        nonlocal last_flush, stop
        last_flush = time.monotonic()
        if not buffer:
            return
        commit(buffer)
        stats.done += len(buffer)
        for result in buffer:
            error = trial_error(result)
            if error is None:
                stats.consecutive_errors = 0
                continue
            stats.errors += 1
            stats.consecutive_errors += 1
            stats.first_error = stats.first_error or error
            if (max_consecutive_errors is not None and not stats.stopped_reason
                    and stats.consecutive_errors >= max_consecutive_errors):
                stats.stopped_reason = (
                    f"the last {stats.consecutive_errors} trials all failed "
                    f"(run.max_consecutive_errors = {max_consecutive_errors}); "
                    f"latest error: {error[:300]}")
        buffer.clear()
        if max_errors is not None and stats.errors >= max_errors and not stats.stopped_reason:
            stats.stopped_reason = (f"error budget reached: {stats.errors} trials failed "
                                    f"(run.max_errors = {max_errors}); first error: "
                                    f"{(stats.first_error or '')[:300]}")
        if budget_exceeded is not None and not stats.stopped_reason:
            stats.stopped_reason = budget_exceeded()
        stop = stop or stats.stopped_reason is not None
        if on_committed:
            on_committed(stats)

    async def worker() -> None:
        while not stop:
            try:
                case, condition, epoch = next(trials)
            except StopIteration:
                return
            result = await run_trial(plan.targets[condition.name], case, condition, epoch,
                                     sync_scorers, async_scorers, timeout)
            buffer.append(result)
            if len(buffer) >= batch_size or time.monotonic() - last_flush >= FLUSH_SECONDS:
                flush()

    loop = asyncio.get_running_loop()
    # Sync targets and scorers run in threads: as many as there are trials in flight.
    executor = ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="assay")
    loop.set_default_executor(executor)
    workers = [asyncio.create_task(worker()) for _ in range(max(1, concurrency))]
    try:
        await asyncio.gather(*workers)
    finally:
        for task in workers:
            task.cancel()
        flush()  # what finished is kept, even on Ctrl-C or an error
        executor.shutdown(wait=False, cancel_futures=True)
    if not stats.stopped_reason and stats.done and stats.errors == stats.done:
        stats.stopped_reason = (f"every trial failed ({stats.errors} of {stats.done}), so there "
                                f"is nothing to score; first error: "
                                f"{(stats.first_error or '')[:300]}")
    if stats.stopped_reason:
        raise RunFailed(stats.stopped_reason)
    return stats


async def run_trial(target: Target, case: Case, condition: Condition, epoch: int,
                    sync_scorers: list[Scorer], async_scorers: list[Scorer],
                    timeout: float | None) -> TrialResult:
    """Answer one case and score it. Failures become errors on the trial, never scores."""
    started = time.perf_counter()
    try:
        if timeout is None:
            output = await target.answer(case)
        else:
            async with asyncio.timeout(timeout):
                output = await target.answer(case)
    except TimeoutError:
        output = Output(error=f"timeout: no answer within {timeout:g}s")
    except RunFailed:
        raise
    except Exception as exc:  # the target's own failure belongs to this trial
        output = Output(error=_describe(exc))
    if output.latency_ms is None:
        output.latency_ms = (time.perf_counter() - started) * 1000
    scores: dict[str, Score] = {}
    if output.error is None:
        for scorer in sync_scorers:
            try:
                scores[scorer.name] = scorer.check(case, output)
            except Exception as exc:
                scores[scorer.name] = Score.failure(f"scorer failed: {_describe(exc)}")
        if async_scorers:
            results = await asyncio.gather(
                *(scorer.score(case, output) for scorer in async_scorers), return_exceptions=True)
            for scorer, value in zip(async_scorers, results, strict=True):
                if isinstance(value, RunFailed):
                    raise value
                if isinstance(value, BaseException):
                    if not isinstance(value, Exception):
                        raise value
                    value = Score.failure(f"scorer failed: {_describe(value)}")
                scores[scorer.name] = value
    return TrialResult(case=case, condition=condition.name, epoch=epoch, output=output,
                       scores=scores)


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    name = type(exc).__name__
    if not text:
        frame = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
        where = f" at {frame[0].filename}:{frame[0].lineno}" if frame else ""
        return f"{name}{where}"
    return f"{name}: {text}"
