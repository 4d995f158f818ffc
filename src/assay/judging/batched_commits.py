"""Results committed in batches: at a batch's size, or once `FLUSH_SECONDS` have passed.

Judging stored answers (pairwise verdicts, a rejudge) stores what it finishes
as the runner stores trials: often enough that Ctrl-C loses little and a
resume skips much, seldom enough that the store is not written once per result.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["FLUSH_SECONDS", "BatchedCommits"]

FLUSH_SECONDS = 0.25
"""A batch is committed at least this often, so Ctrl-C loses little and a resume skips much."""

Item = TypeVar("Item")


class BatchedCommits(Generic[Item]):
    """Gathers results and hands them to `commit` a batch at a time; call `flush` on leaving
    (in a `finally`), so what was finished is kept even on Ctrl-C or an error."""

    def __init__(self, commit: Callable[[list[Item]], None], size: int) -> None:
        self._commit = commit
        self._size = size
        self._batch: list[Item] = []
        self._last_flush = time.monotonic()

    def add(self, item: Item) -> bool:
        """Add one result; commits the batch when it is full or due, and says whether it did."""
        self._batch.append(item)
        if len(self._batch) >= self._size or \
                time.monotonic() - self._last_flush >= FLUSH_SECONDS:
            self.flush()
            return True
        return False

    def flush(self) -> None:
        """Commit what is gathered, if anything."""
        self._last_flush = time.monotonic()
        if not self._batch:
            return
        self._commit(list(self._batch))
        self._batch.clear()  # only once committed: a failed commit is tried again on leaving
