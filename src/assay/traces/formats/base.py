"""What every session reader shares: line reading, parse statistics, the reader shape.

Files are read in binary and each line is parsed with orjson: a session log
is mostly long strings (tool output), which orjson decodes many times
faster than the standard library; the rare line it refuses goes through
`assay.json_line`. Nothing holds more than one line.
"""

from __future__ import annotations

import builtins
import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import orjson

from assay.finite_number import finite_number
from assay.json_line import BadJsonLine, read_json_line
from assay.output import MAX_COUNT
from assay.traces.log_files import GZIP_DAMAGE, damage_reason, open_log
from assay.traces.records import Event
from assay.valid_text import valid_record
from assay.wording import plural

Line = tuple[int, dict[str, Any]]
"""A 1-based line number and the JSON object on that line."""
MALFORMED_KEPT = 20
REASON_CHARS = 400
"""A line's problems are joined into one reason until it is this long."""
UTF8_BOM = b"\xef\xbb\xbf"
_MALFORMED = object()
"""What `_read_refused` returns for a line it counted as malformed."""


FIRST_LINE_BYTES = 1 << 16
"""How much of a log's first line tells it apart (a longer one is the same past it)."""


@dataclass
class ParseStats:
    """How each line of one file was accounted for, so no skip goes unexplained."""

    path: str
    format: str | None = None
    lines: int = 0
    bytes: int = 0
    malformed: list[tuple[int, str]] = field(default_factory=list)
    """The first `MALFORMED_KEPT` lines that are not a JSON object: (line, reason). Skipped."""
    malformed_count: int = 0
    """All of them, including those past `MALFORMED_KEPT`."""
    ignored: Counter[str] = field(default_factory=Counter)
    """Known line kinds that carry nothing for exchanges (hook progress, snapshots, ...)."""
    unknown: dict[str, int] = field(default_factory=dict)
    """Line kinds this reader does not know: kind -> first line number. Skipped."""
    unknown_counts: Counter[str] = field(default_factory=Counter)
    """Line kinds this reader does not know: kind -> how many lines of it were skipped."""
    orphans: int = 0
    """Lines of agent activity before the first question of the file: in no exchange, so
    in no metric."""
    first_orphan: int | None = None
    """The first of those lines."""
    local_commands: int = 0
    """Slash commands the CLI handled itself (no model reply): not questions."""
    repeats: int = 0
    """Lines byte for byte the same as the line before them, holding its time or id: copies
    (a line written twice), skipped."""
    first_repeat: int | None = None
    """The first of those lines."""
    first_line: builtins.bytes | None = None  # `bytes` here is the field above
    """The file's first line (up to `FIRST_LINE_BYTES`, stripped), kept as it is read:
    what tells the log apart from others of its name (`SessionMeta.file_origin`)."""
    _last_orphan: int = field(default=0, init=False, repr=False)
    _last_bad: int = field(default=0, init=False, repr=False)

    def bad_line(self, line: int, reason: str) -> None:
        """Count a malformed line; keep its details only for the first few (memory stays flat).
        A line's second problem joins its first, so the count stays one of lines."""
        if line == self._last_bad:
            if self.malformed and self.malformed[-1][0] == line:  # kept: join its reasons
                kept = self.malformed[-1][1]
                if reason not in kept and len(kept) < REASON_CHARS:
                    self.malformed[-1] = (line, f"{kept}; {reason}")
            return
        self._last_bad = line
        self.malformed_count += 1
        if len(self.malformed) < MALFORMED_KEPT:
            self.malformed.append((line, reason))

    def orphan(self, line: int) -> None:
        """Count a line of activity before any question (a line's several events once)."""
        if self.first_orphan is None:
            self.first_orphan = line
        if line != self._last_orphan:
            self._last_orphan = line
            self.orphans += 1

    def orphaned(self) -> str | None:
        """The activity before the first question, as a person reads it; None when none."""
        if not self.orphans:
            return None
        return (f"{plural(self.orphans, 'line')} of agent activity before the first question "
                f"(from line {self.first_orphan}), in no exchange")

    def malformed_lines(self, reason: Callable[[str], str] = str, shown: int = 3) -> str | None:
        """The first `shown` malformed lines by number and why (each reason passed through
        `reason` first), and how many more; None when none:
        `line 4: an array, not an object; line 9: cut short ...; and 2 more malformed`."""
        if not self.malformed_count:
            return None
        lines = [f"line {n}: {reason(why)}" for n, why in self.malformed[:shown]]
        if self.malformed_count > len(lines):
            lines.append(f"and {self.malformed_count - len(lines):,} more malformed")
        return "; ".join(lines)

    def repeat(self, line: int) -> None:
        """Count a line skipped as a copy of the line before it."""
        if self.first_repeat is None:
            self.first_repeat = line
        self.repeats += 1

    def repeated(self) -> str | None:
        """The lines skipped as copies, as a person reads it; None when none."""
        if not self.repeats:
            return None
        return (f"{plural(self.repeats, 'line')} the same as the line before (from line "
                f"{self.first_repeat}), skipped as copies")

    def ignore(self, kind: str) -> None:
        self.ignored[kind] += 1

    def unknown_kind(self, kind: str, line: int) -> None:
        self.unknown.setdefault(kind, line)
        self.unknown_counts[kind] += 1

    def unknown_kinds(self, name: Callable[[str], str] = str) -> list[str]:
        """Each unknown kind as a person reads it, `kind (3 lines, first at line 16)`, with
        the kind (text from the log) passed through `name` first."""
        return [f"{name(kind)} ({plural(self.unknown_counts[kind], 'line')}, first at line "
                f"{line})" for kind, line in self.unknown.items()]

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "format": self.format,
            "lines": self.lines,
            "bytes": self.bytes,
            "malformed": [{"line": n, "reason": r} for n, r in self.malformed],
            "malformed_count": self.malformed_count,
            "ignored": dict(self.ignored),
            "unknown": dict(self.unknown),
            "unknown_counts": dict(self.unknown_counts),
            "orphans": self.orphans,
            "first_orphan": self.first_orphan,
            "local_commands": self.local_commands,
            "repeats": self.repeats,
            "first_repeat": self.first_repeat,
        }


