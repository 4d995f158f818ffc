"""The LLM response cache: a reply kept by its request's key, so a resumed or repeated
run does not pay for the same call twice.

A run asks before every LLM call, so the calls waiting at one moment are looked up
together, in one statement compiled once per store (`cache_get_many`), and on
PostgreSQL outside a transaction: a lookup is one round trip, where BEGIN, SELECT
and the pool's ROLLBACK made three. Replies are written in one transaction, or one
each when the database refuses a row. A reply holding a known secret (a model repeating the key it
was shown) is not kept: masked, a later run would replay an answer the model never gave,
and the store never holds a key.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Collection, Mapping
from functools import cached_property
from typing import Any

from sqlalchemy import (
    ARRAY,
    BindParameter,
    Engine,
    Select,
    Text,
    any_,
    bindparam,
    cast,
    column,
    delete,
    func,
    select,
)

from assay.records import CachedReply
from assay.redaction import secret_finder
from assay.store import schema
from assay.store.failures import RowRejected
from assay.store.inserts import insert_rows
from assay.store.rows import loads, now_iso
from assay.store.storable import Replacements, Storable

_KEYS: BindParameter[Any] = bindparam("keys")


def _lookup_statement(dialect: str) -> Select[tuple[str, str | None]]:
    """The replies cached under the keys given as one parameter: a list (an array) on
    PostgreSQL, a JSON list on SQLite, so one statement serves any number of keys."""
    cache = schema.response_cache
    query = select(cache.c.key, cache.c.response_json)
    if dialect == "postgresql":
        return query.where(cache.c.key == any_(cast(_KEYS, ARRAY(Text))))
    listed: Select[tuple[Any]] = select(column("value")).select_from(func.json_each(_KEYS))
    return query.where(cache.c.key.in_(listed.scalar_subquery()))


class CachedReplies:
    """Store methods keeping and finding cached LLM replies (mixed into `Store`)."""

    engine: Engine
    url: str
    storable: Storable
    _lock: threading.Lock

    def cache_get(self, key: str) -> dict[str, Any] | None:
        """The reply cached under `key`, or None."""
        return self.cache_get_many([key]).get(key)

    def cache_get_many(self, keys: Collection[str]) -> dict[str, dict[str, Any]]:
        """The replies cached under `keys`, by key (a key with none is left out), in one
        statement that reaches the driver with its SQL compiled once: SQLAlchemy's
        compilation of it costs more than a lookup on SQLite."""
        if not keys:
            return {}
        sql, positional, as_list = self._cache_lookup
        listed: Any = list(keys) if as_list else json.dumps(list(keys))
        with self._cache_reads.connect() as conn:
            rows = conn.exec_driver_sql(sql, (listed,) if positional else {"keys": listed})
            return {key: loads(value) for key, value in rows if value}

    def cache_holds(self, provider: str) -> bool:
        """Whether any reply of `provider` (its name, `anthropic`) is cached: a run missing
        its key may still be answered from them."""
        cache = schema.response_cache
        query = select(cache.c.key).where(cache.c.provider == provider).limit(1)
        with self.engine.connect() as conn:
            return conn.execute(query).first() is not None

    @cached_property
    def _cache_lookup(self) -> tuple[str, bool, bool]:
        """`cache_get_many`'s SQL in this database's dialect, whether it takes a tuple, and
        whether the keys go as a list (else as a JSON text)."""
        dialect = self.engine.dialect
        compiled = _lookup_statement(dialect.name).compile(dialect=dialect)
        return str(compiled), compiled.positional, dialect.name == "postgresql"

    @cached_property
    def _cache_reads(self) -> Engine:
        """The engine lookups read through: on PostgreSQL with no transaction around the
        SELECT (nothing to begin, nothing for the pool to roll back: one round trip, not
        three), the pool's connections handed back as they were taken."""
        if self.engine.dialect.name != "postgresql":
            return self.engine
        return self.engine.execution_options(isolation_level="AUTOCOMMIT")

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
