"""A store's URL checked before anything connects, and connections that give up in time.

`--store` and `ASSAY_STORE` take a SQLite path or a database URL. What a
user may mistype there used to end badly: a port that is not a number in a
Python traceback, `postgres://` (libpq's spelling) or `mysql://` in a
driver's import error (exit 3, as if the database were down), and
`sqlite://` with no file (an unset variable in `sqlite:///$DIR/x.db`) in a
run kept in memory and gone when assay exits, after exit 0. Each is now one
line and exit 2, and `postgres://` is read as `postgresql://`.

A PostgreSQL server that accepts the connection and never answers (a hung
server, a port forwarded to something else) held `assay run`, `runs` and
`view` forever: connections give up after `CONNECT_TIMEOUT_SECONDS` unless
the URL sets its own `connect_timeout`.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from assay.errors import UserError

DATABASES = ("sqlite", "postgresql")
"""The databases a store may be kept in (their SQLAlchemy backend names)."""

CONNECT_TIMEOUT_SECONDS = 10
"""How long a PostgreSQL connection may take before the store is said to be unreachable."""

_PASSWORD = re.compile(r"(://[^:/@]*:)[^@/]*@")


def checked_url(url: str) -> str:
    """`url` when it names a store assay can keep runs in (`postgres://` written as
    `postgresql://`); else a `UserError` saying what is wrong with it."""
    if url.startswith("postgres://"):
        url = "postgresql://" + url.removeprefix("postgres://")
    shown = _PASSWORD.sub(r"\1***@", url)
    try:
        parsed = make_url(url)
    except ValueError:  # SQLAlchemy reads the port with int()
        raise UserError(f"the store URL {shown} has a port that is not a number "
                        f"('{_port_text(url)}')") from None
    except ArgumentError:
        raise UserError(f"the store URL {shown} is not a URL assay can read: write a SQLite "
                        "path or postgresql+psycopg://user@host:5432/database") from None
    backend = parsed.get_backend_name()
    if backend not in DATABASES:
        raise UserError(f"the store URL {shown} names a {backend} database: assay keeps runs "
                        "in SQLite (a file path) or PostgreSQL "
                        "(postgresql+psycopg://user@host:5432/database)")
    if backend == "sqlite" and (parsed.database or "") in ("", ":memory:"):
        raise UserError(f"the store URL {shown} names no file: the runs would be kept in "
                        "memory and lost when assay exits (give a path, e.g. "
                        "sqlite:///.assay/assay.db)")
    return url


def connect_args(url: str) -> dict[str, Any]:
    """What the driver is given besides the URL: a connect timeout for PostgreSQL."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "postgresql" or "connect_timeout" in parsed.query:
        return {}
    return {"connect_timeout": CONNECT_TIMEOUT_SECONDS}


def _port_text(url: str) -> str:
    host = urlsplit(url).netloc.rpartition("@")[2]
    return host.rpartition(":")[2] if ":" in host else host
