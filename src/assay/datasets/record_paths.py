"""The value at a key or a path in a record: `human.verdict`, `answers.0.text`,
`answers[0].text`, `annotations.*.label`. A leaf, so that reading a file (an id at a
path, read as written) and mapping its fields share one reading of a path.
"""

from __future__ import annotations

from typing import Any


def lookup(record: dict[str, Any], key: str) -> Any:
    """`record[key]`, or the value at a dotted path: `human.verdict`; `annotations.0.label`
    or `annotations[0].label` (a number steps into a list); `annotations.*.label` (every
    item's, as a list). None when a step is missing."""
    if key in record:
        return record[key]
    if not is_path(key):  # a plain key that is missing (the common case: no path to walk)
        return None
    return walk(record, steps(key))


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
