"""The LLM response cache: a reply kept by its request's key, so a resumed or repeated
run does not pay for the same call twice.

A run asks before every LLM call, so a lookup goes to the driver with SQL compiled
once per store; replies are written in one transaction, or one each when the
database refuses a row. A reply holding a known secret (a model repeating the key it
was shown) is not kept: masked, a later run would replay an answer the model never gave,
and the store never holds a key.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from functools import cached_property
from typing import Any

from sqlalchemy import Engine, bindparam, delete, select

from assay.records import CachedReply
from assay.redaction import secret_finder
from assay.store import schema
from assay.store.failures import RowRejected, store_failure
from assay.store.inserts import insert_rows
from assay.store.rows import loads, now_iso
from assay.store.storable import Replacements, Storable

_CACHED_REPLY = select(schema.response_cache.c.response_json).where(
    schema.response_cache.c.key == bindparam("key"))
"""What `cache_get` asks, compiled once per store for its database."""


class CachedReplies:
    """Store methods keeping and finding cached LLM replies (mixed into `Store`)."""

    engine: Engine
    url: str
    storable: Storable
    _lock: threading.Lock

    def cache_get(self, key: str) -> dict[str, Any] | None:
        """The reply cached under `key`, or None. A run asks before every LLM call, so this
        goes to the driver with the dialect's SQL compiled once: SQLAlchemy's execution of
        the statement costs twice the lookup itself."""
        sql, positional = self._cache_lookup
        conn = self.engine.raw_connection()
        try:
            cursor = conn.cursor()
            cursor.execute(sql, (key,) if positional else {"key": key})
            row = cursor.fetchone()
            cursor.close()
        except self.engine.dialect.loaded_dbapi.Error as exc:
            # not handed back to the pool: a connection the server dropped fails the pool's
            # rollback, which logs a traceback above the store's one clear line
            conn.invalidate(exc)
            raise store_failure(exc, self.url) from None
        finally:
            conn.close()
        return loads(row[0]) if row and row[0] else None

    def cache_holds(self, provider: str) -> bool:
        """Whether any reply of `provider` (its name, `anthropic`) is cached: a run missing
        its key may still be answered from them."""
        cache = schema.response_cache
        query = select(cache.c.key).where(cache.c.provider == provider).limit(1)
        with self.engine.connect() as conn:
            return conn.execute(query).first() is not None

    @cached_property
    def _cache_lookup(self) -> tuple[str, bool]:
        """`cache_get`'s SQL in this database's dialect, and whether it takes a tuple."""
        compiled = _CACHED_REPLY.compile(dialect=self.engine.dialect)
        return str(compiled), compiled.positional

    def cache_put(self, replies: Mapping[str, CachedReply]) -> list[str]:
        """Keep `replies` by key, in one transaction; a key stored before gets the new reply.
        When the database refuses a row (a name too long for its column, another process
        storing the same key at that moment), each reply gets a transaction of its own; the
        reasons the refused ones were not kept are returned (a later run asks for them again).
        A reply holding a known secret is left out without a word (see the module doc)."""
        notes = Replacements()  # a cached reply kept as it can be stored; nothing to note on
        created_at = now_iso()
        rows = [{"key": key, "provider": reply.provider, "model": reply.model,
                 "response_json": self.storable.json(reply.response, "response", notes),
                 "created_at": created_at} for key, reply in replies.items()]
        holds_secret = secret_finder()
        if holds_secret is not None:
            rows = [row for row in rows if not holds_secret(row["response_json"] or "")]
        if not rows:
            return []
        try:
            self._replace_cached(rows)
            return []
        except RowRejected:
            pass
        refused = []
        for row in rows:
            try:
                self._replace_cached([row])
            except RowRejected as exc:
                refused.append(exc.cause)
        return refused

    def _replace_cached(self, rows: list[dict[str, Any]]) -> None:
        cache = schema.response_cache
        with self._lock, self.engine.begin() as conn:
            conn.execute(delete(cache).where(cache.c.key.in_([row["key"] for row in rows])))
            insert_rows(conn, cache, rows)
