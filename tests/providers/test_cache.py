"""The response cache: an identical deterministic call is answered without HTTP."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

import pytest

from assay.errors import StoreError
from assay.providers.base import ChatRequest, ChatResponse
from assay.providers.cache import cache_key, trial_epoch
from assay.records import CachedReply
from assay.testing import FakeLLM
from assay.testing.script import Fault, Reply, Rule


class DictStore:
    """The store's cache interface, nothing more; it counts its transactions."""

    def __init__(self, *, refuse: bool = False) -> None:
        self.rows: dict[str, tuple[dict[str, Any], str | None, str | None]] = {}
        self.transactions = 0
        self.refuse = refuse

    def cache_get_many(self, keys: Collection[str]) -> dict[str, dict[str, Any]]:
        return {key: self.rows[key][0] for key in keys if key in self.rows}

    def cache_put(self, replies: Mapping[str, CachedReply]) -> list[str]:
        if self.refuse:
            raise StoreError("disk full")
        self.transactions += 1
        for key, reply in replies.items():
            self.rows[key] = (reply.response, reply.provider, reply.model)
        return []


def ask(model: str, **kwargs: Any) -> ChatRequest:
    return ChatRequest(model=model, messages=[{"role": "user", "content": "2+2?"}], **kwargs)


def question(model: str, i: int) -> ChatRequest:
    return ChatRequest(model=model, messages=[{"role": "user", "content": f"question {i}"}])


@pytest.mark.parametrize("model_string", ["anthropic/claude-haiku-4-5", "openai/gpt-4.1"])
def test_a_second_identical_call_makes_no_http_request(make_pool, model_string):
    async def scenario():
        async with FakeLLM(default="4") as llm:
            pool = make_pool(llm)
            provider, model = pool.resolve(model_string)
            first = await provider.chat(ask(model, temperature=0))
            second = await provider.chat(ask(model, temperature=0))
            await pool.aclose()
            return first, second, llm.received, pool.stats()

    first, second, received, stats = asyncio.run(scenario())
    assert received == 1
    assert second.text == first.text == "4"
    assert second.cached and not first.cached
    assert second.usage.cache_hits == 1 and second.usage.calls == 0
    assert second.usage.cost_usd == 0.0 and second.usage.input_tokens == 0
    assert (stats.total.calls, stats.total.cache_hits) == (1, 1)


def test_use_cache_false_always_asks_the_server(make_pool):
    async def scenario():
        async with FakeLLM(default="4") as llm:
            pool = make_pool(llm)
            provider, model = pool.resolve("openai/gpt-4.1")
            await provider.chat(ask(model))
            await provider.chat(ask(model), use_cache=False)
            await provider.chat(ask(model), use_cache=False)
            await pool.aclose()
            return llm.received

    assert asyncio.run(scenario()) == 3


def test_a_pool_made_with_no_cache_never_reads_it(make_pool):
    async def scenario():
        async with FakeLLM(default="4") as llm:
            pool = make_pool(llm, use_cache=False)
            provider, model = pool.resolve("openai/gpt-4.1")
            await provider.chat(ask(model))
            await provider.chat(ask(model))
            await pool.aclose()
            return llm.received

    assert asyncio.run(scenario()) == 2


def test_sampling_above_temperature_zero_is_not_cached(make_pool):
    async def scenario():
        async with FakeLLM(default="4") as llm:
            pool = make_pool(llm)
            provider, model = pool.resolve("anthropic/claude-haiku-4-5")
            await provider.chat(ask(model, temperature=0.7))
            await provider.chat(ask(model, temperature=0.7))
            await pool.aclose()
            return llm.received

    assert asyncio.run(scenario()) == 2


def test_anything_that_shapes_the_answer_changes_the_key(make_pool):
    variants = [
        {}, {"system": "Be terse."}, {"max_tokens": 7}, {"extra": {"top_p": 0.1}},
        {"response_schema": {"type": "object"}}, {"cache_tag": "repeat-2"},
    ]

    async def scenario():
        async with FakeLLM(default="4") as llm:
            pool = make_pool(llm)
            provider, model = pool.resolve("openai/gpt-4.1")
            for variant in variants:
                await provider.chat(ask(model, **variant))
            other, other_model = pool.resolve("anthropic/claude-haiku-4-5")
            await other.chat(ask(other_model))
            await pool.aclose()
            return llm.received

    assert asyncio.run(scenario()) == len(variants) + 1


