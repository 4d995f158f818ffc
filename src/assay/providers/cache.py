"""The response cache: a repeated or resumed run pays for no call twice.

The key is a sha256 over everything that shapes the answer: the provider
(name and endpoint), model, sampling parameters, system prompt, messages,
tools, response schema, the request's own tag (a judge repeat, a retry) and
the epoch of the trial that asks. Only deterministic calls are cached by
default (temperature 0 or unset). Entries live in the run's store
(`store.cache_get` / `store.cache_put`), or in memory when there is none.

Epochs are independent samples: epoch e of a case gets its own entry, so
`epochs: 3` makes three real calls per case, and a resumed or re-run run
gets each epoch's own stored answer. The epoch reaches the key through a
context variable the runner sets around each trial (`trial_epoch`), so no
target or scorer has to pass it along; calls made outside a trial count as
epoch 1, whose key is the one it always was.

Identical requests in flight at the same moment are sent once
(`ResponseCache.single_flight`): the others wait for the first and take its
answer from the cache, as a cache hit. If the first fails, the next waiter
makes its own call.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import asdict
from typing import Any

from assay.output import Usage
from assay.providers.base import ChatRequest, ChatResponse, RequestedToolCall

_EPOCH: ContextVar[int] = ContextVar("assay_trial_epoch", default=1)


@contextmanager
def trial_epoch(epoch: int) -> Iterator[None]:
    """Every call made inside is keyed on this epoch (the runner wraps each trial in it)."""
    token = _EPOCH.set(epoch)
    try:
        yield
    finally:
        _EPOCH.reset(token)


def cache_key(provider: str, endpoint: str, request: ChatRequest) -> str:
    payload: dict[str, Any] = {
        "provider": provider,
        "endpoint": endpoint,
        "model": request.model,
        "temperature": request.temperature,
        "max_tokens": request.max_tokens,
        "extra": request.extra,
        "system": request.system,
        "messages": request.messages,
        # the same dicts `asdict` made, without its deep copy of every input schema
        "tools": [{"name": tool.name, "description": tool.description,
                   "input_schema": tool.input_schema} for tool in request.tools],
        "response_schema": request.response_schema,
        "cache_tag": request.cache_tag,
    }
    epoch = _EPOCH.get()
    if epoch != 1:  # epoch 1 keeps the key it had before epochs were keyed
        payload["epoch"] = epoch
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def is_cacheable(request: ChatRequest) -> bool:
    """Deterministic requests only: temperature 0 or left to the provider."""
    return request.temperature is None or request.temperature == 0


class ResponseCache:
    """Cached responses by key, in the store when there is one."""

    def __init__(self, store: Any = None) -> None:
        self.store = store
        self._memory: dict[str, dict[str, Any]] = {}
        self._in_flight: dict[str, asyncio.Event] = {}

    @asynccontextmanager
    async def single_flight(self, key: str) -> AsyncIterator[ChatResponse | None]:
        """The cached answer if there is one (after waiting for an identical call in flight),
        else None, and the caller makes the call: identical ones wait for it meanwhile."""
        while (pending := self._in_flight.get(key)) is not None:
            await pending.wait()
        hit = self.get(key)
        if hit is not None:
            yield hit
            return
        done = self._in_flight[key] = asyncio.Event()
        try:
            yield None
        finally:
            del self._in_flight[key]
            done.set()

    def get(self, key: str) -> ChatResponse | None:
        value = self.store.cache_get(key) if self.store is not None else self._memory.get(key)
        return None if value is None else response_from_dict(value)

    def put(self, key: str, response: ChatResponse, *, provider: str, model: str) -> None:
        value = response_to_dict(response)
        if self.store is not None:
            self.store.cache_put(key, value, provider=provider, model=model)
        else:
            self._memory[key] = value


def response_to_dict(response: ChatResponse) -> dict[str, Any]:
    return {
        "text": response.text,
        "tool_calls": [asdict(call) for call in response.tool_calls],
        "stop_reason": response.stop_reason,
        "model": response.model,
        "system_fingerprint": response.system_fingerprint,
        "usage": {"input_tokens": response.usage.input_tokens,
                  "output_tokens": response.usage.output_tokens},
        "latency_ms": response.latency_ms,
    }


def response_from_dict(value: dict[str, Any]) -> ChatResponse:
    """A cached response: it cost nothing this time, so its usage counts one cache hit."""
    return ChatResponse(
        text=value["text"],
        tool_calls=[RequestedToolCall(**call) for call in value.get("tool_calls") or []],
        stop_reason=value.get("stop_reason"),
        model=value.get("model"),
        system_fingerprint=value.get("system_fingerprint"),
        usage=Usage(cost_usd=0.0, cache_hits=1),
        latency_ms=0.0,
        cached=True,
    )
