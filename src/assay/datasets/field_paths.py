"""Where a dataset's `fields:` mapping finds a value: a key, or a path into nested
objects and lists (`human.verdict`, `answers.0.text`, `answers[0].text`,
`annotations.*.label`), and which step of a path found nothing.
"""

from __future__ import annotations

from typing import Any

from assay.datasets.files import Row
from assay.wording import kind_of


def lookup(record: dict[str, Any], key: str) -> Any:
    """`record[key]`, or the value at a dotted path: `human.verdict`; `annotations.0.label`
    or `annotations[0].label` (a number steps into a list); `annotations.*.label` (every
    item's, as a list). None when a step is missing."""
    if key in record:
        return record[key]
    if not is_path(key):  # a plain key that is missing (the common case: no path to walk)
        return None
    return walk(record, steps(key))


def missing_field(record: dict[str, Any], key: str, name: str, whose: str = "") -> str:
    """Why `record` gives no `name` (a field read from `key`), said for a person: an empty
    CSV cell, where a path stops, a null or empty value, or a key that is not there. A
    mapped key names its field: `missing key 'gold' (the label)`, `... (the case's input)`
    with `whose="case"`."""
    named = "" if key == name else f" (the {whose}'s {name})" if whose else f" (the {name})"
    if isinstance(record, Row) and key in record.columns:  # empty cells are left out
        return f"the '{key}' cell is empty{named}"
    if key not in record and is_path(key):
        return f"nothing at '{key}'{named}: {where_path_stops(record, key)}"
    if key in record:
        return f"'{key}' is {'null' if record[key] is None else 'empty'}{named}"
    return f"missing key '{key}'{named}"


def where_path_stops(record: dict[str, Any], key: str) -> str:
    """Which step of the path `key` finds nothing in `record`, said for a person."""
    value: Any = record
    walked = ""
    parts = steps(key)
    for index, part in enumerate(parts):
        if part == "*" and isinstance(value, list):
            return f"no item of '{walked}' has '{'.'.join(parts[index + 1:])}'"
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit():
            if int(part) < len(value):
                value = value[int(part)]
            else:
                count = f"{len(value)} item{'s' * (len(value) != 1)}"
                return f"'{walked}' has {count}, so no item {part}"
        elif isinstance(value, dict):
            return f"'{walked}' has no key '{part}'" if walked else f"no key '{part}'"
        elif value is None:
            return f"'{walked}' is null"
        else:
            return f"'{walked}' is {kind_of(value)}, not an object or a list"
        walked = f"{walked}.{part}" if walked else part
    return f"'{walked}' is {'null' if value is None else 'empty'}"


def is_path(key: str) -> bool:
    return "." in key or "[" in key


def steps(key: str) -> list[str]:
    """The steps of a path: `a.b.0`, or as jq and JavaScript write it, `a.b[0]` (and
    `a[*].c`)."""
    return key.replace("[", ".").replace("]", "").split(".") if is_path(key) else [key]


def walk(value: Any, parts: list[str]) -> Any:
    """The value at the path `parts`; None when a step is missing. A `*` over a list gives
    its items' values (their nulls left out), and None when no item has the rest of the path
    at all: a misspelt `annotations.*.verdit` names nothing, it is not a list of no labels."""
    found = _walk(value, parts)
    return None if found is _ABSENT else found


_ABSENT = object()
"""What a path that leads nowhere finds (a null at its end is found, as None)."""


def _walk(value: Any, parts: list[str]) -> Any:
    for index, part in enumerate(parts):
        if part == "*" and isinstance(value, list):
            found = [_walk(item, parts[index + 1:]) for item in value]
            if value and all(item is _ABSENT for item in found):
                return _ABSENT
            return [item for item in found if item is not _ABSENT and item is not None]
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _ABSENT
    return value
