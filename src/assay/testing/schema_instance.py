"""An instance of a JSON Schema, its values supplied by whoever is filling it in.

The fake judge answers any structured-output request, including a custom
judge's own schema, with a valid object: this module walks the schema
(objects, arrays, enums, consts, `anyOf`/`oneOf`, bounds) and asks a
`FieldValues` for each leaf by its field name, so the verdict's meaning
(a score, a pass flag, a choice, a reason) comes from the judge.
"""

from __future__ import annotations

from typing import Any, Protocol


class FieldValues(Protocol):
    """What to put in each kind of field, by the field's name."""

    def number(self, name: str, low: float, high: float, integer: bool) -> float: ...

    def boolean(self, name: str) -> bool: ...

    def choice(self, name: str, options: list[Any]) -> Any: ...

    def text(self, name: str) -> str: ...

    def texts(self, name: str) -> list[str] | None:
        """The strings of a string array (e.g. unverified claims), or None for no opinion."""
        ...


def instance(schema: dict[str, Any], values: FieldValues, name: str = "") -> Any:
    """A value valid against `schema` (for the keywords judges use)."""
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return values.choice(name, list(schema["enum"]))
    for key in ("anyOf", "oneOf"):
        options = [option for option in schema.get(key) or [] if option.get("type") != "null"]
        if options:
            return instance(options[0], values, name)
    if schema.get("allOf"):
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            merged.update(part)
        return instance(merged, values, name)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or (kind is None and "properties" in schema):
        return {key: instance(sub, values, key)
                for key, sub in (schema.get("properties") or {}).items()}
    if kind == "array":
        return _array(schema, values, name)
    if kind in ("integer", "number"):
        low, high = _bounds(schema, kind)
        value = values.number(name, low, high, kind == "integer")
        return int(value) if kind == "integer" else value
    if kind == "boolean":
        return values.boolean(name)
    if kind == "null":
        return None
    return values.text(name)


def _array(schema: dict[str, Any], values: FieldValues, name: str) -> list[Any]:
    items = schema.get("items") or {}
    least = int(schema.get("minItems", 0))
    if items.get("type") == "string" and not items.get("enum"):
        given = values.texts(name)
        if given is not None and len(given) >= least:
            return given[: schema.get("maxItems", len(given))]
    return [instance(items, values, name) for _ in range(least)]


def _bounds(schema: dict[str, Any], kind: str) -> tuple[float, float]:
    step = 1.0 if kind == "integer" else 1e-6
    low: float | None = None
    high: float | None = None
    if isinstance(schema.get("minimum"), (int, float)):
        low = float(schema["minimum"])
    elif isinstance(schema.get("exclusiveMinimum"), (int, float)):
        low = float(schema["exclusiveMinimum"]) + step
    if isinstance(schema.get("maximum"), (int, float)):
        high = float(schema["maximum"])
    elif isinstance(schema.get("exclusiveMaximum"), (int, float)):
        high = float(schema["exclusiveMaximum"]) - step
    if low is None:
        low = 0.0 if high is None else min(0.0, high)
    if high is None:
        high = low + (10.0 if kind == "integer" else 1.0)
    return low, high
