"""Opening a store for reading only: the database itself refuses writes.

`assay view` serves a store on a local port; whatever a request asks, it
must not be able to change a run. So the connection is read-only at the
database: SQLite is opened with `mode=ro` (and `query_only`), PostgreSQL
sessions start with `default_transaction_read_only`. Nothing is created
or migrated; a missing store is an error, not a new empty one.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

from assay.errors import UserError
from assay.store.answer_wait import answering_within
from assay.store.store_address import LOCK_WAIT_SECONDS, engine_arguments

FIRST_STORE = "run an eval first, or name the store with --store (or ASSAY_STORE)"


def open_read_only(url: str) -> Engine:
    """An engine over an existing store that cannot write to it."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        path = Path(parsed.database or "")
        absent = no_store_in(path)
        if absent is not None:
            raise UserError(absent)
        engine = create_engine(f"sqlite:///file:{quote(str(path.resolve()))}?"
                               f"{_sqlite_read_mode(path)}&uri=true", future=True)
        event.listen(engine, "connect", _sqlite_read_only)
        return engine
    if parsed.get_backend_name() == "postgresql":  # a search_path given is kept, not replaced
        address, arguments = engine_arguments(url, "default_transaction_read_only=on")
        engine = create_engine(address, future=True, connect_args=arguments)
        answering_within(engine)  # a page of a server that stopped answering ends in time
        return engine
    raise UserError(f"cannot open {parsed.get_backend_name()} stores read-only; "
                    "use SQLite or PostgreSQL")


def no_store_in(path: Path) -> str | None:
    """Why `path` holds no store to read (`no store at PATH`, `the store PATH is an empty
    file`: SQLite takes a zero-byte file for an empty database, and opening it to read would
    write the tables in), with what to do; None for a file with something in it."""
    if not path.is_file():
        return f"no store at {path}: {FIRST_STORE}"
    if path.stat().st_size == 0:
        return f"the store {path} is an empty file, not a store: {FIRST_STORE}"
    return None


def cannot_be_written(path: Path) -> bool:
    """Whether this process can write neither the SQLite file at `path` nor beside it (a
    read-only mount, a CI artifact's folder, another user's store): a store that must be
    opened read-only to be read at all."""
    return not os.access(path, os.W_OK) or not os.access(path.parent, os.W_OK)


def _sqlite_read_mode(path: Path) -> str:
    """`mode=ro`, or `immutable=1` for a file in a folder this process cannot write, with no
    write-ahead log beside it. SQLite reads a WAL store through a `-shm` index it makes
    beside the file, so on a read-only mount `mode=ro` fails ('attempt to write a readonly
    database') and `assay view`, `runs` or `report` could not read a store they never write
    to. With no `-wal` file, the file holds every committed trial and no writer has it open."""
    wal = path.with_name(path.name + "-wal")
    if os.access(path.parent, os.W_OK) or (wal.exists() and wal.stat().st_size > 0):
        return "mode=ro"
    return "immutable=1"


def _sqlite_read_only(dbapi_conn: Any, _record: Any) -> None:
    cursor = dbapi_conn.cursor()
    cursor.execute(f"PRAGMA busy_timeout={int(LOCK_WAIT_SECONDS * 1000)}")
    cursor.execute("PRAGMA query_only=ON")
    cursor.close()
