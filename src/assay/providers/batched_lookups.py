"""Lookups of the keys asked for at one moment, sent to the store together.

A run asks the response cache before every LLM call, with up to `concurrency`
trials asking at once. Over a network each read is a round trip, so one read
per key spent a re-run's time waiting on them (6,000 judged trials 4 ms from
a PostgreSQL store: 26 s, against 4 s beside it). Here the keys asked for
while the store reads go together in the next read: a few reads are in
flight at once, each in a thread (never on the event loop), and each takes
every key waiting when it starts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import Generic, TypeVar

from assay.workers import on_loop_when_done, submit_serving

__all__ = ["BatchedLookups"]

Value = TypeVar("Value")

ReadMany = Callable[[Collection[str]], Mapping[str, Value]]
"""Reads the values of some keys at once: a key with none is left out."""


class BatchedLookups(Generic[Value]):
    """`get(key)` on the event loop, answered by `read_many` in batches (module notes),
    `reads_at_once` of them in flight at most, each in a thread of its own."""

    def __init__(self, read_many: ReadMany[Value], reads_at_once: int, *, name: str) -> None:
        self._read_many = read_many
        self._reads_at_once = reads_at_once
        self._name = name
        self._waiting: dict[str, list[asyncio.Future[Value | None]]] = {}
        """Keys asked for and not yet being read, with what each of their askers awaits."""
        self._being_read: dict[str, list[asyncio.Future[Value | None]]] = {}
        """Keys being read now, likewise: one asked again meanwhile waits for that read."""
        self._reading = 0
        self._threads: ThreadPoolExecutor | None = None
        """Started at the first lookup."""

    async def get(self, key: str) -> Value | None:
        """The value of `key`, or None; read with the other keys asked for meanwhile."""
        answer: asyncio.Future[Value | None] = asyncio.get_running_loop().create_future()
        if key in self._being_read:
            self._being_read[key].append(answer)
        else:
            self._waiting.setdefault(key, []).append(answer)
            if self._reading < self._reads_at_once:
                self._read_waiting()
        return await answer

    def _read_waiting(self) -> None:
        """Start a read of every key waiting."""
        batch, self._waiting = self._waiting, {}
        self._being_read.update(batch)
        if self._threads is None:
            self._threads = ThreadPoolExecutor(self._reads_at_once, self._name)
        self._reading += 1
        read: Future[Mapping[str, Value]] = submit_serving(self._threads, self._read_many,
                                                            list(batch))
        on_loop_when_done(read, partial(self._answer, batch))

    def _answer(self, batch: dict[str, list[asyncio.Future[Value | None]]],
                read: Future[Mapping[str, Value]]) -> None:
        """Give each key of `batch` its value (or the read's error), then read the keys
        that waited meanwhile."""
        self._reading -= 1
        failure = read.exception()
        found = read.result() if failure is None else {}
        for key, answers in batch.items():
            del self._being_read[key]
            for answer in answers:
                if answer.done():  # its asker was cancelled (Ctrl-C)
                    continue
                if failure is not None:
                    answer.set_exception(failure)
                else:
                    answer.set_result(found.get(key))
        if self._waiting and self._reading < self._reads_at_once:
            self._read_waiting()

    def close(self) -> None:
        """Stop the threads, once the reads in flight end."""
        if self._threads is not None:
            self._threads.shutdown()
            self._threads = None

