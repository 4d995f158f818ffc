"""A store written by another process between the reads of a command, as a run being
written is: the reads of one moment must not see it."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from sqlalchemy import Engine, event

from assay.store import Store


@contextlib.contextmanager
def between_reads(writer: Store, write: Callable[[], None], *, reading: str = "SELECT"
                  ) -> Iterator[None]:
    """`write` (through `writer`) after every SELECT any other engine makes in the block
    whose text holds `reading` (`FROM runs`: after every read of a run)."""
    writing = False

    def after_read(conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        nonlocal writing
        if writing or conn.engine is writer.engine or \
                not statement.lstrip().upper().startswith("SELECT") or reading not in statement:
            return
        writing = True
        try:
            write()
        finally:
            writing = False

    event.listen(Engine, "after_cursor_execute", after_read)
    try:
        yield
    finally:
        event.remove(Engine, "after_cursor_execute", after_read)