def test_the_cache_lives_in_the_store_and_survives_the_pool(make_pool):
    """A resumed run has a new pool but the same store: it pays for nothing twice."""
    store = DictStore()

    async def scenario():
        async with FakeLLM(default="4") as llm:
            for _ in range(2):
                pool = make_pool(llm, store=store)
                provider, model = pool.resolve("openai/gpt-4.1")
                answer = await provider.chat(ask(model))
                await pool.aclose()
            return answer, llm.received

    answer, received = asyncio.run(scenario())
    assert received == 1 and answer.cached and answer.text == "4"
    [(value, provider, model)] = store.rows.values()
    assert (provider, model) == ("openai", "gpt-4.1") and value["text"] == "4"


def test_cache_keys_stay_what_earlier_versions_stored():
    """A run resumed after an upgrade still finds its answers: the key is the sha256 of the
    same canonical JSON as before (tools included as their dataclass dicts)."""
    import hashlib
    import json
    from dataclasses import asdict

    from assay.providers.base import ToolSpec
    from assay.providers.cache import cache_key

    tool = ToolSpec("search", "Search the docs.", {"type": "object", "properties": {
        "query": {"type": "string"}, "top_k": {"type": "integer", "default": 3}}})
    request = ChatRequest(model="m", system="Be brief.", tools=[tool], temperature=0,
                          messages=[{"role": "user", "content": "héllo"}], cache_tag="attempt-2")
    payload = {"provider": "p", "endpoint": "http://e/v1", "model": "m", "temperature": 0,
               "max_tokens": 1024, "extra": {}, "system": "Be brief.",
               "messages": request.messages, "tools": [asdict(tool)], "response_schema": None,
               "cache_tag": "attempt-2"}
    earlier = hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False,
                                        default=str).encode()).hexdigest()
    assert cache_key("p", "http://e/v1", request) == earlier


def test_each_epoch_is_its_own_call_and_its_own_entry(make_pool):
    async def scenario():
        async with FakeLLM(default="4") as llm:
            pool = make_pool(llm, store=DictStore())
            provider, model = pool.resolve("openai/gpt-4.1")
            answers = []
            for _ in range(2):  # the second pass is a re-run: every epoch is in the cache
                for epoch in (1, 2, 3):
                    with trial_epoch(epoch):
                        answers.append(await provider.chat(ask(model, temperature=0)))
            await pool.aclose()
            return llm.received, answers

    received, answers = asyncio.run(scenario())
    assert received == 3
    assert [a.cached for a in answers] == [False] * 3 + [True] * 3


def test_epoch_one_keeps_the_key_it_had_before_epochs_were_keyed():
    request = ask("gpt-4.1", temperature=0)
    outside = cache_key("openai", "http://x", request)
    with trial_epoch(1):
        assert cache_key("openai", "http://x", request) == outside
    with trial_epoch(2):
        assert cache_key("openai", "http://x", request) != outside


def test_a_store_lookup_leaves_the_event_loop_free_for_other_trials(make_pool):
    """A store across a network answers a lookup a round trip later: meanwhile the other
    trials go on. This lookup returns only once a task on the event loop has run."""
    class FarStore(DictStore):
        def __init__(self) -> None:
            super().__init__()
            self.loop_ran = threading.Event()
            self.waited_in_vain = False

        def cache_get_many(self, keys: Collection[str]) -> dict[str, dict[str, Any]]:
            # on the loop itself, it would wait in vain: no task runs until it returns
            self.waited_in_vain |= not self.loop_ran.wait(timeout=5)
            return super().cache_get_many(keys)

    store = FarStore()

    async def another_trial() -> None:
        await asyncio.sleep(0)
        store.loop_ran.set()

    async def scenario():
        async with FakeLLM(default="4") as llm:
            pool = make_pool(llm, store=store)
            provider, model = pool.resolve("openai/gpt-4.1")
            answer, _ = await asyncio.gather(provider.chat(ask(model)), another_trial())
            await pool.aclose()
            return answer

    assert asyncio.run(scenario()).text == "4"
    assert not store.waited_in_vain


