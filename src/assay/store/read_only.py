"""Opening a store for reading only: the database itself refuses writes.

`assay view` serves a store on a local port; whatever a request asks, it
must not be able to change a run. So the connection is read-only at the
database: SQLite is opened with `mode=ro` (and `query_only`), PostgreSQL
sessions start with `default_transaction_read_only`. Nothing is created
or migrated; a missing store is an error, not a new empty one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

from assay.errors import UserError
from assay.store.store_address import connect_args


def open_read_only(url: str) -> Engine:
    """An engine over an existing store that cannot write to it."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        path = Path(parsed.database or "")
        if not parsed.database or not path.is_file():
            raise UserError(f"no store at {path}: run an eval first, or name the store "
                            "with --store (or ASSAY_STORE)")
        engine = create_engine(f"sqlite:///file:{quote(str(path.resolve()))}?mode=ro&uri=true",
                               future=True)
        event.listen(engine, "connect", _sqlite_read_only)
        return engine
    if parsed.get_backend_name() == "postgresql":
        given = parsed.query.get("options") or ""  # e.g. a search_path; kept, not replaced
        options = " ".join([*([given] if isinstance(given, str) else given),
                            "-c default_transaction_read_only=on"]).strip()
        return create_engine(parsed.difference_update_query(["options"]), future=True,
                             connect_args={"options": options, **connect_args(url)})
    raise UserError(f"cannot open {parsed.get_backend_name()} stores read-only; "
                    "use SQLite or PostgreSQL")


def _sqlite_read_only(dbapi_conn: Any, _record: Any) -> None:
    cursor = dbapi_conn.cursor()
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA query_only=ON")
    cursor.close()
