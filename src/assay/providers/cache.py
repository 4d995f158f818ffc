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

Each new reply is written to the store as it arrives, by a thread of its own
(`reply_writer`), off the event loop: replies arriving during a write go
together in the next transaction. The runner also saves what is held before
it stores each batch of trials, and the pool when it closes, so a trial is
never stored before the replies it used, and a killed run resumes paying
only for the calls still unanswered when it died.

A lookup reads the store in a thread (`ResponseCache.lookup`), so a store
across a network does not stop the event loop for a round trip per call, and
the lookups waiting at one moment go to the store together, in one read
(`batched_lookups`).
Identical requests in flight at the same moment are sent once
(`ResponseCache.single_flight`): the others wait for the first and take its
answer from the cache, as a cache hit. If the first fails, the next waiter
makes its own call.

A reply keeps which run and trial paid for it, and what it cost. A run
killed after it stored a reply but before it stored the trial that paid for
it runs that trial again on resume, which finds the reply: it is answered
from the cache but counts what it cost, once, as the call it replaces
(`ResponseCache.paid_by`), so the run's cost and its `max_cost_usd` budget
are what an uninterrupted run's would be. A reply another run (or another
trial) paid for is a cache hit and costs nothing.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractContextManager, asynccontextmanager
from contextvars import ContextVar
from dataclasses import asdict
from typing import Any

from assay.output import Usage
from assay.providers.base import ChatRequest, ChatResponse, RequestedToolCall
from assay.providers.batched_lookups import BatchedLookups
from assay.providers.reply_writer import ReplyWriter
from assay.records import CachedReply
from assay.trial import TrialKey

_EPOCH: ContextVar[int] = ContextVar("assay_trial_epoch", default=1)
_TRIAL: ContextVar[TrialKey | None] = ContextVar("assay_paying_trial", default=None)


LOOKUP_THREADS = 4
"""Store reads in flight at once, each of the keys waiting when it started: enough to keep
a run's calls flowing over a network, few enough to leave the store's other connections
(a PostgreSQL pool holds 15) free."""


def trial_epoch(epoch: int, trial: TrialKey | None = None) -> AbstractContextManager[None]:
    """Every call made inside is keyed on this epoch (the runner wraps each trial in it),
    and the replies it pays for are marked as `trial`'s (see `ResponseCache.paid_by`)."""
    return _EpochScope(epoch, trial)


