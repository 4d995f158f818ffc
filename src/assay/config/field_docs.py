"""Field docstrings become JSON Schema descriptions when a schema is generated, not before.

Config models document each field with a string under it. pydantic's
`use_attribute_docstrings` reads those by fetching and parsing every model's
source when the class is defined: about a tenth of a second at every start,
for text that only the JSON Schema (`assay schema`) shows. A model whose
config sets `json_schema_extra=describe_fields` has them read when a schema
is generated instead, with the same result: a field's description is the
docstring under it in the class that declares it, unless the field gives one.
"""

from __future__ import annotations

import inspect
from functools import cache
from itertools import pairwise
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel


def describe_fields(schema: dict[str, Any], cls: type[BaseModel]) -> None:
    """pydantic's `json_schema_extra` hook: add each field's docstring to its property."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    for name, field in cls.model_fields.items():
        if field.description is not None:
            continue
        prop = properties.get(field.alias or name, properties.get(name))
        doc = _declared_docstring(cls, name)
        if isinstance(prop, dict) and doc is not None and "description" not in prop:
            prop["description"] = doc


def _declared_docstring(cls: type, name: str) -> str | None:
    """The docstring under field `name` in the nearest class of `cls`'s MRO declaring it."""
    for owner in cls.__mro__:
        if name in inspect.get_annotations(owner):
            return class_docstrings(owner).get(name)
    return None


@cache
def class_docstrings(cls: type) -> dict[str, str]:
    """Each annotated attribute of `cls`'s own body with the string literal right under it."""
    import ast
    import textwrap

    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):  # no source (an interactive or generated class)
        return {}
    body = next((node.body for node in ast.parse(source).body
                 if isinstance(node, ast.ClassDef)), [])
    docs: dict[str, str] = {}
    for field, under in pairwise(body):
        if (isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name)
                and isinstance(under, ast.Expr) and isinstance(under.value, ast.Constant)
                and isinstance(under.value.value, str)):
            docs[field.target.id] = inspect.cleandoc(under.value.value)
    return docs

