"""Batches of trials committed one at a time, on a store across a network in a thread.

A batch committed on the event loop stops every trial in flight for as long
as the store takes: on a PostgreSQL store 4 ms away, about 50 ms a batch, a
sixth of a judged run answered from the cache. For such a store one batch at
a time is committed in a thread while the trials go on, and settled on the
event loop once it is stored (the run counts its trials then, and not before),
in the order the batches were handed over. A SQLite file answers in well
under a millisecond: there a thread only makes the event loop and the writer
take turns at the interpreter (a quarter slower, with more trials held in
memory meanwhile), so its batches are committed on the event loop.

A batch whose commit failed is handed back (`unstored`) before its error is
raised, so a last commit on the way out can try it again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from assay.workers import on_loop_when_done, submit_serving

__all__ = ["Commits"]

Batch = TypeVar("Batch")
Stored = TypeVar("Stored")


@dataclass
class _InFlight(Generic[Batch, Stored]):
    batch: Batch
    stored: Future[Stored]
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    """Set on the event loop once the commit has ended, stored or failed."""


class Commits(Generic[Batch, Stored]):
    """Commits batches with `commit` one at a time, `in_thread` or on the event loop, and
    gives each with what its commit returned to `settled`, on the event loop; `unstored`
    takes back a batch whose commit raised."""

    def __init__(self, commit: Callable[[Batch], Stored],
                 settled: Callable[[Batch, Stored], None],
                 unstored: Callable[[Batch], None], *, in_thread: bool) -> None:
        self._commit = commit
        self._in_thread = in_thread
        self._settled = settled
        self._unstored = unstored
        self._in_flight: _InFlight[Batch, Stored] | None = None
        self._handing_over = asyncio.Lock()
        self._thread: ThreadPoolExecutor | None = None

    @property
    def in_flight(self) -> Batch | None:
        """The batch being committed, until it is settled."""
        return self._in_flight.batch if self._in_flight is not None else None

    @property
    def handing_over(self) -> bool:
        """A batch is on its way (`hand_over` waits for the one before it)."""
        return self._handing_over.locked()

    async def hand_over(self, due: Callable[[], bool], take: Callable[[], Batch | None]) -> None:
        """Once the batches handed over before are, if there is still something `due`:
        once the batch in flight is settled, commit what `take` gives then (None: nothing),
        in the thread while the event loop goes on, or at once. A caller that must not run
        ahead of the store awaits this."""
        async with self._handing_over:
            if not due():
                return
            if not self._in_thread:
                self.commit_now(take)
                return
            if self._in_flight is not None:
                await self._in_flight.ended.wait()  # a cancelled caller leaves it to `settle`
                self.settle()
            batch = take()
            if batch is None:
                return
            if self._thread is None:
                self._thread = ThreadPoolExecutor(1, "assay-commit")
            in_flight = self._in_flight = _InFlight(
                batch, submit_serving(self._thread, self._commit, batch))
            on_loop_when_done(in_flight.stored, lambda _: self._ended(in_flight))

    def _ended(self, in_flight: _InFlight[Batch, Stored]) -> None:
        """Settle a commit as soon as it has stored its batch; an error waits for the next
        `settle` to raise it, in a caller that can take it."""
        in_flight.ended.set()
        if self._in_flight is in_flight and in_flight.stored.exception() is None:
            self.settle()

    def commit_now(self, take: Callable[[], Batch | None]) -> None:
        """Settle the batch in flight, then commit what `take` gives (None: nothing) here
        and now, on the event loop."""
        self.settle()
        batch = take()
        if batch is None:
            return
        try:
            stored = self._commit(batch)
        except BaseException:
            self._unstored(batch)
            raise
        self._settled(batch, stored)

    def settle(self) -> None:
        """Wait for the batch in flight, if any, and give it to `settled`; its commit's error
        is raised, after the batch went back to `unstored`."""
        in_flight, self._in_flight = self._in_flight, None
        if in_flight is None:
            return
        try:
            stored = in_flight.stored.result()
        except BaseException:
            self._unstored(in_flight.batch)
            raise
        self._settled(in_flight.batch, stored)

    def close(self) -> None:
        """Settle the batch in flight, then stop the thread."""
        try:
            self.settle()
        finally:
            if self._thread is not None:
                self._thread.shutdown(wait=False)
                self._thread = None