def test_identical_requests_in_flight_at_once_are_sent_once(make_pool):
    async def scenario():
        async with FakeLLM(default="4", latency=0.2) as llm:
            pool = make_pool(llm)
            provider, model = pool.resolve("anthropic/claude-haiku-4-5")
            answers = await asyncio.gather(
                *(provider.chat(ask(model, temperature=0)) for _ in range(5)))
            await pool.aclose()
            return llm.received, answers, pool.stats()

    received, answers, stats = asyncio.run(scenario())
    assert received == 1
    assert {a.text for a in answers} == {"4"}
    assert sorted(a.cached for a in answers) == [False, True, True, True, True]
    assert (stats.total.calls, stats.total.cache_hits) == (1, 4)


def test_a_failed_call_in_flight_leaves_the_waiters_to_ask_themselves(make_pool):
    async def scenario():
        refusal = Rule(reply=Reply(fault=Fault("bad_request")), times=1)
        async with FakeLLM(rules=[refusal], default="4", latency=0.1) as llm:
            pool = make_pool(llm, max_retries=0)
            provider, model = pool.resolve("openai/gpt-4.1")
            results = await asyncio.gather(
                *(provider.chat(ask(model, temperature=0)) for _ in range(2)),
                return_exceptions=True)
            await pool.aclose()
            return llm.received, results

    received, results = asyncio.run(scenario())
    assert received == 2
    assert isinstance(results[0], Exception) and results[1].text == "4"


def written(store: DictStore, count: int) -> bool:
    """Whether `store` holds `count` replies within a second (the writer's thread is quick)."""
    deadline = time.monotonic() + 1.0
    while len(store.rows) < count and time.monotonic() < deadline:
        time.sleep(0.005)
    return len(store.rows) >= count


def test_a_reply_reaches_the_store_as_it_arrives_with_nothing_else_to_come(make_pool):
    """Before, a reply waited in memory for a second, or 256 more, or the next batch of
    trials: a kill then lost it, and the resume paid for its call again."""
    store = DictStore()

    async def scenario():
        async with FakeLLM(default="4") as llm:
            pool = make_pool(llm, store=store)
            provider, model = pool.resolve("openai/gpt-4.1")
            await provider.chat(ask(model))
            kept = await asyncio.to_thread(written, store, 1)
            await pool.aclose()
            return kept

    assert asyncio.run(scenario())


def test_replies_arriving_during_a_write_go_together_in_the_next_one(make_pool):
    """One transaction per reply cost a quarter of a judged run's time."""

    class SlowStore(DictStore):
        def cache_put(self, replies: Mapping[str, CachedReply]) -> list[str]:
            time.sleep(0.2)
            return super().cache_put(replies)

    store = SlowStore()

    async def scenario():
        async with FakeLLM(default="4") as llm:
            pool = make_pool(llm, store=store)
            provider, model = pool.resolve("openai/gpt-4.1")
            await asyncio.gather(*(provider.chat(question(model, i)) for i in range(10)))
            again = await provider.chat(question(model, 3))
            await pool.aclose()
            return again, llm.received

    again, received = asyncio.run(scenario())
    assert again.cached and received == 10  # answered from memory while being written
    assert len(store.rows) == 10 and store.transactions <= 4  # not one per reply


def test_replies_the_store_refused_stay_held_and_the_error_reaches_the_caller(make_pool):
    store = DictStore(refuse=True)

    async def scenario():
        async with FakeLLM(default="4") as llm:
            pool = make_pool(llm, store=store)
            provider, model = pool.resolve("openai/gpt-4.1")
            await provider.chat(ask(model))
            await asyncio.sleep(0.05)  # the writer's thread tries, and fails
            with pytest.raises(StoreError, match="disk full"):
                pool.cache.save()
            again = await provider.chat(ask(model))
            store.refuse = False
            await pool.aclose()
            return again, llm.received

    again, received = asyncio.run(scenario())
    assert again.cached and received == 1
    assert len(store.rows) == 1


def test_replies_the_database_refuses_are_named_in_a_warning(make_pool):
    class Refusing(DictStore):
        def cache_put(self, replies: Mapping[str, CachedReply]) -> list[str]:
            return ["value too long for type character varying(200)"] * len(replies)

    warnings: list[str] = []

    async def scenario():
        async with FakeLLM(default="4") as llm:
            pool = make_pool(llm, store=Refusing(), warnings=warnings)
            provider, model = pool.resolve("openai/gpt-4.1")
            for i in range(3):
                await provider.chat(question(model, i))
            await pool.aclose()

    asyncio.run(scenario())
    assert warnings == [("some LLM replies could not be kept in the response cache (the "
                        "database refused them: value too long for type character varying(200)); "
                        "a later run asks for them again")]


