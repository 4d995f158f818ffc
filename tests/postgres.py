"""A PostgreSQL schema per test: the server is shared, the tables are not."""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator

from sqlalchemy import create_engine, make_url, text


@contextlib.contextmanager
def scratch_schema(server_url: str) -> Iterator[str]:
    """A URL whose tables live in a new, empty schema of `server_url`'s database; the schema
    and everything in it is dropped when the block ends."""
    name = f"assay_test_{secrets.token_hex(6)}"
    admin = create_engine(server_url)
    try:
        with admin.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{name}"'))
        url = make_url(server_url).update_query_dict({"options": f"-csearch_path={name}"})
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{name}" CASCADE'))
        admin.dispose()
