"""A JSON record's id read as written: `"id": 1e2` is the case '1e2', not '100.0'.

JSON reads a number as a number: `1e2` as 100.0, `1.50` as 1.5, `-0` as 0. An
id is a name, so where it is written as a number the record is read again with
every number as its text, and the id (at its key, or at the path `fields:` maps
it to: `item.key`) is taken from there. An integer reads back as written, but
for `-0`, so only floats and zeros are read again.
"""

from __future__ import annotations

import json
import re
from typing import Any

_AS_WRITTEN = json.JSONDecoder(parse_float=str, parse_int=str, parse_constant=str)
"""Reads each number as its text."""
_SPACE = re.compile(r"[ \t\r\n]*")


def keep_written_id(record: Any, id_key: str, text: str | bytes, start: int = 0) -> None:
    """Put back the text of `record`'s id when JSON read it as a number other than its text;
    `record` is the JSON value written in `text` from `start` (a JSONL line: its bytes)."""
    place = id_place(record, id_key)
    if place is None:
        return
    container, key = place
    value = container[key]
    if isinstance(value, float) or (type(value) is int and value == 0):
        source = text.decode("utf-8") if isinstance(text, bytes) else text
        begins = _SPACE.match(source, start)
        again = id_place(_AS_WRITTEN.raw_decode(source, begins.end() if begins else start)[0],
                         id_key)
        if again is not None:
            container[key] = again[0][again[1]]


def id_place(record: Any, id_key: str) -> tuple[Any, Any] | None:
    """The object or list that holds the record's id, and the id's key or index in it, as
    `field_paths.lookup` finds it (a key of that name first, then a path); None when the
    record holds none there."""
    if not isinstance(record, dict):
        return None
    if id_key in record:
        return record, id_key
    *parents, last = path_steps(id_key)
    if not parents:
        return None
    container: Any = record
    for part in parents:
        container = _child(container, part)
    found = _child(container, last)
    if found is None:
        return None
    return container, int(last) if isinstance(container, list) else last


def path_steps(key: str) -> list[str]:
    """The steps of a path, `a.b.0` or `a.b[0]` (as `field_paths.steps` reads them)."""
    return key.replace("[", ".").replace("]", "").split(".")


def _child(value: Any, part: str) -> Any:
    if isinstance(value, dict):
        return value.get(part)
    if isinstance(value, list) and part.isdigit() and int(part) < len(value):
        return value[int(part)]
    return None
