"""Bounded retries with exponential backoff and full jitter, honouring Retry-After.

Every retry is bounded: at most `max_retries` after the first attempt, and
no single wait longer than `max_backoff` (a server asking for more is
asking for longer than we will wait; we wait the cap and try once more).
A failed connection waits at most `connection_backoff`: a refused or
unresolvable endpoint is down or mistyped, and a short wait rides out a
restart as well as a long one would, without holding the run for minutes.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from assay.providers.failures import CallFailure

T = TypeVar("T")
log = logging.getLogger("assay.providers")


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

    `attempt` raises `CallFailure` for a failed try; the last one propagates.
    """
    rng = rng or random.Random()
    retry = 0
    while True:
        try:
            return await attempt()
        except CallFailure as failure:
            if not failure.retryable or retry >= policy.max_retries:
                raise
            retry += 1
            wait = policy.delay(retry, failure, rng)
            log.info("%s: %s; retry %d/%d in %.2fs", label, failure.reason, retry,
                     policy.max_retries, wait)
            if on_retry is not None:
                on_retry(failure)
            await asyncio.sleep(wait)
