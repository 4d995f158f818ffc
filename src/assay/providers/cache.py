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

New replies are written to the store in batches, one transaction each
(`ResponseCache.save`): when `SAVE_EVERY` are held or `SAVE_AFTER_SECONDS`
have passed at the next reply, before the runner stores each batch of
trials, and when the pool closes. A trial is never stored before the
replies it used, so a killed run resumes paying for nothing it kept.

Identical requests in flight at the same moment are sent once
(`ResponseCache.single_flight`): the others wait for the first and take its
answer from the cache, as a cache hit. If the first fails, the next waiter
makes its own call.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractContextManager, asynccontextmanager
from contextvars import ContextVar
from dataclasses import asdict
from typing import Any

from assay.output import Usage
from assay.providers.base import ChatRequest, ChatResponse, RequestedToolCall
from assay.records import CachedReply

SAVE_EVERY = 256
"""Replies held before they are written to the store together."""

SAVE_AFTER_SECONDS = 1.0
"""The longest a reply is held while others keep coming."""

_EPOCH: ContextVar[int] = ContextVar("assay_trial_epoch", default=1)


def trial_epoch(epoch: int) -> AbstractContextManager[None]:
    """Every call made inside is keyed on this epoch (the runner wraps each trial in it)."""
    return _EpochScope(epoch)


class _EpochScope:
    """`trial_epoch` as a plain class: entered once per trial, where a generator-based
    context manager would cost more than the rest of a quick trial's bookkeeping."""

    __slots__ = ("epoch", "token")

    def __init__(self, epoch: int) -> None:
        self.epoch = epoch

    def __enter__(self) -> None:
        self.token = _EPOCH.set(self.epoch)

    def __exit__(self, *exc: object) -> None:
        _EPOCH.reset(self.token)


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
    """Cached responses by key, in the store when there is one (see the module's docstring)."""

    def __init__(self, store: Any = None, warn: Callable[[str], None] | None = None) -> None:
        self.store = store
        self._warn = warn
        self.save_after_seconds = SAVE_AFTER_SECONDS
        self._unsaved: dict[str, CachedReply] = {}
        """Replies not yet in the store; with no store, every reply, for the run's life."""
        self._saved_at = time.monotonic()
        self._saving = threading.Lock()
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
        held = self._unsaved.get(key)
        if held is not None:
            value: dict[str, Any] | None = held.response
        else:
            value = self.store.cache_get(key) if self.store is not None else None
        return None if value is None else response_from_dict(value)

    def put(self, key: str, response: ChatResponse, *, provider: str, model: str) -> None:
        self._unsaved[key] = CachedReply(response_to_dict(response), provider, model)
        if self.store is not None and (
                len(self._unsaved) >= SAVE_EVERY
                or time.monotonic() - self._saved_at >= self.save_after_seconds):
            self.save()

    def save(self) -> None:
        """Write the replies held so far to the store, in one transaction. If the store
        fails, they stay held and its error goes to the caller; replies the database refuses
        one by one are not kept, and a warning says why."""
        self._saved_at = time.monotonic()
        if self.store is None:
            return
        with self._saving:
            replies, self._unsaved = self._unsaved, {}
            if not replies:
                return
            try:
                refused = self.store.cache_put(replies)
            except BaseException:
                self._unsaved = {**replies, **self._unsaved}
                raise
        if refused and self._warn is not None:
            for reason in dict.fromkeys(refused):
                self._warn(f"some LLM replies could not be kept in the response cache (the "
                           f"database refused them: {reason}); a later run asks for them again")


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
