"""`within` keeps asyncio's deadline semantics, and arms no timer for work that never waits."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from assay.runner.deadline import within


async def immediate(value: str) -> str:
    return value


async def waits(seconds: float, value: str = "done") -> str:
    await asyncio.sleep(seconds)
    return value


def test_work_that_never_waits_returns_its_value_without_a_timer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def no_timer(when: float) -> Any:
        raise AssertionError("a timer was armed for work that never waits")

    monkeypatch.setattr(asyncio, "timeout_at", no_timer)
    assert asyncio.run(within(1.0, lambda: immediate("answer"))) == "answer"


def test_work_that_never_waits_is_not_interrupted_even_past_its_deadline() -> None:
    async def blocking() -> str:
        time.sleep(0.05)  # noqa: ASYNC251 - holds the loop, as a sync target does
        return "finished"

    assert asyncio.run(within(0.01, blocking)) == "finished"


def test_work_that_waits_gets_its_result_and_each_value_it_awaited() -> None:
    async def several() -> list[str]:
        first = await waits(0.001, "a")
        await asyncio.sleep(0)
        return [first, await waits(0.001, "b")]

    assert asyncio.run(within(5.0, several)) == ["a", "b"]


def test_work_that_waits_past_the_deadline_times_out() -> None:
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        asyncio.run(within(0.05, lambda: waits(10)))
    assert time.monotonic() - started < 5


def test_the_deadline_counts_from_the_start_not_from_the_first_wait() -> None:
    async def slow_then_waits() -> str:
        time.sleep(0.1)  # noqa: ASYNC251 - the first step alone spends the deadline
        await asyncio.sleep(0.5)
        return "late"

    started = time.monotonic()
    with pytest.raises(TimeoutError):
        asyncio.run(within(0.05, slow_then_waits))
    assert time.monotonic() - started < 0.45


def test_an_error_after_a_wait_reaches_the_caller_as_it_is() -> None:
    async def fails() -> None:
        await asyncio.sleep(0)
        raise ValueError("bad answer")

    with pytest.raises(ValueError, match="bad answer"):
        asyncio.run(within(5.0, fails))


def test_cancelling_the_task_reaches_the_work_and_is_not_a_timeout() -> None:
    seen: list[str] = []

    async def cleans_up() -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise

    async def go() -> None:
        task = asyncio.create_task(within(5.0, cleans_up))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(go())
    assert seen == ["cancelled"]


def test_a_future_is_awaited_under_the_deadline_too() -> None:
    async def go() -> None:
        await within(0.05, lambda: asyncio.gather(waits(10)))

    with pytest.raises(TimeoutError):
        asyncio.run(go())


def test_no_deadline_awaits_as_it_is() -> None:
    assert asyncio.run(within(None, lambda: waits(0.001, "x"))) == "x"
