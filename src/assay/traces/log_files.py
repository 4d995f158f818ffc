"""Opening a session log, plain (`.jsonl`) or gzipped (`.jsonl.gz`, as logs are archived).

A gzipped log is read as a stream, never unpacked whole. Its damage (a cut-off archive, a
bad checksum, a file that is no gzip at all) surfaces as `GZIP_DAMAGE` wherever its bytes
are read, and `damage_reason` says it in words for the report.
"""

from __future__ import annotations

import gzip
import io
import zlib
from pathlib import Path

LOG_SUFFIXES = (".jsonl", ".jsonl.gz")
"""The names of session logs found under a folder."""
GZIP_SUFFIX = ".gz"
GZIP_DAMAGE = (gzip.BadGzipFile, EOFError, zlib.error)
"""What reading a damaged gzip raises: no gzip header, a bad checksum (`BadGzipFile`),
an archive cut off (`EOFError`), a damaged block (`zlib.error`)."""
READ_FAILURES = (OSError, *GZIP_DAMAGE)
"""What reading any log may raise: the file system's refusal or a damaged gzip."""


def is_log_name(name: str) -> bool:
    return name.endswith(LOG_SUFFIXES)


def is_gzipped(path: Path) -> bool:
    return path.name.endswith(GZIP_SUFFIX)


def open_log(path: Path) -> gzip.GzipFile | io.BufferedReader:
    """The log's bytes, unpacked as they are read when its name ends in `.gz`."""
    if is_gzipped(path):
        return gzip.open(path, "rb")
    return path.open("rb")


def log_name(path: Path) -> str:
    """The log's file name without `.gz`: a log and its archive give the same exchange ids."""
    return path.name.removesuffix(GZIP_SUFFIX)


def log_stem(path: Path) -> str:
    """The log's name without `.jsonl` or `.jsonl.gz` (a Claude Code session id)."""
    return Path(log_name(path)).stem


def damage_reason(exc: Exception) -> str:
    """What is wrong with a gzipped log, in words."""
    if isinstance(exc, EOFError):
        return "the gzip file is cut short (the archive was cut off or is still being written)"
    if isinstance(exc, gzip.BadGzipFile) and str(exc).startswith("Not a gzipped file"):
        return "named .gz but not a gzip file"
    return f"the gzip file is damaged ({exc})"
