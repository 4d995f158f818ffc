"""Bulk inserts by the driver's own `executemany`, from a statement compiled once per table.

A run stores 100k trials at thousands a second. Through SQLAlchemy's
`conn.execute(table.insert(), rows)` each row's parameters are processed one
by one in Python, which costs more than SQLite's insert itself; the store's
columns are text and numbers, which need no processing, so the rows go to
the driver as they are (tuples for a positional paramstyle such as SQLite's,
the dicts themselves for a named one such as psycopg's). Errors still pass
through the engine's error handling (see `store.failures`).

Python's `sqlite3` binds text and numbers as they are, but looks for an
adapter for any other value, None included: finding none, it asks the
protocol for `__adapt__`, which raises an AttributeError, formatted and
thrown away, for every NULL of every row (a trial and its scores hold about
seventeen). An adapter registered for None, which returns it unchanged,
answers that lookup first (`null_as_is`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache, lru_cache
from operator import itemgetter
from typing import Any

from sqlalchemy import Connection, Table
from sqlalchemy.engine.interfaces import Dialect


def insert_rows(conn: Connection, table: Table, rows: Sequence[dict[str, Any]]) -> int:
    """Insert `rows` (dicts with the same keys, column names of `table`) in one
    `executemany`; returns how many."""
    if not rows:
        return 0
    if conn.dialect.name == "sqlite":
        null_as_is()
    sql, names = _statement(conn.dialect, table, tuple(rows[0]))
    if names is None:  # named parameters: the dicts as they are
        conn.exec_driver_sql(sql, list(rows))
    else:
        conn.exec_driver_sql(sql, list(map(_parameters(names), rows)))
    return len(rows)


@cache
def null_as_is() -> None:
    """Bind None as SQL NULL through a registered adapter (module notes): the same NULL,
    without an exception raised per value. Process-wide and harmless to other users of
    `sqlite3`, for whom None is bound as NULL either way."""
    import sqlite3  # only a SQLite store needs the module

    sqlite3.register_adapter(type(None), _same)


def _same(value: None) -> None:
    return value


@lru_cache(maxsize=32)
def _parameters(names: tuple[str, ...]) -> Callable[[dict[str, Any]], tuple[Any, ...]]:
    """A row's values in the order of `names`, as a tuple (even for a single name)."""
    if len(names) == 1:
        name = names[0]
        return lambda row: (row[name],)
    return itemgetter(*names)


@lru_cache(maxsize=32)
def _statement(dialect: Dialect, table: Table, columns: tuple[str, ...]
               ) -> tuple[str, tuple[str, ...] | None]:
    """The dialect's INSERT of `columns` into `table`, and for a positional paramstyle the
    column of each parameter in order (None: the parameters are named after the columns)."""
    compiled = table.insert().compile(dialect=dialect, column_keys=list(columns))
    if not dialect.positional:
        return str(compiled), None
    return str(compiled), tuple(compiled.positiontup or ())