class _EpochScope:
    """`trial_epoch` as a plain class: entered once per trial, where a generator-based
    context manager would cost more than the rest of a quick trial's bookkeeping."""

    __slots__ = ("epoch", "token", "trial", "trial_token")

    def __init__(self, epoch: int, trial: TrialKey | None) -> None:
        self.epoch = epoch
        self.trial = trial

    def __enter__(self) -> None:
        self.token = _EPOCH.set(self.epoch)
        self.trial_token = _TRIAL.set(self.trial)

    def __exit__(self, *exc: object) -> None:
        _TRIAL.reset(self.trial_token)
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
        self._unsaved: dict[str, CachedReply] = {}
        """Replies not yet in the store; with no store, every reply, for the run's life."""
        self._writing: dict[str, CachedReply] = {}
        """Replies being written to the store now: still answered from here meanwhile."""
        self._holding = threading.Lock()
        """Guards the hand-over of `_unsaved`, filled on the event loop, to the writer."""
        self._saving = threading.Lock()
        self._writer = ReplyWriter(self.save) if store is not None else None
        self._warned: set[str] = set()
        """Why the database refused replies, each said once."""
        self._in_flight: dict[str, asyncio.Event] = {}
        self._lookups: BatchedLookups[dict[str, Any]] | None = None
        """How `lookup` reads the store: in threads, the keys waiting at once together."""
        if store is not None:
            self._lookups = BatchedLookups(store.cache_get_many, LOOKUP_THREADS,
                                           name="assay-cache-lookup")
        self.run_id: str | None = None
        """The run whose trials' calls this cache answers (`paid_by`); None outside a run."""
        self._mark = secrets.token_hex(8)
        """Set in the replies this cache pays for (`put`): one met again with this mark was
        paid for here, not in an earlier process of the run."""
        self._counted: set[str] = set()
        """Keys an earlier process of the run paid for whose cost this one has counted again:
        few (the trials in flight when that process stopped), where a key for every call paid
        for, kept to the end, held about 190 bytes a judged trial."""

    @asynccontextmanager
    async def single_flight(self, key: str) -> AsyncIterator[ChatResponse | None]:
        """The cached answer if there is one (after waiting for an identical call in flight),
        else None, and the caller makes the call: identical ones wait for the lookup and
        the call meanwhile."""
        while (pending := self._in_flight.get(key)) is not None:
            await pending.wait()
        done = self._in_flight[key] = asyncio.Event()
        try:
            yield await self.lookup(key)
        finally:
            del self._in_flight[key]
            done.set()

    async def lookup(self, key: str) -> ChatResponse | None:
        """The cached answer to `key`, with the store read in a thread of the cache's own,
        never on the event loop, together with the other lookups waiting meanwhile: over a
        network a read is a round trip, and a run asks before every LLM call, so on the loop
        they stopped every other trial meanwhile (a re-run of 6,000 judged trials on a
        PostgreSQL store 4 ms away spent 100 of its 117 s there)."""
        value = self._held(key)
        if value is None and self._lookups is not None:
            value = await self._lookups.get(key)
        return self._response(key, value)

    def _held(self, key: str) -> dict[str, Any] | None:
        """The reply to `key` held in memory (not yet written, or being written), if any."""
        held = self._unsaved.get(key)
        if held is None:  # read after `_unsaved`: `save` fills `_writing` before it empties it
            held = self._writing.get(key)
        return None if held is None else held.response

    def _response(self, key: str, value: dict[str, Any] | None) -> ChatResponse | None:
        if value is None:
            return None
        if self.paid_by(value) and key not in self._counted:
            self._counted.add(key)
            return response_as_paid(value)
        return response_from_dict(value)

    def holds(self, provider: str) -> bool:
        """Whether a reply of `provider` is cached, held here or in the store, as it is now
        (the store answers from its index of replies by provider)."""
        if any(reply.provider == provider for reply in (*self._unsaved.values(),
                                                         *self._writing.values())):
            return True
        return self.store is not None and bool(self.store.cache_holds(provider))

    def paid_by(self, value: dict[str, Any]) -> bool:
        """Whether a cached reply was paid for by the trial now asking for it, in an earlier
        process of this run (killed, or stopped, before it stored that trial): the trial
        being run again, its cost is this run's and is counted once more, since the trial
        that carried it was never stored."""
        paid = value.get("paid")
        trial = _TRIAL.get()
        return (self.run_id is not None and trial is not None and isinstance(paid, dict)
                and paid.get("run") == self.run_id and paid.get("trial") == list(trial)
                and paid.get("by") != self._mark)

    def put(self, key: str, response: ChatResponse, *, provider: str, model: str) -> None:
        reply = response_to_dict(response)
        trial = _TRIAL.get()
        if self.run_id is not None and trial is not None:
            reply["paid"] = {"run": self.run_id, "trial": list(trial),
                             "cost_usd": response.usage.cost_usd, "by": self._mark}
        with self._holding:
            self._unsaved[key] = CachedReply(reply, provider, model)
        if self._writer is not None:
            self._writer.wake()

    def close(self) -> None:
        """Stop the writer's thread and the lookups' threads, then write what is still held
        (see `save`)."""
        if self._writer is not None:
            self._writer.close()
        if self._lookups is not None:
            self._lookups.close()
        self.save()

    def save(self) -> None:
        """Write the replies held so far to the store, in one transaction. If the store
        fails, they stay held and its error goes to the caller; replies the database refuses
        one by one are not kept, and a warning says why."""
        if self.store is None:
            return
        with self._saving:
            with self._holding:
                if not self._unsaved:
                    return
                self._writing = replies = self._unsaved
                self._unsaved = {}
            try:
                refused = self.store.cache_put(replies)
            except BaseException:
                with self._holding:
                    self._unsaved = {**replies, **self._unsaved}
                raise
            finally:
                self._writing = {}
        if refused and self._warn is not None:
            for reason in [r for r in dict.fromkeys(refused) if r not in self._warned]:
                self._warned.add(reason)  # once, though replies are written a few at a time
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


def response_as_paid(value: dict[str, Any]) -> ChatResponse:
    """A cached reply counted as the call that paid for it (see `ResponseCache.paid_by`):
    its tokens, cost and latency, not a cache hit."""
    response = response_from_dict(value)
    usage = value.get("usage") or {}
    response.usage = Usage(input_tokens=int(usage.get("input_tokens") or 0),
                           output_tokens=int(usage.get("output_tokens") or 0),
                           cost_usd=value["paid"].get("cost_usd"), calls=1)
    response.latency_ms = float(value.get("latency_ms") or 0.0)
    response.cached = False
    return response


def response_from_dict(value: dict[str, Any]) -> ChatResponse:
    """A cached response: it cost nothing this time, so its usage counts one cache hit, and
    what it cost when it was paid for as shared."""
    paid = value.get("paid")
    shared = paid.get("cost_usd") if isinstance(paid, dict) else None
    return ChatResponse(
        text=value["text"],
        tool_calls=[RequestedToolCall(**call) for call in value.get("tool_calls") or []],
        stop_reason=value.get("stop_reason"),
        model=value.get("model"),
        system_fingerprint=value.get("system_fingerprint"),
        usage=Usage(cost_usd=0.0, cache_hits=1,
                    shared_cost_usd=float(shared) if isinstance(shared, (int, float)) else None),
        latency_ms=0.0,
        cached=True,
    )