class SessionReader(Protocol):
    """One session file format: recognise its first object, turn lines into events."""

    name: str
    copy_keys: tuple[str, ...]
    """Keys that make a line one of a kind (its time, its id): a line holding one that is
    the same as the line before it is a copy (a line written twice), not a second event."""

    def sniff(self, first: dict[str, Any]) -> bool: ...

    def events(self, lines: Iterable[Line], stats: ParseStats) -> Iterator[Event]: ...


def iter_objects(path: Path, stats: ParseStats, copy_keys: tuple[str, ...] = ()
                 ) -> Iterator[Line]:
    """Yield each JSON object line of `path`; count and skip the malformed ones, and the
    copies: a line the same as the line before it that holds one of `copy_keys` (only the
    line before is kept, so memory stays flat)."""
    loads = orjson.loads
    previous, same = b"", False
    with open_log(path) as handle:
        for number, raw in _numbered_lines(handle, stats):
            stats.lines = number
            stats.bytes += len(raw)
            if number == 1:
                stats.first_line = raw[:FIRST_LINE_BYTES].strip()
            if number == 1 and raw.startswith(UTF8_BOM):  # as Windows tools write UTF-8
                raw = raw[len(UTF8_BOM):]
            if not raw or raw.isspace():
                continue
            if copy_keys:  # the last line, without its newline, is still a copy
                whole = raw if raw.endswith(b"\n") else raw + b"\n"
                same, previous = whole == previous, whole
            try:
                obj = loads(raw)
            except orjson.JSONDecodeError as exc:
                obj = _read_refused(raw, number, stats, str(exc))
                if obj is _MALFORMED:
                    continue
            if not isinstance(obj, dict):
                stats.bad_line(number, f"{_json_kind(obj)}, not an object")
                continue
            if copy_keys and same and any(key in obj for key in copy_keys):
                stats.repeat(number)
                continue
            yield number, obj


def _numbered_lines(handle: Iterable[bytes], stats: ParseStats) -> Iterator[tuple[int, bytes]]:
    """Each line with its number; a gzipped log damaged part way ends at the damage, said as
    a problem of the line after the last one read (the lines before it are kept, as in a log
    cut off)."""
    number = 0
    try:
        for number, raw in enumerate(handle, 1):
            yield number, raw
    except GZIP_DAMAGE as exc:
        stats.bad_line(number + 1, f"{damage_reason(exc)}: reading stopped here")


def _read_refused(raw: bytes, number: int, stats: ParseStats, refusal: str) -> Any:
    """A line orjson refused, read by `read_json_line`: valid JSON orjson cannot read (a
    lone surrogate escape, as Node writes for text cut inside an emoji) is kept, each lone
    surrogate made U+FFFD so the text can be written; otherwise `_MALFORMED`, the line
    counted malformed with a reason that names its column (orjson's put every line at its
    line 1, and any byte that is not UTF-8 at its column 1). A line that stops inside its
    JSON is said to be cut short: the last line of a log still being written, or cut off."""
    if refusal.startswith("unexpected end of data"):
        stats.bad_line(number, "cut short (the log was cut off or is still being written)")
        return _MALFORMED
    try:
        return valid_record(read_json_line(raw))[0]
    except BadJsonLine as exc:
        stats.bad_line(number, str(exc))
    except RecursionError:
        stats.bad_line(number, "invalid JSON: nested too deeply")
    return _MALFORMED




def token_count(usage: dict[str, Any], keys: tuple[str, ...], line: int, stats: ParseStats,
                where: str = "usage") -> int:
    """The token count under the first of `keys` that `usage` holds (0 when none does or it
    is null). A value that is not a whole number of tokens (`1.5`, `-3`, `"12"`, `true`) is
    left out and said as a problem of `line`: read as it was, it made figures such as
    'tokens per question -3'."""
    for key in keys:
        value = usage.get(key)
        if value is None:
            continue
        if isinstance(value, float) and value.is_integer() and 0 <= value <= MAX_COUNT:
            return int(value)
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT:
            return value  # past MAX_COUNT (10**400): no count a store keeps, nor a float
        stats.bad_line(line, f"`{where}.{key}` is {_shown(value)}, not a token count: left out")
        return 0
    return 0


def cost_amount(value: Any, field_name: str, line: int, stats: ParseStats) -> float | None:
    """A logged cost in dollars, or None when none was logged. A value that is not a number
    of dollars at or above zero (`"0.5"`, `-1`) is left out and said as a problem of `line`,
    so the cost is not claimed complete."""
    if value is None:
        return None
    amount = finite_number(value)
    if amount is not None and amount >= 0:
        return amount
    stats.bad_line(line, f"`{field_name}` is {_shown(value)}, not a dollar amount: left out")
    return None


def _shown(value: Any) -> str:
    """A field's value as the log holds it, cut to a few words."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:39] + "…"


def _json_kind(value: object) -> str:
    """What a JSON value is, in JSON's words: `null`, `an array`, `a string`, ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return f"a {type(value).__name__}"
