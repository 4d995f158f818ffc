"""A JSON record's id read as written: `"id": 1e2` is the case '1e2', not '100.0'.

JSON reads a number as a number: `1e2` as 100.0, `1.50` as 1.5, `-0` as 0. An
id is a name, so where it is written as a number it is taken from the record read
with every number as its text (`AS_WRITTEN`), at its key or at the path `fields:`
maps it to (`item.key`). An integer reads back as written, but for `-0`, so a JSONL
line is read again only when its id is a float or a zero.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from assay.datasets.record_paths import steps, walk

AS_WRITTEN = json.JSONDecoder(parse_float=str, parse_int=str, parse_constant=str)
"""Reads each number as its text."""


class IdPlace(NamedTuple):
    """Where a record's id is: the object or list that holds it, its key or index there,
    and the steps of the path from the record to it."""

    container: Any
    key: Any
    steps: list[str]


def keep_written_id(record: Any, id_key: str, written: Any) -> None:
    """Put back the text of `record`'s id when JSON read it as a number other than its
    text; `written` is the same record read by `AS_WRITTEN`."""
    place = _misread_id(record, id_key)
    if place is not None:
        _put_back(place, written, id_key)


def keep_written_line_id(record: Any, id_key: str, line: bytes) -> None:
    """`keep_written_id` for a JSONL line's record, the line read again only when its id
    was read otherwise than written."""
    place = _misread_id(record, id_key)
    if place is not None:
        _put_back(place, AS_WRITTEN.decode(line.decode("utf-8")), id_key)


def _misread_id(record: Any, id_key: str) -> IdPlace | None:
    """Where `record`'s id is when JSON read it otherwise than written (a float, a zero)."""
    place = id_place(record, id_key)
    if place is None:
        return None
    value = place.container[place.key]
    misread = isinstance(value, float) or (type(value) is int and value == 0)
    return place if misread else None


def _put_back(place: IdPlace, written: Any, id_key: str) -> None:
    again = id_place(written, id_key)
    if again is not None:
        place.container[place.key] = again.container[again.key]


def id_place(record: Any, id_key: str) -> IdPlace | None:
    """Where the record's id is, as `record_paths.lookup` finds it (a key of that name
    first, then a path); None when the record holds none there, or a `*` step would find
    many."""
    if not isinstance(record, dict):
        return None
    if id_key in record:
        return IdPlace(record, id_key, [id_key])
    parts = steps(id_key)
    *parents, last = parts
    if not parents or "*" in parts:
        return None
    container = walk(record, parents)
    if walk(container, [last]) is None:
        return None
    return IdPlace(container, int(last) if isinstance(container, list) else last, parts)
