"""A SQLite store's file stays the one the store opened, or the run stops.

Deleting or replacing `.assay/assay.db` while a run writes to it (a clean-up
script, `git clean -fdx`, a copy or backup put in its place) is no error to
SQLite: its open connections go on writing to the file that was removed, and
the run used to end `completed`, exit 0, with every trial in a file nobody
can open again. Before each batch of trials the store compares the file at its
path with the one it opened (`StoreFile.check`), so the run stops at the next
batch, saying what happened.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from sqlalchemy.engine import make_url

from assay.errors import StoreGone


@dataclass(frozen=True)
class StoreFile:
    """The file a SQLite store opened: its path and which file it was (device and inode)."""

    path: str
    device: int
    inode: int

    @classmethod
    def opened(cls, url: str) -> StoreFile | None:
        """The file `url` names as it is now; None for another database, memory or no file."""
        parsed = make_url(url)
        path = parsed.database or ""
        if parsed.get_backend_name() != "sqlite" or path in ("", ":memory:") \
                or path.startswith("file:"):
            return None
        path = os.path.abspath(path)  # a target that changes directory moves no store
        try:
            found = os.stat(path)
        except OSError:
            return None
        return cls(path, found.st_dev, found.st_ino)

    def changed(self) -> str | None:
        """`deleted` or `replaced by another file` when the file at the path is no longer
        the one opened; None while it is (or cannot be looked at for the moment)."""
        try:
            found = os.stat(self.path)
        except FileNotFoundError:
            return "deleted"
        except OSError:  # unreadable for the moment: the next read or write will say why
            return None
        if (found.st_dev, found.st_ino) == (self.device, self.inode):
            return None
        return "replaced by another file"

    def check(self) -> None:
        """`StoreGone` when the file at the path is missing or another file."""
        what = self.changed()
        if what is None:
            return
        raise StoreGone(f"the store {self.path} was {what} while this run wrote to it: what "
                        "the run stored went with the old file, so it stops here (run it "
                        "again to store its trials)")
