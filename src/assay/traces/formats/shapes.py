"""The JSON types a session line's known fields must have, checked before a reader uses them.

Readers take a line's fields by name (`message.content`, `data.type`,
`timestamp`) and rely on their JSON types. A line where one has another type
(`"message": "hello"`, `"timestamp": ["2024"]`) is malformed: it is counted
with its reason and reading goes on with the next line. Each reader declares
its fields once, as a `Shape`, and `shape_problem` checks a line against it
at the edge, so no code after it needs a type test or a try/except.

A shape maps a dotted path to the types allowed there. `[]` walks every item
of a list (`message.content[].type`). A field that is missing or null is
always allowed; a parent of the wrong type is reported by its own entry, so
list parents before their children.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from assay.wording import kind_of

JsonType = type | tuple[type, ...]
Shape = dict[str, JsonType]

TEXT = str
NUMBER = (int, float)
TIME = (str, int, float)
"""A timestamp: ISO-8601 text, or epoch milliseconds."""
OBJECT = dict
LIST = list
CONTENT = (str, list)
"""A message's content: text, or a list of blocks."""
BLOCK = (dict, str)


def shape_problem(line: dict[str, Any], shape: Shape) -> str | None:
    """Why `line` does not fit `shape` (the first field of the wrong type), or None."""
    for path, allowed in shape.items():
        for value in _values(line, path.split(".")):
            if value is None:
                continue
            if not isinstance(value, allowed) or (isinstance(value, bool)
                                                  and bool not in _types(allowed)):
                return f"`{path}` is {kind_of(value)}, not {_names(allowed)}"
    return None


def _values(value: Any, parts: list[str]) -> Iterator[Any]:
    if not parts:
        yield value
        return
    head, rest = parts[0], parts[1:]
    each = head.endswith("[]")
    key = head[:-2] if each else head
    if not isinstance(value, dict) or key not in value:
        return
    child = value[key]
    if not each:
        yield from _values(child, rest)
    elif isinstance(child, list):
        for item in child:
            yield from _values(item, rest)


def _types(allowed: JsonType) -> tuple[type, ...]:
    return allowed if isinstance(allowed, tuple) else (allowed,)


_NAMES = {str: "text", int: "a number", float: "a number", dict: "an object", list: "a list",
          bool: "true or false"}


def _names(allowed: JsonType) -> str:
    return " or ".join(dict.fromkeys(_NAMES.get(t, t.__name__) for t in _types(allowed)))
