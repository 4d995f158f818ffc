"""The LLM response cache in the store: a reply kept by key, replaced when asked again."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, event, text

from assay.errors import StoreError
from assay.records import CachedReply
from assay.store import Store
from tests.conftest import postgres_server_url


def test_the_response_cache_stores_by_key(store: Store) -> None:
    assert store.cache_get("k") is None
    store.cache_put({"k": CachedReply({"text": "hi"}, "openai", "m"),
                     "j": CachedReply({"text": "other"})})
    store.cache_put({"k": CachedReply({"text": "again"}, "openai", "m")})
    assert store.cache_get("k") == {"text": "again"}
    assert store.cache_get("j") == {"text": "other"}
    assert store.cache_put({}) == []


def test_the_replies_of_many_keys_are_read_at_once_leaving_out_keys_with_none(
        store: Store) -> None:
    store.cache_put({"a": CachedReply({"text": "1"}), "b": CachedReply({"text": "2"})})
    assert store.cache_get_many(["a", "b", "missing"]) == {"a": {"text": "1"},
                                                           "b": {"text": "2"}}
    assert store.cache_get_many([]) == {}
    many = [f"key {i}" for i in range(2_000)]  # a run with thousands of calls waiting at once
    assert store.cache_get_many([*many, "a"]) == {"a": {"text": "1"}}


def test_a_lookup_on_postgresql_is_one_round_trip_with_no_transaction_to_roll_back() -> None:
    """A lookup was BEGIN, SELECT and the pool's ROLLBACK: three round trips, where a
    store across a network spent most of a cached run. Its connection now goes back to the
    pool idle, with nothing begun, and the next user of it gets transactions as before."""
    from psycopg.pq import TransactionStatus

    from tests.postgres import scratch_schema

    with scratch_schema(postgres_server_url()) as url:
        store = Store(url)
        store.cache_put({"k": CachedReply({"text": "hi"})})
        handed_back: list[TransactionStatus] = []
        event.listen(store.engine.pool, "reset", lambda dbapi_connection, *_: handed_back.append(
            dbapi_connection.info.transaction_status))
        assert store.cache_get_many(["k"]) == {"k": {"text": "hi"}}
        assert handed_back == [TransactionStatus.IDLE]
        with store.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
            driver: Any = conn.connection.dbapi_connection
            assert driver.info.transaction_status == TransactionStatus.INTRANS
        store.close()


def test_a_cached_reply_the_database_refuses_costs_only_itself(tmp_path: Path) -> None:
    """A refused row (here a trigger's; a name too long for its column on PostgreSQL, or a
    key another process stored at that moment) once failed the whole batch of replies."""
    store = Store(str(tmp_path / "store.db"))
    with store.engine.begin() as conn:
        conn.exec_driver_sql(
            "CREATE TRIGGER refuse BEFORE INSERT ON response_cache WHEN NEW.model = 'odd' "
            "BEGIN SELECT RAISE(ABORT, 'this model is refused'); END")
    refused = store.cache_put({"a": CachedReply({"text": "1"}, "p", "m"),
                               "b": CachedReply({"text": "2"}, "p", "odd"),
                               "c": CachedReply({"text": "3"}, "p", "m")})
    assert len(refused) == 1 and "this model is refused" in refused[0]
    assert [store.cache_get(k) for k in "abc"] == [{"text": "1"}, None, {"text": "3"}]
    store.close()


def test_a_cache_lookup_on_a_lost_postgresql_connection_logs_no_traceback(
        caplog: pytest.LogCaptureFixture) -> None:
    """PostgreSQL going down mid-run printed the pool's 'Exception during reset or similar'
    traceback above the store's one clear line: the lookup's connection, dead, was handed
    back to the pool, whose rollback of it failed. The line itself said 'failed: terminating
    connection due to administrator command' where it now says the store cannot be reached."""
    from tests.postgres import scratch_schema

    with scratch_schema(postgres_server_url()) as url:
        store = Store(url)
        store.cache_put({"k": CachedReply({"text": "hi"})})
        assert store.cache_get("k") == {"text": "hi"}  # the pool now holds a connection
        raw = store.engine.raw_connection()
        cursor = raw.cursor()
        cursor.execute("select pg_backend_pid()")
        backend = cursor.fetchone()[0]
        raw.close()
        admin = create_engine(postgres_server_url())
        with admin.begin() as conn:
            conn.execute(text("select pg_terminate_backend(:pid)"), {"pid": backend})
        admin.dispose()
        with caplog.at_level(logging.WARNING), pytest.raises(StoreError, match="cannot be reached"):
            store.cache_get("k")
        assert not [r for r in caplog.records if r.exc_info], caplog.text
        assert store.cache_get("k") == {"text": "hi"}  # the next lookup connects again
        store.close()


def test_a_reply_repeating_a_known_key_is_not_kept(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    # issue case: a model asked to repeat the key put sk-... into response_cache.response_json
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SECRET123456")
    assert store.cache_put({"k": CachedReply({"text": "your key is sk-test-SECRET123456"}),
                            "j": CachedReply({"text": "sk-proj-not-this-runs-key"})}) == []
    assert store.cache_get("k") is None  # asked again next time, never replayed as '***'
    assert store.cache_get("j") == {"text": "sk-proj-not-this-runs-key"}
    with store.engine.connect() as conn:
        kept = [row[0] for row in conn.execute(text("SELECT response_json FROM response_cache"))]
    assert not any("SECRET123456" in value for value in kept)


def test_whether_replies_of_a_provider_are_cached_is_read_from_its_index(tmp_path: Path) -> None:
    """A run whose provider has no API key asks this; without the index (migration 11) the
    answer read the whole cache whenever it held no reply of that provider."""
    store = Store(str(tmp_path / "assay.db"))
    try:
        store.cache_put({"k": CachedReply({"text": "hi"}, "openai", "m")})
        assert store.cache_holds("openai") and not store.cache_holds("anthropic")
        with store.engine.connect() as conn:
            plan = conn.exec_driver_sql(
                "EXPLAIN QUERY PLAN SELECT key FROM response_cache WHERE provider = 'anthropic' "
                "LIMIT 1").all()
        assert "INDEX response_cache_by_provider" in " ".join(str(row[-1]) for row in plan)
    finally:
        store.close()
