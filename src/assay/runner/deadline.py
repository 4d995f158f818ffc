"""A deadline whose timer is armed only when the work waits.

`asyncio.timeout` makes a timer for every trial, pushes it on the loop's
heap, cancels it and later sweeps it out again: several percent of a quick
trial's cost. Work that finishes in its first step (a sync python target
called inline, a check that never awaits) holds the loop for all of that
step, so no timer could interrupt it anyway. `within` runs that first step
at once and arms the timer, with the deadline counted from the start, only
if the work then waits; what it measures is what `asyncio.timeout` measured.
"""

from __future__ import annotations

import asyncio
import types
from collections.abc import Awaitable, Callable, Coroutine, Generator
from typing import Any, TypeVar

T = TypeVar("T")


async def within(timeout: float | None, start: Callable[[], Awaitable[T]]) -> T:
    """`await start()`, raising `TimeoutError` once `timeout` seconds have passed since the
    call (None: no deadline)."""
    if timeout is None:
        return await start()
    deadline = asyncio.get_running_loop().time() + timeout
    work = start()
    if not isinstance(work, types.CoroutineType):  # a future (`gather`): runs by waiting
        async with asyncio.timeout_at(deadline):
            return await work
    try:
        waits_on = work.send(None)
    except StopIteration as finished:
        return finished.value  # type: ignore[no-any-return]
    async with asyncio.timeout_at(deadline):  # past already: cancelled at its first wait
        return await _resumed(work, waits_on)


@types.coroutine
def _resumed(work: Coroutine[Any, Any, T], waits_on: Any) -> Generator[Any, Any, T]:
    """`await work` for a coroutine already past its first step: what it waits on goes to
    the task, and what the task sends or throws (a result, a cancellation) goes back to it,
    as `yield from` would (PEP 380)."""
    step = waits_on
    while True:
        try:
            sent = yield step
        except GeneratorExit:
            work.close()
            raise
        except BaseException as exc:  # noqa: BLE001 - the task's cancellation, passed on
            try:
                step = work.throw(exc)
            except StopIteration as finished:
                return finished.value  # type: ignore[no-any-return]
        else:
            try:
                step = work.send(sent)
            except StopIteration as finished:
                return finished.value  # type: ignore[no-any-return]
