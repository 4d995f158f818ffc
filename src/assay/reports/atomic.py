"""Files assay writes reach the disk whole or not at all.

Each file is written to a temporary file beside it, flushed to the disk,
and renamed over the old one (through a symlink, over the file it points to;
a device or a pipe such as `/dev/null` is written into, never replaced), so a kill, a full disk or a crash mid-write
leaves the previous file (or none), never a truncated one that reads as a
complete report (a kill leaves its temporary file, which the next write of the
same file removes: `leftovers`). Every file assay writes goes through here: the run's
reports and JUnit, `suite.json`, `assay traces` outputs, exported
datasets, `assay init`, `assay compare -o` and `assay schema -o`.

Text is written as UTF-8; a lone surrogate, which no encoder accepts, is
written as its `\\udXXX` escape instead of failing the write. Known secrets
(`assay.redaction.masker`) are masked in every write, so a file made from
something other than the store (a dataset drafted from session logs, an
analysis of them) never holds the run's keys either.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, cast

from assay.reports.leftovers import hold, remove_abandoned, temporary_prefix


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_NEW_FILE_MODE = 0o666 & ~_umask()
"""What `open(path, "w")` would give a new file; a temporary file starts private (0600)."""


def _mode_for(path: Path) -> int:
    """The replaced file's permissions, or a new file's: never the temporary file's 0600."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        return _NEW_FILE_MODE


def ensure_writable_folder(folder: Path, option: str = "--output") -> None:
    """Make `folder` (and its parents), or say why files cannot go there, naming the
    command-line `option` that chose it (exit 2): before any work, not after it."""
    from assay.errors import UserError

    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        blocker = _file_in_the_way(folder)
        if blocker is not None:
            raise UserError(f"{option} {folder}: {blocker} is a file, not a folder") from None
        reason = exc.strerror or type(exc).__name__
        raise UserError(f"{option} {folder}: cannot make this folder ({reason})") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UserError(f"{option} {folder}: this folder is not writable")


def _file_in_the_way(folder: Path) -> Path | None:
    """The first of `folder` and its parents that exists and is not a folder."""
    for candidate in [*reversed(folder.parents), folder]:
        if candidate.exists() and not candidate.is_dir():
            return candidate
    return None


@contextlib.contextmanager
def atomic_writer(path: Path) -> Iterator[IO[str]]:
    """A text handle whose content replaces `path` only when the block ends without error.

    The operating system refusing the write (a full disk, no permission) is a
    `FileWriteError` naming the file, not an internal error."""
    from assay.redaction import masker

    mask = masker()
    try:
        with _replacing(path) as handle:
            yield handle if mask is None else cast(IO[str], _Masking(handle, mask))
    except OSError as exc:
        blocker = _file_in_the_way(path.parent)
        reason = (f"{blocker} is a file, not a folder" if blocker is not None
                  else exc.strerror or str(exc) or type(exc).__name__)
        from assay.errors import FileWriteError

        raise FileWriteError(f"could not write {path}: {reason}") from None


def unmasked(handle: IO[str]) -> IO[str]:
    """The handle beneath `atomic_writer`'s masking, for text masked before it came here:
    stored trials (the store masks every known secret as it stores them) and a file assay
    wrote. Searching such text again, one trial at a time, would find nothing."""
    return handle.handle if isinstance(handle, _Masking) else handle


class _Masking:
    """A text handle that masks known secrets in each write (whole writes only: a secret
    split over two writes is not seen, so writers write a line or a document at once)."""

    def __init__(self, handle: IO[str], mask: Callable[[str], str]) -> None:
        self.handle = handle
        self._mask = mask

    def write(self, text: str) -> int:
        return self.handle.write(self._mask(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.handle, name)


@contextlib.contextmanager
def _replacing(path: Path) -> Iterator[IO[str]]:
    if path.exists() and not path.is_file():  # a device or a pipe (/dev/null, /dev/stdout,
        with path.open("w", encoding="utf-8",  # a FIFO): written into, never replaced
                       errors="backslashreplace", newline="") as stream:
            yield stream
        return
    path = Path(os.path.realpath(path))  # through a symlink: the link stays, its file is replaced
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(prefix=temporary_prefix(path), suffix=".tmp",
                                             dir=path.parent)
    try:
        hold(descriptor)
        remove_abandoned(path)
        with os.fdopen(descriptor, "w", encoding="utf-8", errors="backslashreplace",
                       newline="") as handle:
            yield handle
            handle.flush()
            os.fchmod(handle.fileno(), _mode_for(path))
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_text(path: Path, text: str) -> None:
    """Write `text` to `path` atomically (see the module notes)."""
    with atomic_writer(path) as handle:
        handle.write(text)
