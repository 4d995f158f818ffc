"""The base of every model a config file is read into: unknown keys refused, fields
documented by the docstring under them, and `true` or `false` refused where a number is
wanted.

pydantic takes a boolean for a number (`repeats: true` is 1, `timeout: false` is 0), so a
slip read as a setting nobody asked for. Every model read from a config or a calibration
spec (a target's or a scorer's params, a plugin's too, a provider, a pack, an MCP server)
derives from `ConfigModel`, and so refuses it at its line.
"""

from __future__ import annotations

import types
import typing
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    ModelWrapValidatorHandler,
    ValidationError,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails, InitErrorDetails, PydanticCustomError
from pydantic_core.core_schema import ErrorType

from assay.config.field_docs import describe_fields

Place = tuple[int | str, ...]
"""Where a value sits under a field: `()` for the field itself, `(0,)` for its first item."""

_NUMBERS = (int, float)

_PYDANTIC_ERRORS = frozenset(typing.get_args(ErrorType))
"""The kinds of problem pydantic words itself (`greater_than_equal`, `value_error`, ...)."""


class ConfigModel(BaseModel):
    """A model read from a config file or a calibration spec (see the module's docstring)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=describe_fields)

    @model_validator(mode="wrap")
    @classmethod
    def _no_boolean_for_a_number(cls, data: Any,
                                 handler: ModelWrapValidatorHandler[ConfigModel]) -> Any:
        """`sample: true` read as 1, and a run of one case said '1 case' as if asked. Said at
        the key, or the item, that holds it, among the model's other problems. A model-wide
        check: a field's own before-validator may not sit on a discriminator (a judge
        output's `type`)."""
        if not isinstance(data, dict):
            return handler(data)
        fields = _fields_by_key(cls)
        booleans = [InitErrorDetails(type=PydanticCustomError(
                        "number_not_boolean", "Input should be a number, not true or false"),
                        loc=(key, *place), input=value)
                    for key, written in data.items() if key in fields
                    for place, value in booleans_for_numbers(fields[key].annotation, written)]
        if not booleans:
            return handler(data)
        refused = {error["loc"][0] for error in booleans}
        others: list[InitErrorDetails] = []
        try:
            handler(data)
        except ValidationError as exc:  # the rest of the model's problems, said as well
            others = [_again(error) for error in exc.errors()
                      if not error["loc"] or error["loc"][0] not in refused]
        order = {key: index for index, key in enumerate(fields)}  # the fields' order, as pydantic
        errors = sorted([*booleans, *others],
                        key=lambda error: order.get(str(error["loc"][0]), -1) if error["loc"] else -1)
        raise ValidationError.from_exception_data(cls.__name__, errors)


def _again(error: ErrorDetails) -> InitErrorDetails:
    """A problem pydantic found, to be raised again: pydantic's own kinds by name (it words
    them again from their context), any other with its words as they were."""
    again = InitErrorDetails(type=error["type"] if error["type"] in _PYDANTIC_ERRORS
                             else PydanticCustomError(error["type"], error["msg"]),
                             loc=error["loc"], input=error["input"])
    if "ctx" in error and error["type"] in _PYDANTIC_ERRORS:
        again["ctx"] = error["ctx"]
    return again


def booleans_for_numbers(annotation: Any, value: Any) -> list[tuple[Place, bool]]:
    """Each `true` or `false` in `value` where `annotation` wants a number, with its place:
    the value itself (`int`, `float | None`, a `Temperature`), or an item of a list, tuple or
    mapping of numbers (`scale: [true, 5]`)."""
    annotation = _bare(annotation)
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        kinds = [_bare(kind) for kind in typing.get_args(annotation)]
        if isinstance(value, bool):
            wanted = (any(kind in _NUMBERS for kind in kinds)
                      and not any(kind in (bool, Any, object) for kind in kinds))
            return [((), value)] if wanted else []
        return next((found for kind in kinds if (found := booleans_for_numbers(kind, value))),
                    [])
    if isinstance(value, bool):
        return [((), value)] if annotation in _NUMBERS else []
    args = typing.get_args(annotation)
    if origin is dict and isinstance(value, dict) and len(args) == 2:
        return _within(((key, args[1], item) for key, item in value.items()))
    if origin in (list, set, frozenset) and isinstance(value, list | tuple) and args:
        return _within(((index, args[0], item) for index, item in enumerate(value)))
    if origin is tuple and isinstance(value, list | tuple):
        item_kinds = ([args[0]] * len(value) if len(args) == 2 and args[1] is Ellipsis
                      else list(args))
        return _within(((index, kind, item)
                        for index, (kind, item) in enumerate(zip(item_kinds, value))))
    return []


def _within(items: typing.Iterable[tuple[int | str, Any, Any]]) -> list[tuple[Place, bool]]:
    """The booleans of a container's items, each placed under its index or key."""
    return [((at, *place), found) for at, kind, item in items
            for place, found in booleans_for_numbers(kind, item)]


def _fields_by_key(model: type[BaseModel]) -> dict[str, FieldInfo]:
    """A model's fields under each key a file may write them with: the name, or its alias."""
    fields = dict(model.model_fields)
    fields.update({field.alias: field for field in model.model_fields.values() if field.alias})
    return fields


def _bare(annotation: Any) -> Any:
    """The type under `Annotated[...]` (a `Temperature` is a float with bounds)."""
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation
