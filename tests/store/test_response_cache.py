"""The LLM response cache in the store: a reply kept by key, replaced when asked again."""

from __future__ import annotations

from pathlib import Path

from assay.records import CachedReply
from assay.store import Store


def test_the_response_cache_stores_by_key(store: Store) -> None:
    assert store.cache_get("k") is None
    store.cache_put({"k": CachedReply({"text": "hi"}, "openai", "m"),
                     "j": CachedReply({"text": "other"})})
    store.cache_put({"k": CachedReply({"text": "again"}, "openai", "m")})
    assert store.cache_get("k") == {"text": "again"}
    assert store.cache_get("j") == {"text": "other"}
    assert store.cache_put({}) == []


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
