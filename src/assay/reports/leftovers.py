"""Temporary files of writes that never finished: told from live ones, and removed.

`atomic` writes each file to a temporary file beside it first. A process
killed mid-write (`kill -9`, a lost machine) cannot remove its temporary
file, which would then sit beside the reports for ever, half written. So
every writer holds an exclusive lock on its temporary file while it writes
(the operating system lets go of it when the process dies, however it
dies), and the next write of the same file removes the temporary files
nobody holds. A file only just created, not yet locked by its writer, is
left alone for `GRACE_SECONDS`.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path

GRACE_SECONDS = 2.0
"""A temporary file younger than this may belong to a writer about to lock it."""


def temporary_prefix(path: Path) -> str:
    """How the temporary files of writes to `path` begin (they end in `.tmp`)."""
    return f".{path.name}."


def hold(descriptor: int) -> None:
    """Mark the temporary file open at `descriptor` as being written, until it is closed."""
    if sys.platform != "win32":  # on Windows an open file cannot be removed anyway
        import fcntl

        with contextlib.suppress(OSError):  # a file system without locks: nothing is removed
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)


def remove_abandoned(path: Path) -> None:
    """Remove the temporary files of earlier writes to `path` whose writer is gone."""
    with contextlib.suppress(OSError):
        for candidate in path.parent.glob(f"{temporary_prefix(path)}*.tmp"):
            if _abandoned(candidate):
                with contextlib.suppress(OSError):
                    candidate.unlink()


def _abandoned(candidate: Path) -> bool:
    """Whether no process holds `candidate` and it is older than the grace period."""
    if time.time() - candidate.stat().st_mtime < GRACE_SECONDS:
        return False
    if sys.platform == "win32":
        return True  # removing it fails while its writer has it open
    import fcntl

    descriptor = os.open(candidate, os.O_RDWR)  # NFS locks a file open for writing only
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # held by its writer, or locks are not to be had here: keep it
        return False
    finally:
        os.close(descriptor)
    return True
