"""Turn pydantic errors into located, human problems with did-you-mean hints."""

from __future__ import annotations

import difflib
import typing
from typing import Any

from pydantic import BaseModel, ValidationError

from assay.config.yaml_source import SourceMap
from assay.errors import Problem
from assay.wording import name_text


def problems_from(exc: ValidationError, model: type[BaseModel], source: SourceMap,
                  base: tuple[Any, ...] = ()) -> list[Problem]:
    """One Problem per pydantic error, with file, line and dotted field path."""
    problems = []
    for error in exc.errors():
        tagged = tuple(part for part in error["loc"] if not _is_union_tag(part))
        loc = _walk(model, tagged)[0]
        path = (*base, *loc)
        message = error["msg"]
        if error["type"] == "value_error":  # our own words, without pydantic's "Value error, "
            message = str(error.get("ctx", {}).get("error", message))
        if error["type"] == "extra_forbidden":
            known = known_keys(model, tagged[:-1])
            hint = difflib.get_close_matches(str(loc[-1]), known, n=1, cutoff=0.6)
            message = f"unknown key '{name_text(str(loc[-1]))}'"
            message += f"; did you mean '{hint[0]}'?" if hint else ""
            if known:
                message += f" (allowed: {', '.join(sorted(known))})"
        elif error["type"] == "missing":
            message = f"missing required key '{loc[-1]}'" if loc else "missing value"
        elif "input" in error and error["type"] not in ("missing",):
            written = source.written(path)
            # A value that came from `${VAR}` is shown as written: it may be a secret.
            shown = written if written is not None and "${" in written else repr(error["input"])
            if len(shown) < 60:
                message = f"{message} (got {shown})"
        problems.append(Problem(message, source.file, source.line(path),
                                ".".join(name_text(str(p)) for p in path) or None))
    return problems


def _is_union_tag(part: Any) -> bool:
    # pydantic puts the chosen union member's name into loc, e.g. "function-after[...]"
    return isinstance(part, str) and ("[" in part or part in ("str", "int", "float", "list[str]"))


def known_keys(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """The keys a model accepts at `loc` (walking nested models, dicts and lists)."""
    current = _walk(model, loc)[1]
    if isinstance(current, type) and issubclass(current, BaseModel):
        return list(current.model_fields)
    return []


def _walk(model: type[BaseModel], loc: tuple[Any, ...]) -> tuple[tuple[Any, ...], Any]:
    """`loc` as the file writes it, and the type found at its end. pydantic puts the tag of
    a discriminated union's member in the place (`output.number.max` for `output: {type:
    number, max: abc}`): a key no file has, so the problem was put on the union's line."""
    written: list[Any] = []
    current: Any = model
    for part in loc:
        member = _tagged_member(current, part)
        if member is not None:
            current = member
            continue
        written.append(part)
        current = _step(current, part) if current is not None else None
    return tuple(written), current


def _tagged_member(annotation: Any, part: Any) -> type[BaseModel] | None:
    """The member of a union of models that `part` is the tag of (its `type: Literal[...]`),
    unless `part` is a key one of them has."""
    members = [member for member in typing.get_args(annotation)
               if isinstance(member, type) and issubclass(member, BaseModel)]
    if not isinstance(part, str) or any(part in member.model_fields for member in members):
        return None
    return next((member for member in members for field in member.model_fields.values()
                 if typing.get_origin(field.annotation) is typing.Literal
                 and part in typing.get_args(field.annotation)), None)


def _step(annotation: Any, part: Any) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        field = annotation.model_fields.get(str(part))
        return _unwrap(field.annotation) if field else None
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (list, tuple) and args:
        return _unwrap(args[0])
    if origin is dict and len(args) == 2:
        return _unwrap(args[1])
    return None


def _unwrap(annotation: Any) -> Any:
    """`X | None` -> X, so nested lookups see the model."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, __import__("types").UnionType):
        return args[0] if len(args) == 1 else annotation
    return annotation
