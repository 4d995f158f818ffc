"""One moment of the store: every read in a block sees it as it was at the first.

A report reads a run with many queries (its trial count, each condition's
scores, the paired comparisons, then every trial). Over a run still being
written, each query used to see another moment: `assay report` printed
'trials: 3900 of 6000' and 1,950 trials per condition beside a comparison
over 1,967 cases scored on both sides. In the block, the store's engine hands
out one connection in one read transaction (SQLite's snapshot under WAL,
PostgreSQL's REPEATABLE READ), so the numbers of one report agree.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Connection, Engine

if TYPE_CHECKING:
    from assay.store.store import Store


class OneMoment:
    """An engine whose `connect()` is always one connection, in one read transaction;
    everything else (writes included, with `begin()`) goes to the engine itself."""

    def __init__(self, engine: Engine, conn: Connection) -> None:
        self._engine = engine
        self._conn = conn

    @contextlib.contextmanager
    def connect(self) -> Iterator[Connection]:
        yield self._conn

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)


@contextlib.contextmanager
def one_moment(store: Store) -> Iterator[None]:
    """Every read of `store` in the block sees it as at the block's first read."""
    if isinstance(store.engine, OneMoment):  # already in one
        yield
        return
    engine = store.engine
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            conn.exec_driver_sql("BEGIN")  # the driver would not begin before a SELECT
        else:
            conn.execution_options(isolation_level="REPEATABLE READ")
        moment = cast(Engine, OneMoment(engine, conn))
        store.engine = store.calibrations.engine = moment  # a report reads both
        try:
            yield
        finally:
            store.engine = store.calibrations.engine = engine
