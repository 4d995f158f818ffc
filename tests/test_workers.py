"""Blocking calls in the run's worker threads: whatever the call raises comes back."""

from __future__ import annotations

import asyncio
import threading

import pytest

from assay.errors import RunFailed
from assay.workers import WorkerPool, run_blocking, using


def ends_a_generator() -> str:
    raise StopIteration


@pytest.mark.parametrize("in_pool", [True, False])
def test_stop_iteration_from_a_blocking_call_is_an_error_not_a_hang(in_pool: bool) -> None:
    """Regression: a sync target raising StopIteration in its worker thread could not be
    passed into the awaiting future ("StopIteration interacts badly with generators"):
    asyncio printed a traceback and the trial waited for run.timeout, then recorded a
    timeout it never had."""
    async def call() -> str:
        return await asyncio.wait_for(run_blocking(ends_a_generator), 10)

    async def go() -> str:
        if not in_pool:
            return await call()
        pool = WorkerPool(1)
        try:
            with using(pool):
                return await call()
        finally:
            pool.shutdown(wait=False)

    with pytest.raises(RuntimeError, match="raised StopIteration"):
        asyncio.run(go())


def test_calls_after_a_stuck_one_run_and_a_returned_one_gives_its_place_back() -> None:
    """A call stuck past its deadline keeps its thread; the pool lends another, so the next
    call runs at once, and once the stuck call returns it counts as stuck no more (else the
    second stuck call here would be one more than the pool lends for, and stop the run)."""
    release = threading.Event()

    async def go() -> list[str]:
        pool = WorkerPool(1, max_lent=1)
        try:
            with using(pool):
                with pytest.raises(TimeoutError):
                    await asyncio.wait_for(run_blocking(release.wait), 0.1)
                answered = [await asyncio.wait_for(run_blocking(str, "next"), 5)]
                release.set()
                await asyncio.sleep(0.1)
                with pytest.raises(TimeoutError):
                    await asyncio.wait_for(run_blocking(threading.Event().wait, 0.5), 0.1)
                answered.append(await asyncio.wait_for(run_blocking(str, "again"), 5))
                return answered
        finally:
            pool.shutdown(wait=False)

    assert asyncio.run(go()) == ["next", "again"]


def test_a_call_that_would_wait_behind_stuck_ones_stops_the_run_instead_of_timing_out() -> None:
    """Regression: with 12 cases of 100 hanging at concurrency 2, the pool's 10 lent threads
    ran out, and the 88 cases that answer at once were all recorded 'timeout: no answer
    within 1s' though their function never ran (every trial failed). Past the bound the run
    now stops (exit 3), saying why."""
    never = threading.Event()

    async def go() -> None:
        pool = WorkerPool(1, max_lent=2)
        try:
            with using(pool):
                for _ in range(3):  # the pool lends a thread for two of them
                    with pytest.raises(TimeoutError):
                        await asyncio.wait_for(run_blocking(never.wait), 0.05)
                await asyncio.wait_for(run_blocking(str, "next"), 5)
        finally:
            never.set()
            pool.shutdown(wait=False)

    with pytest.raises(RunFailed, match=r"user code \(.*\) has 3 calls still running past"):
        asyncio.run(go())
