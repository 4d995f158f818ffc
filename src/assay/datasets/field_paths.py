"""Why a dataset's `fields:` mapping finds no value in a record: an empty cell, a key
that is not there, or which step of a path (`human.verdict`, `answers[0].text`; read in
`record_paths`) found nothing.
"""

from __future__ import annotations

from typing import Any

from assay.datasets.files import Row
from assay.datasets.record_paths import is_path, steps
from assay.wording import kind_of


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
