"""Keys asked for while the store reads go to it together, in the next read."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Collection

import pytest

from assay.errors import StoreError
from assay.providers.batched_lookups import BatchedLookups


class SlowStore:
    """Holds each read until `release` is set; records the keys of every read."""

    def __init__(self, values: dict[str, str]) -> None:
        self.values = values
        self.reads: list[list[str]] = []
        self.release = threading.Event()
        self.fail = False

    def read_many(self, keys: Collection[str]) -> dict[str, str]:
        self.reads.append(sorted(keys))
        self.release.wait(timeout=5)
        if self.fail:
            raise StoreError("the store cannot be reached")
        return {key: self.values[key] for key in keys if key in self.values}


async def asked_meanwhile(lookups: BatchedLookups[str], store: SlowStore, first: str,
                          then: list[str]) -> list[str | None]:
    """`first` asked alone, then `then` while its read is held; every answer, in order."""
    asking = [asyncio.create_task(lookups.get(first))]
    await asyncio.sleep(0.05)  # the first read has started, and is held
    asking += [asyncio.create_task(lookups.get(key)) for key in then]
    await asyncio.sleep(0.05)
    store.release.set()
    answers = await asyncio.gather(*asking, return_exceptions=True)
    lookups.close()
    return answers  # type: ignore[return-value]


def test_keys_asked_during_a_read_go_together_in_the_next_one() -> None:
    store = SlowStore({"a": "1", "c": "3"})
    lookups = BatchedLookups(store.read_many, 1, name="test-lookup")
    answers = asyncio.run(asked_meanwhile(lookups, store, "a", ["b", "c", "d"]))
    assert answers == ["1", None, "3", None]
    assert store.reads == [["a"], ["b", "c", "d"]]


def test_a_key_asked_twice_at_once_is_read_once_and_both_askers_get_it() -> None:
    store = SlowStore({"a": "1", "b": "2"})
    lookups = BatchedLookups(store.read_many, 1, name="test-lookup")
    answers = asyncio.run(asked_meanwhile(lookups, store, "a", ["b", "b"]))
    assert answers == ["1", "2", "2"]
    assert store.reads == [["a"], ["b"]]


def test_a_failed_read_fails_each_of_its_askers_and_the_next_read_still_goes() -> None:
    store = SlowStore({"a": "1", "b": "2"})
    store.fail = True
    lookups = BatchedLookups(store.read_many, 1, name="test-lookup")

    async def scenario() -> tuple[list[str | None], str | None]:
        failed = await asked_meanwhile(lookups, store, "a", ["b"])
        store.fail = False
        return failed, await lookups.get("b")

    failed, later = asyncio.run(scenario())
    assert [type(answer) for answer in failed] == [StoreError, StoreError]
    assert later == "2"


def test_an_asker_cancelled_leaves_the_others_their_answers() -> None:
    store = SlowStore({"a": "1"})
    lookups = BatchedLookups(store.read_many, 1, name="test-lookup")

    async def scenario() -> str | None:
        gone = asyncio.create_task(lookups.get("a"))
        staying = asyncio.create_task(lookups.get("a"))
        await asyncio.sleep(0.05)
        gone.cancel()
        store.release.set()
        with pytest.raises(asyncio.CancelledError):
            await gone
        answer = await staying
        lookups.close()
        return answer

    assert asyncio.run(scenario()) == "1"
    assert store.reads == [["a"]]
