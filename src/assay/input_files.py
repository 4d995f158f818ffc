"""Files a user names (a config, a dataset, labels, a suite entry, a pack's folder): a
regular file (or a folder), or a `UserError` saying why not.

`Path.exists()` and `Path.is_file()` raise on a name too long for the file system, and a
FIFO or a device passes `exists()` but blocks or never ends when read. Every input file is
checked here once, before it is opened, so each reader gets the same clear refusal.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from assay.errors import UserError


def is_regular_file(path: Path) -> bool:
    """True when `path` (links followed) is a regular file; False for anything else,
    including a name the file system refuses."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):  # too long, a loop of links, a NUL byte in the name
        return False


def require_regular_file(path: Path, what: str) -> None:
    """Raise `UserError` unless `path` is a regular file that can be opened for reading."""
    mode = _mode(path, what)
    if stat.S_ISDIR(mode):
        raise UserError(f"{what} {path} is a directory, not a file")
    if not stat.S_ISREG(mode):
        raise UserError(f"{what} {path} is not a regular file (a pipe or a device): "
                        "reading it could block forever")
    if not os.access(path, os.R_OK):
        raise UserError(f"cannot read {what} {path}: permission denied")


def require_directory(path: Path, what: str) -> None:
    """Raise `UserError` unless `path` is a folder whose entries can be listed."""
    if not stat.S_ISDIR(_mode(path, what)):
        raise UserError(f"{what} {path} is not a folder")
    if not os.access(path, os.R_OK | os.X_OK):
        raise UserError(f"cannot read {what} {path}: permission denied")


def find_program(name: str, *, cwd: Path, path: str | None, who: str) -> Path:
    """The executable a process started in `cwd` with PATH `path` runs for `name`, found as
    the OS finds it: a name with a slash is relative to `cwd`, a bare name is looked up on
    `path`. A `UserError` starting with `who` when there is none."""
    if os.sep in name or (os.altsep and os.altsep in name):
        program = Path(name).expanduser()
        program = program if program.is_absolute() else cwd / program
        if not is_regular_file(program):
            raise UserError(f"{who}: program '{name}' not found (looked for {program})")
        if not os.access(program, os.X_OK):
            raise UserError(f"{who}: program '{name}' is not executable (chmod +x {program})")
        return program
    found = shutil.which(name, path=path)
    if found is None:
        hint = (f" (to run the file in {cwd}, write ./{name})"
                if is_regular_file(cwd / name) else "")
        raise UserError(f"{who}: program '{name}' not found on PATH{hint}")
    return Path(found)


def _mode(path: Path, what: str) -> int:
    """The mode of `path`, links followed; a `UserError` when there is none to read."""
    try:
        return os.stat(path).st_mode
    except FileNotFoundError:
        raise UserError(f"{what} not found: {path}") from None
    except OSError as exc:  # a name too long, a loop of links, no permission
        raise UserError(f"cannot open {what} {path}: {exc.strerror or exc}") from None
    except ValueError:
        raise UserError(f"cannot open {what} {path!r}: the name holds a NUL byte") from None


UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")
"""The byte order marks a UTF-16 file starts with (Windows tools save "Unicode" text so)."""


UTF16_TEXT = "UTF-16 text (as Windows PowerShell writes it); save it as UTF-8"
"""What every reader says of a UTF-16 file (a config, a dataset, a session log, a document)."""


def is_utf16(head: bytes) -> bool:
    """Whether a file whose first bytes are `head` is UTF-16 text, which is read as UTF-8
    only as garbage: it is refused with one problem, `UTF16_TEXT`."""
    return head.startswith(UTF16_MARKS)


class NotUtf8Text(ValueError):
    """Bytes that are not UTF-8 text: UTF-16 (`line` and `byte` None), or the first byte
    that is not UTF-8 (`byte`) and the line it is on. Each reader words it for its file."""

    def __init__(self, line: int | None = None, byte: int | None = None) -> None:
        super().__init__(UTF16_TEXT if byte is None else f"byte 0x{byte:02x} is not UTF-8")
        self.line = line
        self.byte = byte


def utf8_text(raw: bytes) -> str:
    """The text of a file's bytes, as UTF-8 (a BOM is allowed): `NotUtf8Text` when they are
    UTF-16, or hold a byte that is not UTF-8."""
    if is_utf16(raw):
        raise NotUtf8Text()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise NotUtf8Text(raw.count(b"\n", 0, exc.start) + 1, raw[exc.start]) from None
