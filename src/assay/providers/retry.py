"""Bounded retries with exponential backoff and full jitter, honouring Retry-After.

Every retry is bounded: at most `max_retries` after the first attempt, and
no single wait longer than `max_backoff` (a server asking for more is
asking for longer than we will wait; we wait the cap and try once more).
A failed connection waits at most `connection_backoff`: a refused or
unresolvable endpoint is down or mistyped, and a short wait rides out a
restart as well as a long one would, without holding the run for minutes.

A wait is noted for the work that made the call (`RetryWaits`, a context
variable, like the usage meter): a trial whose deadline passes while its call
waits to try again (a 429 asking for an hour) then says so, not only that it
timed out.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from contextvars import ContextVar, Token
from dataclasses import dataclass
from typing import Self, TypeVar

from assay.providers.failures import CallFailure

T = TypeVar("T")
log = logging.getLogger("assay.providers")

_WAITS: ContextVar[RetryWaits | None] = ContextVar("assay_retry_waits", default=None)


class RetryWaits:
    """`with RetryWaits() as waits:` around a piece of work (a target's answer, a scorer's
    verdict); `waits.waiting` says what a call of it waits for before trying again, while
    it waits or while the retry is under way (None otherwise), for the error of work cut
    short by its deadline."""

    __slots__ = ("_token", "waiting")

    def __init__(self) -> None:
        self.waiting: str | None = None
        self._token: Token[RetryWaits | None] | None = None

    def __enter__(self) -> Self:
        self._token = _WAITS.set(self)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _WAITS.reset(self._token)

    def said_after(self, error: str) -> str:
        """`error`, followed by what the work was waiting for, if it was."""
        return error if self.waiting is None else f"{error}; {self.waiting}"


def note_waiting(waiting: str | None) -> None:
    """Note on the current work's `RetryWaits` (if any) what its call waits for (None: it
    waits no more): `RetryWaits.said_after` says it."""
    waits = _WAITS.get()
    if waits is not None:
        waits.waiting = waiting


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    max_retries: int = 4
    backoff: float = 1.0
    max_backoff: float = 60.0
    connection_backoff: float = 1.0

    def delay(self, retry: int, failure: CallFailure, rng: random.Random) -> float:
        """Seconds to wait before retry number `retry` (1-based)."""
        if failure.retry_after is not None:
            return min(failure.retry_after, self.max_backoff)
        ceiling = min(self.max_backoff, self.backoff * (2 ** (retry - 1)))
        if failure.kind == "connection":
            ceiling = min(ceiling, self.connection_backoff)
        return rng.uniform(ceiling / 2, ceiling)


async def call_with_retries(
    attempt: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    label: str,
    on_retry: Callable[[CallFailure], None] | None = None,
    rng: random.Random | None = None,
) -> T:
    """Run `attempt` until it succeeds, fails for good, or the retries are spent.

    `attempt` raises `CallFailure` for a failed try; the last one propagates. While it
    waits to retry, and while a retry is under way, the work's `RetryWaits` says so.
    """
    rng = rng or random.Random()
    retry = 0
    while True:
        try:
            answered = await attempt()
        except CallFailure as failure:
            if not failure.retryable or retry >= policy.max_retries:
                if retry:
                    note_waiting(None)  # the failure says it from here
                raise
            retry += 1
            wait = policy.delay(retry, failure, rng)
            log.info("%s: %s; retry %d/%d in %.2fs", label, failure.reason, retry,
                     policy.max_retries, wait)
            if on_retry is not None:
                on_retry(failure)
            await wait_to_retry(label, failure.reason, wait,
                                f"retry {retry} of {policy.max_retries}", failure.retry_after)
            continue
        if retry:
            note_waiting(None)
        return answered


async def wait_to_retry(label: str, reason: str, wait: float, retry: str,
                        retry_after: float | None = None,
                        shown: Callable[[str], str] = str) -> None:
    """Sleep `wait` seconds before `retry` (which retry, in words) of a call that failed for
    `reason`, the work's `RetryWaits` saying so meanwhile, then that the retry is under way
    (`shown`: how each note is written, a service's secrets masked)."""
    note_waiting(shown(waiting_for(label, reason, wait, retry, retry_after)))
    await asyncio.sleep(wait)
    note_waiting(shown(retrying(label, reason, retry)))


def waiting_for(label: str, reason: str, wait: float, retry: str,
                retry_after: float | None = None) -> str:
    """What a call waiting `wait` seconds before sending again (`retry`: which retry, in
    words) waits for, in words."""
    asked = "" if retry_after is None else f"; Retry-After asked for {retry_after:g}s"
    return f"{label} was waiting {wait:.3g}s to try again ({retry}{asked}) after {reason}"


def retrying(label: str, reason: str, retry: str) -> str:
    """What a call sent again (`retry`: which retry, in words) after `reason` is doing."""
    return f"{label} was on its {retry} (the try before: {reason})"
