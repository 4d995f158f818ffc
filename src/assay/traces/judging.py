"""Judging exchanges while they stream: a few calls in flight, judgements folded in log order.

Reading goes on while the judge works, until `WINDOW_PER_CALL` exchanges per
allowed call are queued; then it waits for the oldest. So at most that window
of exchanges is held, however many sessions are read, and judgements arrive in
the order of the logs whatever order the calls finish in.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Self

from assay.errors import RunFailed
from assay.output import Usage
from assay.providers.base import Provider
from assay.traces.exchanges import Exchange
from assay.traces.findings import Finding, Judgement, judge_exchange
from assay.wording import plural

WINDOW_PER_CALL = 4
FAILURES_IN_A_ROW = 20
"""Questions in a row the judge may fail on before the analysis stops, as a run stops at
`run.max_consecutive_errors` (20 by default): the judge is down or refuses every request,
and going on would spend retries on every question left."""


@dataclass
class Judgements:
    """What the judge said: every finding, and the questions it could not judge."""

    model: str
    asked: int = 0
    """Answered questions sent to the judge."""
    findings: list[Finding] = field(default_factory=list)
    errors: list[Judgement] = field(default_factory=list)
    """Questions with no judgement (not the same as no findings), with the reason."""
    usage: Usage = field(default_factory=Usage)
    failures_in_a_row: int = 0
    """Questions the judge failed on since its last judgement."""

    @property
    def judged(self) -> int:
        return self.asked - len(self.errors)

    def incomplete(self) -> str | None:
        """`2 of 71 answered questions could not be judged`, or None when every one was:
        the same words on the terminal, in eval-report.md and in the error that ends
        an incomplete analysis."""
        if not self.errors:
            return None
        return f"{len(self.errors):,} of {plural(self.asked, 'answered question')} could not be judged"

    def add(self, judgement: Judgement) -> None:
        """Fold in one judgement; `RunFailed` once `FAILURES_IN_A_ROW` questions in a row
        have none."""
        self.asked += 1
        self.usage.add(judgement.usage)
        if judgement.error is None:
            self.failures_in_a_row = 0
            self.findings.extend(judgement.findings)
            return
        self.errors.append(judgement)
        self.failures_in_a_row += 1
        if self.failures_in_a_row >= FAILURES_IN_A_ROW:
            raise RunFailed(f"the judge failed on {self.failures_in_a_row} questions in a row, "
                            "so the analysis stopped before writing a report or storing a run; "
                            f"latest error: {judgement.error}")


class StreamingJudge:
    """Takes exchanges one by one; hands each Judgement to `fold`, in the order submitted.

    Use as `async with`: leaving the block early cancels the calls still in flight.
    `use_cache=False` skips the provider's response cache, which without a store is
    a dict in memory that would grow with every question judged.
    """

    def __init__(self, provider: Provider, model: str, fold: Callable[[Judgement], None],
                 concurrency: int = 4, use_cache: bool = True) -> None:
        self.provider = provider
        self.model = model
        self.use_cache = use_cache
        self._fold = fold
        self._gate = asyncio.Semaphore(concurrency)
        self._window = concurrency * WINDOW_PER_CALL
        self._queue: deque[asyncio.Task[Judgement]] = deque()

    async def submit(self, exchange: Exchange) -> None:
        """Queue an answered exchange (an unanswered one has nothing to judge)."""
        if not exchange.answered:
            return
        if len(self._queue) >= self._window:
            self._fold(await self._queue.popleft())
        self._queue.append(asyncio.create_task(self._judge(exchange)))
        await asyncio.sleep(0)  # let the calls in flight move on while reading continues
        while self._queue and self._queue[0].done():
            self._fold(self._queue.popleft().result())

    async def finish(self) -> None:
        """Wait for every queued exchange and fold its judgement."""
        while self._queue:
            self._fold(await self._queue[0])
            self._queue.popleft()

    async def _judge(self, exchange: Exchange) -> Judgement:
        async with self._gate:
            return await judge_exchange(self.provider, self.model, exchange, self.use_cache)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        trace: TracebackType | None) -> None:
        if kind is None:
            await self.finish()
            return
        for task in self._queue:
            task.cancel()
        await asyncio.gather(*self._queue, return_exceptions=True)
        self._queue.clear()


async def judge_all(provider: Provider, model: str, exchanges: Iterable[Exchange],
                    concurrency: int = 4) -> list[Judgement]:
    """The Judgement of each answered exchange, in the order given."""
    judgements: list[Judgement] = []
    async with StreamingJudge(provider, model, judgements.append, concurrency) as judging:
        for exchange in exchanges:
            await judging.submit(exchange)
    return judgements