def test_a_reply_a_killed_process_paid_for_counts_its_cost_once_for_the_trial_that_paid(
        make_pool):
    """Before, the trial a killed run had paid for, run again on resume, found its reply in
    the cache and counted $0, so the run's cost and its budget missed that call. A reply
    another trial or another run paid for stays a cache hit at $0."""
    store = DictStore()
    paying, other = ("c1", "default", 0), ("c2", "default", 0)

    async def process(llm: FakeLLM, run_id: str, trials: list[tuple[str, str, int]]
                      ) -> list[Any]:
        """One process of a run: a pool of its own over the same store and server."""
        pool = make_pool(llm, store=store)
        pool.cache.run_id = run_id
        provider, model = pool.resolve("openai/gpt-4.1")
        answers = []
        for trial in trials:
            with trial_epoch(0, trial):
                answers.append(await provider.chat(ask(model, temperature=0)))
        await pool.aclose()
        return [pool.stats(), *answers]

    async def scenario() -> tuple[int, list[Any], list[Any], list[Any]]:
        async with FakeLLM(default="4") as llm:
            killed = await process(llm, "r1", [paying])
            resumed = await process(llm, "r1", [paying, paying, other])
            later = await process(llm, "r2", [paying])
            return llm.received, killed, resumed, later

    received, [_stats, paid], [stats, again, twice, shared], [_, later] = asyncio.run(
        scenario())
    assert received == 1 and paid.usage.cost_usd
    assert not again.cached and again.usage.calls == 1
    assert again.usage.cost_usd == paid.usage.cost_usd
    assert again.usage.input_tokens == paid.usage.input_tokens
    assert twice.cached and twice.usage.cost_usd == 0.0  # counted once
    assert shared.cached and shared.usage.cost_usd == 0.0  # another trial's call
    assert (stats.total.calls, stats.total.paid_before, stats.total.cache_hits) == (0, 1, 2)
    assert stats.total.cost_usd == paid.usage.cost_usd  # and so in the run's budget
    assert later.cached and later.usage.cost_usd == 0.0  # another run's reply


def test_whether_replies_of_a_provider_are_cached_follows_the_store_as_replies_are_saved(
        tmp_path: Path) -> None:
    """Regression: the answer was kept from the first question: asked before a reply of
    the provider was saved, the cache went on saying it held none once the store held
    them, its own and another process's alike."""
    from assay.providers.cache import ResponseCache
    from assay.store import Store

    store = Store(str(tmp_path / "assay.db"))
    cache = ResponseCache(store)
    try:
        assert not cache.holds("anthropic") and not cache.holds("openai")
        cache.put("k", ChatResponse(text="hi"), provider="anthropic", model="m")
        cache.save()
        assert cache.holds("anthropic")
        store.cache_put({"j": CachedReply({"text": "hi"}, "openai", "m")})  # another run's
        assert cache.holds("openai")
    finally:
        cache.close()
        store.close()


def test_the_calls_a_run_paid_for_leave_nothing_in_memory_once_their_replies_are_stored(
) -> None:
    """Each call a run paid for kept its key in memory to the run's end, so the cache could
    tell its own replies from an earlier process's: about 190 bytes a judged trial, 11 MB
    over 60,000. A reply now carries the mark of the cache that paid for it."""
    import tracemalloc

    from assay.providers.base import ChatResponse
    from assay.providers.cache import ResponseCache

    class Forgetful(DictStore):
        def cache_put(self, replies: Mapping[str, CachedReply]) -> list[str]:
            return []

    cache = ResponseCache(Forgetful())
    cache.run_id = "r1"
    calls = 2_000
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for i in range(calls):
        with trial_epoch(1, (f"c{i}", "a", 1)):
            cache.put(f"{i:064x}", ChatResponse(text="4"), provider="openai", model="m")
    cache.close()  # every reply stored
    kept = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert kept < calls * 20, f"{kept / calls:.0f} bytes a call"
