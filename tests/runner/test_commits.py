"""Batches of trials committed one at a time: in a thread for a store across a network."""

from __future__ import annotations

import asyncio
import threading

import pytest

from assay.errors import StoreError
from assay.runner.commits import Commits


class Ledger:
    """What was committed, settled and handed back, in order."""

    def __init__(self, *, fail: bool = False) -> None:
        self.committed: list[list[int]] = []
        self.settled: list[list[int]] = []
        self.unstored: list[list[int]] = []
        self.threads: set[str] = set()
        self.release = threading.Event()
        self.release.set()
        self.fail = fail

    def commit(self, batch: list[int]) -> int:
        self.threads.add(threading.current_thread().name)
        self.release.wait(timeout=5)
        if self.fail:
            raise StoreError("the store cannot be reached")
        self.committed.append(batch)
        return len(batch)

    def commits(self, *, in_thread: bool) -> Commits[list[int], int]:
        return Commits(self.commit, lambda batch, stored: self.settled.append(batch),
                       self.unstored.append, in_thread=in_thread)


def handing(batches: list[list[int]]):  # type: ignore[no-untyped-def]
    """`take`: the next of `batches`."""
    return lambda: batches.pop(0) if batches else None


def test_in_a_thread_the_event_loop_goes_on_and_a_batch_counts_once_stored() -> None:
    ledger = Ledger()
    ledger.release.clear()
    commits = ledger.commits(in_thread=True)

    async def scenario() -> list[list[int]]:
        await commits.hand_over(lambda: True, handing([[1, 2]]))
        settled_meanwhile = list(ledger.settled)
        await asyncio.sleep(0.01)  # the loop runs while the store works
        ledger.release.set()
        for _ in range(200):
            if ledger.settled:
                break
            await asyncio.sleep(0.01)
        commits.close()
        return settled_meanwhile

    assert asyncio.run(scenario()) == []  # not counted before it was stored
    assert ledger.settled == ledger.committed == [[1, 2]]
    assert ledger.threads == {"assay-commit_0"}


def test_batches_are_committed_and_settled_in_the_order_they_were_handed_over() -> None:
    ledger = Ledger()
    commits = ledger.commits(in_thread=True)

    async def scenario() -> None:
        batches = [[1], [2], [3]]
        for _ in range(3):
            await commits.hand_over(lambda: True, handing(batches))
        commits.close()

    asyncio.run(scenario())
    assert ledger.committed == ledger.settled == [[1], [2], [3]]


def test_nothing_is_handed_over_once_it_is_no_longer_due() -> None:
    ledger = Ledger()
    commits = ledger.commits(in_thread=True)

    async def scenario() -> None:
        await commits.hand_over(lambda: False, handing([[1]]))
        commits.close()

    asyncio.run(scenario())
    assert ledger.committed == []


def test_a_failed_commit_hands_its_batch_back_and_its_error_reaches_the_next_caller() -> None:
    ledger = Ledger(fail=True)
    commits = ledger.commits(in_thread=True)

    async def scenario() -> None:
        await commits.hand_over(lambda: True, handing([[1, 2], [3]]))
        await asyncio.sleep(0.05)
        with pytest.raises(StoreError, match="cannot be reached"):
            await commits.hand_over(lambda: True, handing([[3]]))

    asyncio.run(scenario())
    assert ledger.unstored == [[1, 2]] and ledger.settled == []


def test_for_a_file_a_batch_is_committed_at_once_on_the_event_loop() -> None:
    ledger = Ledger()
    commits = ledger.commits(in_thread=False)

    async def scenario() -> list[list[int]]:
        await commits.hand_over(lambda: True, handing([[1]]))
        return list(ledger.settled)

    assert asyncio.run(scenario()) == [[1]]
    assert ledger.threads == {threading.main_thread().name}


def test_committing_now_waits_for_the_batch_in_flight_first() -> None:
    ledger = Ledger()
    ledger.release.clear()
    commits = ledger.commits(in_thread=True)

    async def scenario() -> None:
        await commits.hand_over(lambda: True, handing([[1]]))
        threading.Timer(0.05, ledger.release.set).start()
        commits.commit_now(handing([[2]]))
        commits.close()

    asyncio.run(scenario())
    assert ledger.committed == ledger.settled == [[1], [2]]
