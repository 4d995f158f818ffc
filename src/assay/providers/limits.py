"""One concurrency limit per provider endpoint, shared by everything that calls it.

Targets and judges of a run reach an endpoint through the same pool, so a
judge cannot starve the target of connections, nor the two together exceed
what the endpoint (or a local server) accepts.
"""

from __future__ import annotations

import asyncio


class EndpointLimits:
    """A semaphore per endpoint URL, sized by the first provider that names it."""

    def __init__(self) -> None:
        self._limits: dict[str, asyncio.Semaphore] = {}

    def for_endpoint(self, endpoint: str, max_in_flight: int) -> asyncio.Semaphore:
        if endpoint not in self._limits:
            self._limits[endpoint] = asyncio.Semaphore(max_in_flight)
        return self._limits[endpoint]
