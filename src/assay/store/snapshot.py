"""One moment of the store: every read in a block sees it as it was at the first.

A report reads a run with many queries (its trial count, each condition's
scores, the paired comparisons, then every trial). Over a run still being
written, each query used to see another moment: `assay report` printed
'trials: 3900 of 6000' and 1,950 trials per condition beside a comparison
over 1,967 cases scored on both sides. In the block, the store's engine hands
out one connection in one read transaction (SQLite's snapshot under WAL,
PostgreSQL's REPEATABLE READ), so the numbers of one report agree.

The moment belongs to the thread that opened it: `assay view` serves pages
from several threads over one store, and reviews in another, each in a moment
of its own; a thread outside any moment reads the store as it is now.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Connection, Engine

if TYPE_CHECKING:
    from assay.store.store import Store

_INSTALLING = threading.Lock()


class OneMoment:
    """An engine whose `connect()`, in a thread inside `one_moment`, is always that thread's
    one connection, in one read transaction (elsewhere a connection of the engine itself);
    everything else (writes included, with `begin()`) goes to the engine itself."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._threads = threading.local()

    @property
    def moment(self) -> Connection | None:
        """This thread's moment's connection; None outside one."""
        return cast("Connection | None", getattr(self._threads, "conn", None))

    @moment.setter
    def moment(self, conn: Connection | None) -> None:
        self._threads.conn = conn

    @contextlib.contextmanager
    def connect(self) -> Iterator[Connection]:
        if self.moment is not None:
            yield self.moment
            return
        with self.engine.connect() as conn:
            yield conn

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)


@contextlib.contextmanager
def one_moment(store: Store) -> Iterator[None]:
    """Every read of `store` in the block, by this thread, sees it as at the block's first
    read. Nested, it is the same moment."""
    moments = _moments(store)
    if moments.moment is not None:  # already in one
        yield
        return
    with moments.engine.connect() as conn:
        if moments.engine.dialect.name == "sqlite":
            conn.exec_driver_sql("BEGIN")  # the driver would not begin before a SELECT
        else:
            conn.execution_options(isolation_level="REPEATABLE READ")
        moments.moment = conn
        try:
            yield
        finally:
            moments.moment = None


def _moments(store: Store) -> OneMoment:
    """The store's engine, made able to hold each thread's moment (once, for good: a moment
    swapped in and out would be seen by every thread reading the store meanwhile)."""
    with _INSTALLING:
        if not isinstance(store.engine, OneMoment):
            moments = OneMoment(store.engine)
            store.engine = store.calibrations.engine = cast(Engine, moments)  # a report reads both
        return cast(OneMoment, store.engine)
