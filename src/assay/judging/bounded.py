"""A bounded async map: `concurrency` jobs in flight, results yielded as they finish.

Judging stored outputs reads the jobs from the store as it goes (one case's
trials at a time), so the jobs are an iterator shared by the workers,
never a list of the whole run.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


async def bounded_map(jobs: Iterator[T], work: Callable[[T], Awaitable[R]], *,
                      concurrency: int) -> AsyncGenerator[tuple[T, R], None]:
    """(job, result) for every job, at most `concurrency` at once; the first exception a
    job raises stops the others and is raised here."""
    queue: asyncio.Queue[tuple[T, R] | None] = asyncio.Queue(maxsize=max(1, concurrency) * 2)
    failure: list[BaseException] = []

    async def worker() -> None:
        for job in jobs:  # the workers share one iterator, so no job is done twice
            await queue.put((job, await work(job)))

    async def run_workers() -> None:
        try:
            await asyncio.gather(*(worker() for _ in range(max(1, concurrency))))
        except BaseException as exc:  # noqa: BLE001 - raised to the consumer below
            failure.append(exc)
        finally:
            await queue.put(None)

    runner = asyncio.create_task(run_workers())
    try:
        while (item := await queue.get()) is not None:
            yield item
    finally:
        if not runner.done():
            runner.cancel()
            try:
                await runner
            except (asyncio.CancelledError, Exception):  # noqa: BLE001, S110 - already stopping
                pass
    if failure:
        raise failure[0]
