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
the URL sets its own `connect_timeout`, and a statement waits for another
session's lock `LOCK_WAIT_SECONDS` at most, as on SQLite.
"""

from __future__ import annotations

import os
import re
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from assay.errors import UserError

DATABASES = ("sqlite", "postgresql")
"""The databases a store may be kept in (their SQLAlchemy backend names)."""

CONNECT_TIMEOUT_SECONDS = 10
"""How long a PostgreSQL connection may take before the store is said to be unreachable."""

LOCK_WAIT_SECONDS = 30.0
"""How long a statement waits for a lock another process holds (SQLite's busy_timeout,
PostgreSQL's lock_timeout) before the store says it stayed locked: a session left open in
psql holding a table, or a stuck process, held `assay run` on PostgreSQL forever."""

_WRITE_INSTEAD = "write postgresql+psycopg://user@host:5432/database"

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
    _check_driver(parsed, shown)
    return url


def _check_driver(parsed: URL, shown: str) -> None:
    """A `UserError` when the URL's driver is one SQLAlchemy does not know (a typo such as
    `postgresql+psycopq`), an asynchronous one (the store's engine is synchronous), or one
    that is not installed: each used to end in a driver's import error, exit 3, or an
    internal error."""
    driver = parsed.get_driver_name() or parsed.drivername
    try:
        dialect = parsed.get_dialect()
    except NoSuchModuleError:
        raise UserError(f"the store URL {shown} names the driver '{driver}', which assay does "
                        f"not know: {_WRITE_INSTEAD}") from None
    if getattr(dialect, "is_async", False):
        raise UserError(f"the store URL {shown} names '{driver}', a driver for asyncio, which "
                        f"the store cannot use: {_WRITE_INSTEAD}")
    try:
        dialect.import_dbapi()
    except ImportError:
        raise UserError(f"the store URL {shown} needs the driver '{driver}', which is not "
                        f"installed: install it, or {_WRITE_INSTEAD} (pip install "
                        "'assay-eval[postgres]')") from None


def engine_arguments(url: str, *settings: str) -> tuple[str | URL, dict[str, Any]]:
    """The URL to make the engine with, and what the driver is given besides it. For
    PostgreSQL: a connect timeout and a lock timeout (`LOCK_WAIT_SECONDS`) unless the URL
    sets its own, and `settings` (`name=value` run-time parameters), added to the session
    options the URL (or `PGOPTIONS`) gives, such as a search_path."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "postgresql":
        return url, {}
    arguments: dict[str, Any] = {}
    if "connect_timeout" not in parsed.query:
        arguments["connect_timeout"] = CONNECT_TIMEOUT_SECONDS
    given = parsed.query.get("options", os.environ.get("PGOPTIONS", ""))
    options = [given] if isinstance(given, str) else list(given)
    if "lock_timeout" not in " ".join(options):
        settings = (*settings, f"lock_timeout={int(LOCK_WAIT_SECONDS * 1000)}")
    options += [f"-c {setting}" for setting in settings]
    arguments["options"] = " ".join(option for option in options if option)
    return parsed.difference_update_query(["options"]), arguments


def _port_text(url: str) -> str:
    host = urlsplit(url).netloc.rpartition("@")[2]
    return host.rpartition(":")[2] if ":" in host else host
