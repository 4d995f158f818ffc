"""Values every database can hold, and a note of what had to change to get there.

Text reaches the store from datasets, targets, scorers and judges. Most of
it is already valid, but a Python string may still hold what no database
accepts: a lone surrogate (a reply cut in the middle of an emoji, JSON's
`"\\ud800"`) fails every UTF-8 encoder, a NUL character is refused by
PostgreSQL's text columns, and a JSON column cannot hold an integer past 64
bits or nesting deeper than the encoder allows. Here each such value is made
storable (U+FFFD for a surrogate or a NUL, a string for an integer or a
nesting too deep) and counted per field, so the trial can say what changed.

The common case costs one check per text and one JSON encoding per column:
values are walked only when that encoding fails.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from assay.valid_text import REPLACEMENT, valid_text

_NUL = "\x00"
MAX_JSON_DEPTH = 200
"""Nesting kept in a JSON column (the encoder refuses past 254); deeper values become text."""
_INT64 = (-(2**63), 2**64 - 1)


@dataclass
class Replacements:
    """What was changed to store one trial: per field (`input`, `output_text`,
    `scores.<name>.reason`, ...), how many values of each kind."""

    by_field: dict[str, dict[str, int]] = field(default_factory=dict)

    def add(self, where: str, kind: str, count: int = 1) -> None:
        if count:
            counts = self.by_field.setdefault(where, {})
            counts[kind] = counts.get(kind, 0) + count

    def merge(self, other: dict[str, dict[str, int]]) -> None:
        for where, counts in other.items():
            for kind, count in counts.items():
                self.add(where, kind, count)

    def __bool__(self) -> bool:
        return bool(self.by_field)


class Storable:
    """Makes text and JSON storable in one database (`nul_allowed`: SQLite yes, PostgreSQL no)."""

    def __init__(self, *, nul_allowed: bool) -> None:
        self.nul_allowed = nul_allowed

    def text(self, value: str | None, where: str, notes: Replacements) -> str | None:
        """`value` as a text column can hold it; each change counted under `where`."""
        if value is None:
            return None
        if not isinstance(value, str):
            value = str(value)
        elif value.isascii() and (self.nul_allowed or _NUL not in value):
            return value  # most text: nothing to replace, known without a walk
        value = _without_surrogates(value, where, notes)
        if not self.nul_allowed and _NUL in value:
            notes.add(where, "nul_characters", value.count(_NUL))
            value = value.replace(_NUL, REPLACEMENT)
        return value

    def json(self, value: Any, where: str, notes: Replacements) -> str | None:
        """`value` as JSON text (anything JSON cannot hold as its `str()`), made storable.

        JSON escapes NUL as `\\u0000`, so only surrogates, huge integers and deep
        nesting need fixing, and only when the first encoding fails."""
        if value is None:
            return None
        try:
            return _dumps(value)
        except (orjson.JSONEncodeError, RecursionError):
            pass
        return _dumps(self._fixed(value, where, notes, 0))

    def _fixed(self, value: Any, where: str, notes: Replacements, depth: int) -> Any:
        if isinstance(value, str):
            return _without_surrogates(value, where, notes)
        if isinstance(value, bool) or value is None or isinstance(value, float):
            return value
        if isinstance(value, int):
            if _INT64[0] <= value <= _INT64[1]:
                return value
            notes.add(where, "integers_as_text")
            return _int_text(value)
        if depth >= MAX_JSON_DEPTH:
            notes.add(where, "nesting_as_text")
            return _without_surrogates(_shallow_text(value), where, notes)
        if isinstance(value, dict):
            return {self._key(k, where, notes): self._fixed(v, where, notes, depth + 1)
                    for k, v in value.items()}
        if isinstance(value, list | tuple | set | frozenset):
            return [self._fixed(item, where, notes, depth + 1) for item in value]
        return _without_surrogates(str(value), where, notes)

    def _key(self, key: Any, where: str, notes: Replacements) -> Any:
        if isinstance(key, str):
            return _without_surrogates(key, where, notes)
        if isinstance(key, int) and not isinstance(key, bool) and \
                not _INT64[0] <= key <= _INT64[1]:
            notes.add(where, "integers_as_text")
            return _int_text(key)
        return key if isinstance(key, int | float | bool) or key is None else \
            _without_surrogates(str(key), where, notes)


def _dumps(value: Any) -> str:
    return orjson.dumps(value, default=str, option=orjson.OPT_NON_STR_KEYS).decode()


def _without_surrogates(text: str, where: str, notes: Replacements) -> str:
    text, count = valid_text(text)
    notes.add(where, "lone_surrogates", count)
    return text


def _int_text(value: int) -> str:
    """The integer's digits, or its size when Python would refuse to print so many."""
    if value.bit_length() < 13_000:  # about 3,900 digits, within Python's 4,300
        return str(value)
    return f"<integer of about {int(value.bit_length() * 0.30103)} digits>"


def _shallow_text(value: Any) -> str:
    """A short description of a value nested too deeply to store as JSON."""
    kind = "object" if isinstance(value, dict) else "list"
    return f"<{kind} nested more than {MAX_JSON_DEPTH} levels deep, not stored>"
