"""Blocking calls in the run's worker threads: whatever the call raises comes back."""

from __future__ import annotations

import asyncio

import pytest

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
