"""Database errors as one clear line: what is wrong with the store, never SQL or row values.

SQLAlchemy's own message carries the statement and its parameters (a case's
input, a model's answer); PostgreSQL's carries a DETAIL line with the key.
Every error the engine raises is turned here into a `StoreError` naming the
store and the cause (full, read-only, not a database, unreachable), with the
driver's first line, masked and cut, when no better words are known.

`RowRejected` is the kind the store can work around: the database refused
a row's values (a duplicate key, a value too long for its column, text it
cannot encode), so the other rows of the batch can still be stored.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import Engine, event
from sqlalchemy.engine import ExceptionContext, make_url
from sqlalchemy.exc import ArgumentError, DataError, IntegrityError

from assay.errors import StoreError
from assay.redaction import redact

DRIVER_MESSAGE_CHARS = 200

DRIVER_LOGGERS = ("psycopg",)
"""Drivers that log what went wrong besides raising it: psycopg warns 'error ignored
terminating <psycopg.Pipeline [BAD] at 0x...>' when the server goes away in the middle of a
batch insert. The `StoreError` says it once; with no handler of their own, Python would print
such a record to stderr above it."""


class RowRejected(StoreError):
    """The database refused one row's values; the store itself is fine."""

    def __init__(self, message: str, cause: str) -> None:
        super().__init__(message)
        self.cause = cause
        """The driver's reason alone (`value too long for type character varying(40)`)."""


def store_name(url: str) -> str:
    """The store as a person knows it: a SQLite file's path, or the URL without password."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return "(an unreadable URL)"
    if parsed.get_backend_name() == "sqlite":
        return parsed.database or ":memory:"
    return parsed.render_as_string(hide_password=True)


def driver_message(exc: BaseException) -> str:
    """The first line of the driver's own message, masked and cut: no SQL, no DETAIL."""
    original = getattr(exc, "orig", None) or exc
    text = str(original).strip().splitlines()
    first = text[0] if text else type(original).__name__
    if len(first) > DRIVER_MESSAGE_CHARS:
        first = first[:DRIVER_MESSAGE_CHARS] + "..."
    return redact(first)


_CAUSES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("disk is full", "no space left", "disk full", "quota exceeded"),
     "is full: its disk has no room left (free some space, then resume the run)"),
    (("readonly database", "read-only file system", "read only file system",
      "read-only transaction"),
     "is read-only: assay cannot write to it (choose another with --store or ASSAY_STORE)"),
    (("file is not a database", "database disk image is malformed", "not a database"),
     ("is not a readable SQLite database: the file is damaged or of another kind "
      "(move it aside to start a new store)")),
    (("disk i/o error",),
     ("could not be written: a disk I/O error (a full disk, a file size limit, a failing "
      "device)")),
    (("database is locked", "due to lock timeout"),
     "stayed locked by another process past the wait (another assay writing to it?)"),
    (("password authentication failed", "no password supplied", "authentication failed"),
     "refused the login: check the user and the password in the URL"),
    (("connection refused", "could not connect", "connection failed", "could not translate",
      "failed to resolve host",  # a misspelt host name
      "server closed the connection", "connection timed out",
      "terminating connection", "the connection is lost",  # a server stopped mid-run
      "connection timeout expired"),  # a server that does not answer
     "cannot be reached"),
    (("no answer to a statement",),  # a server that stopped answering mid-run (answer_wait)
     "stopped answering"),
)


def store_failure(exc: BaseException, url: str) -> StoreError:
    """`exc` (a driver or SQLAlchemy error) as a one-line `StoreError` about the store at `url`."""
    message = driver_message(exc)
    lowered = message.lower()
    if isinstance(exc, IntegrityError | DataError | UnicodeError) or \
            isinstance(getattr(exc, "orig", None), UnicodeError):
        return RowRejected(f"the store {store_name(url)} refused a row: {message}", message)
    if (database := _not_on_server("database", message)) is not None:
        return StoreError(f"the store {store_name(url)} names a database the server does not "
                          f"have: create it (createdb {database}) or name one that exists "
                          f"({message})")
    if _not_on_server("role", message) is not None:
        return StoreError(f"the store {store_name(url)} refused the login: the server has no "
                          f"such user; check the user in the URL ({message})")
    for needles, cause in _CAUSES:
        if any(needle in lowered for needle in needles):
            return StoreError(f"the store {store_name(url)} {cause} ({message})")
    if "unable to open database file" in lowered:
        return StoreError(f"cannot open the store {store_name(url)}: its folder is missing, "
                          f"not writable, or the path is not a file ({message})")
    return StoreError(f"the store {store_name(url)} failed: {message}")


def _not_on_server(kind: str, message: str) -> str | None:
    """The name of the `kind` (database, role) PostgreSQL said does not exist
    (`database "evals" does not exist`); None for another message."""
    _, found, after = message.partition(f'{kind} "')
    name, quoted, rest = after.partition('"')
    if not found or not quoted or not rest.strip().startswith("does not exist"):
        return None
    return name


def translate_errors(engine: Engine, url: str) -> None:
    """Make every error `engine` raises a `StoreError` (see the module notes)."""

    def handle(context: ExceptionContext) -> Any:
        if not isinstance(context.original_exception, Exception):
            return None  # Ctrl-C or a cancelled task while the store worked: not the store's
        raise store_failure(context.sqlalchemy_exception or context.original_exception,
                            url) from context.original_exception

    event.listen(engine, "handle_error", handle)
    for name in DRIVER_LOGGERS:  # still passed on to an application's own logging
        logger = logging.getLogger(name)
        if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
            logger.addHandler(logging.NullHandler())
