"""`within` keeps asyncio's deadline semantics, and arms no timer for work that never waits."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from assay.runner import deadline
from assay.runner.deadline import stoppable, within


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


async def ignores_cancellation() -> str:
    """Work that catches every cancellation and waits on, as some user code does."""
    while True:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            pass


def test_work_that_ignores_its_cancellation_times_out_after_the_grace_not_never(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Work swallowing the deadline's cancellation held its trial, the run and Ctrl-C for
    ever (a python target with `except CancelledError: pass` in a loop)."""
    monkeypatch.setattr(deadline, "CANCEL_GRACE", 0.1)

    async def go() -> str:
        with pytest.raises(TimeoutError):
            await within(0.05, ignores_cancellation)
        # the task is not left cancelling: a later deadline in it still reads as a timeout
        with pytest.raises(TimeoutError):
            await within(0.05, lambda: waits(10))
        return "went on"

    started = time.monotonic()
    assert asyncio.run(asyncio.wait_for(go(), 10)) == "went on"
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("timeout", [5.0, None])
def test_cancelling_work_that_ignores_it_ends_the_task_after_the_grace(
        monkeypatch: pytest.MonkeyPatch, timeout: float | None) -> None:
    """Ctrl-C cancels the trials in flight: one ignoring it kept the run from stopping."""
    monkeypatch.setattr(deadline, "CANCEL_GRACE", 0.1)

    async def go() -> None:
        task = asyncio.create_task(within(timeout, ignores_cancellation))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 5)

    asyncio.run(go())


def test_cancelled_work_that_cleans_up_within_the_grace_is_not_closed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deadline, "CANCEL_GRACE", 5.0)
    seen: list[str] = []

    async def slow_clean_up() -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            await asyncio.sleep(0.05)
            seen.append("cleaned up")
            raise

    with pytest.raises(TimeoutError):
        asyncio.run(within(0.01, slow_clean_up))
    assert seen == ["cleaned up"]


def test_stoppable_closes_a_coroutine_that_ignores_its_cancellation(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deadline, "CANCEL_GRACE", 0.1)

    async def go() -> None:
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.05):
                await stoppable(ignores_cancellation())

    asyncio.run(asyncio.wait_for(go(), 5))
    assert asyncio.run(stoppable(immediate("now"))) == "now"


async def cancels_itself_then_waits(seconds: float) -> str:
    """Work that cancels itself and takes the cancellation back, as anyio's scopes do inside
    httpx (the losing attempts of a connection), then waits on for its answer."""
    task = asyncio.current_task()
    assert task is not None
    task.cancel()
    try:
        await asyncio.sleep(1)
    except asyncio.CancelledError:
        task.uncancel()
    await asyncio.sleep(seconds)
    return "answered"


@pytest.mark.parametrize("timeout", [5.0, None])
def test_work_that_takes_back_its_own_cancellation_is_not_closed_after_the_grace(
        monkeypatch: pytest.MonkeyPatch, timeout: float | None) -> None:
    """An http target whose service answered after more than the grace (5 s) was closed and
    its run ended in a CancelledError traceback: httpx's own cancellation started the grace."""
    monkeypatch.setattr(deadline, "CANCEL_GRACE", 0.05)
    assert asyncio.run(within(timeout, lambda: cancels_itself_then_waits(0.2))) == "answered"


def test_work_cancelled_after_taking_back_its_own_cancellation_has_the_whole_grace(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The grace counts from the cancellation of others, not from the work's own."""
    monkeypatch.setattr(deadline, "CANCEL_GRACE", 1.0)
    seen: list[str] = []

    async def cleans_up_slowly() -> None:
        await cancels_itself_then_waits(0)
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            await asyncio.sleep(0.5)
            seen.append("cleaned up")
            raise

    async def go() -> None:
        task = asyncio.create_task(within(None, cleans_up_slowly))
        await asyncio.sleep(0.6)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(go())
    assert seen == ["cleaned up"]
