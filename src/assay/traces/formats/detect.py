"""Which reader a file needs, decided from its first JSON objects."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from assay.errors import UserError
from assay.input_files import UTF16_TEXT, is_utf16
from assay.traces.formats.base import ParseStats, SessionReader, iter_objects
from assay.traces.formats.claude_code import ClaudeCodeReader
from assay.traces.formats.openai_chat import OpenAIChatReader
from assay.traces.formats.pi import KNOWN_VERSIONS, PiReader
from assay.traces.log_files import open_log

READERS: dict[str, SessionReader] = {
    reader.name: reader for reader in (PiReader(), ClaudeCodeReader(), OpenAIChatReader())
}
SNIFF_OBJECTS = 5
TEXT_PROBE_BYTES = 8192
"""How much of a file's start is looked at to tell a text log from a binary file."""


class UnknownFormat(Exception):
    """The file matches no session format; the message says what was seen."""


def reader_named(name: str) -> SessionReader:
    if name not in READERS:
        raise UserError(f"unknown session format {name!r}; known: {', '.join(READERS)}")
    return READERS[name]


def detect(path: Path) -> SessionReader:
    """The reader whose `sniff` accepts one of the first objects of `path`."""
    probe = ParseStats(str(path))
    firsts = [obj for _, obj in islice(iter_objects(path, probe), SNIFF_OBJECTS)]
    for obj in firsts:
        for reader in READERS.values():
            if reader.sniff(obj):
                return reader
    raise UnknownFormat(_describe(firsts, probe))


def not_text(path: Path) -> str | None:
    """Why `path` is not a text session log at all, judged from its first bytes; None when
    it may be one. A binary file is refused before its lines are read: it may hold no
    newline for gigabytes, and each of its "lines" would be malformed anyway."""
    with open_log(path) as handle:
        head = handle.read(TEXT_PROBE_BYTES)
    if is_utf16(head):
        return UTF16_TEXT
    if b"\x00" in head:
        return "a binary file (it holds NUL bytes), not a text session log"
    return None


def _describe(firsts: list[dict[str, Any]], probe: ParseStats) -> str:
    if not firsts:
        if probe.malformed:
            line, reason = probe.malformed[0]
            return f"no JSON object found (line {line}: {reason})"
        return "empty file"
    first = firsts[0]
    if first.get("type") == "session" and first.get("version") not in (None, *KNOWN_VERSIONS):
        return (f"pi session version {first.get('version')!r} is not one this reader knows "
                f"({', '.join(map(str, KNOWN_VERSIONS))})")
    keys = ", ".join(sorted(first)[:8])
    return f"matches no session format ({', '.join(READERS)}); first object has keys: {keys}"


def read_events(path: Path, reader: SessionReader, stats: ParseStats) -> Iterator[Any]:
    stats.format = reader.name
    return reader.events(iter_objects(path, stats, reader.copy_keys), stats)
