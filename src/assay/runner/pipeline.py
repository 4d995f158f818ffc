"""The bounded pipeline: answer, score, commit; `concurrency` trials in flight.

Workers pull trials from one shared generator, so nothing but the trials
in flight and the batch awaiting its commit is ever in memory. A trial
counts as done only once its batch is committed.
"""

from __future__ import annotations

import asyncio
import time
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
    started: float = field(default_factory=time.monotonic)
    stopped_reason: str | None = None


Commit = Callable[[list[TrialResult]], None]
OnCommitted = Callable[[PipelineStats], None]


async def run_pipeline(plan: Plan, commit: Commit, *, concurrency: int, timeout: float | None,
                       batch_size: int, max_errors: int | None = None,
                       on_committed: OnCommitted | None = None,
                       budget_exceeded: Callable[[], str | None] | None = None) -> PipelineStats:
    """Run every remaining trial of `plan`; return counts. Raises `RunFailed` on the error budget."""
    stats = PipelineStats()
    trials = plan.trials()
    buffer: list[TrialResult] = []
    last_flush = time.monotonic()
    sync_scorers = [s for s in plan.scorers if s.is_sync]
    async_scorers = [s for s in plan.scorers if not s.is_sync]
    stop = False

    def flush() -> None:
        nonlocal last_flush
        if buffer:
            commit(buffer)
            stats.done += len(buffer)
            stats.errors += sum(1 for r in buffer if r.output.error)
            buffer.clear()
            if on_committed:
                on_committed(stats)
        last_flush = time.monotonic()

    async def worker() -> None:
        nonlocal stop
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
                errors = stats.errors
                if max_errors is not None and errors >= max_errors and not stop:
                    stop = True
                    stats.stopped_reason = (f"error budget reached: {errors} trials failed "
                                            f"(run.max_errors = {max_errors})")
                if budget_exceeded is not None and not stop:
                    reason = budget_exceeded()
                    if reason:
                        stop = True
                        stats.stopped_reason = reason

    workers = [asyncio.create_task(worker()) for _ in range(max(1, concurrency))]
    try:
        await asyncio.gather(*workers)
    finally:
        for task in workers:
            task.cancel()
        flush()  # what finished is kept, even on Ctrl-C or an error
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
