"""A deadline whose timer is armed only when the work waits, and that code ignoring it cannot hold.

`asyncio.timeout` makes a timer for every trial, pushes it on the loop's
heap, cancels it and later sweeps it out again: several percent of a quick
trial's cost. Work that finishes in its first step (a sync python target
called inline, a check that never awaits) holds the loop for all of that
step, so no timer could interrupt it anyway. `within` runs that first step
at once and arms the timer, with the deadline counted from the start, only
if the work then waits; what it measures is what `asyncio.timeout` measured.

A cancellation (the deadline, Ctrl-C) is passed to the work, which may clean
up. Work that catches it and waits on (`except CancelledError: pass` in a
loop) would hold its trial, and with it the run and Ctrl-C, for ever:
`CANCEL_GRACE` seconds after the first cancellation it is closed instead
(`GeneratorExit` at the await it waits in), and the cancellation goes on.
A cancellation the work makes and takes back itself (`Task.uncancel`: an
inner `asyncio.timeout`, the scopes anyio runs inside httpx) is not one to
end it for: the grace counts only while the task is still being cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
import types
from collections.abc import Awaitable, Callable, Coroutine, Generator
from typing import Any, TypeVar

T = TypeVar("T")

CANCEL_GRACE = 5.0
"""Seconds cancelled work may go on cleaning up (a command target reaps its processes in
at most 2) before it is closed."""


async def within(timeout: float | None, start: Callable[[], Awaitable[T]]) -> T:
    """`await start()`, raising `TimeoutError` once `timeout` seconds have passed since the
    call (None: no deadline)."""
    if timeout is None:
        return await stoppable(start())
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


async def stoppable(work: Awaitable[T]) -> T:
    """`await work`; a coroutine that goes on waiting after it is cancelled is closed
    `CANCEL_GRACE` seconds later, so its cancellation always ends it."""
    if not isinstance(work, types.CoroutineType):
        return await work
    try:
        waits_on = work.send(None)
    except StopIteration as finished:
        return finished.value  # type: ignore[no-any-return]
    return await _resumed(work, waits_on)


class _Grace:
    """The time cancelled work has to end; once it is spent, the task is cancelled again."""

    def __init__(self) -> None:
        self.spent = False
        self._timer: asyncio.TimerHandle | None = None
        self._task = asyncio.current_task()
        self._cancelling = self._task.cancelling() if self._task is not None else 0
        """The task's pending cancellations before the work was cancelled: back at this
        count, every cancellation since was the work's own, taken back (`Task.uncancel`)."""

    def start(self) -> None:
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(CANCEL_GRACE, self._spend)

    def settle(self) -> None:
        """Stop counting once the work has taken back every cancellation it had: it was its
        own (an inner timeout, anyio's scopes in httpx), and the next starts a new grace."""
        if self._timer is not None and not self._still_cancelled():
            self.stop()

    def _still_cancelled(self) -> bool:
        return self._task is not None and self._task.cancelling() > self._cancelling

    def _spend(self) -> None:
        self._timer = None
        if not self._still_cancelled():
            return
        self.spent = True
        if self._task is not None:
            self._task.cancel()

    def take_back(self) -> None:
        """Undo the task's own cancellation, so only the cancellations of others count."""
        if self._task is not None:
            self._task.uncancel()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


@types.coroutine
def _resumed(work: Coroutine[Any, Any, T], waits_on: Any) -> Generator[Any, Any, T]:
    """`await work` for a coroutine already past its first step: what it waits on goes to
    the task, and what the task sends or throws (a result, a cancellation) goes back to it,
    as `yield from` would (PEP 380); past its grace, cancelled work is closed."""
    step = waits_on
    grace = _Grace()
    try:
        while True:
            try:
                sent = yield step
            except GeneratorExit:
                work.close()
                raise
            except BaseException as exc:  # the task's cancellation, passed on
                if isinstance(exc, asyncio.CancelledError):
                    if grace.spent:
                        grace.take_back()
                        with contextlib.suppress(Exception):  # what it made of GeneratorExit
                            work.close()
                        raise
                    grace.start()
                try:
                    step = work.throw(exc)
                except StopIteration as finished:
                    return finished.value  # type: ignore[no-any-return]
            else:
                grace.settle()
                try:
                    step = work.send(sent)
                except StopIteration as finished:
                    return finished.value  # type: ignore[no-any-return]
    finally:
        grace.stop()
