"""The Every Eval Ever JSON Schemas (vendored, see `schemas/SOURCE.md`) and checks against them.

Every document `assay export --format eee` writes is checked before it is
written: a file that the format's own validator would refuse is a bug of
ours, and it is reported, never shipped.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache
from importlib import resources
from typing import Any, Literal

SCHEMA_VERSION = "0.3.0"
"""The version of the vendored schemas, written into every document as `schema_version`."""

Kind = Literal["aggregate", "instance"]
_FILES: dict[Kind, str] = {"aggregate": "eval.schema.json",
                           "instance": "instance_level_eval.schema.json"}


@lru_cache(maxsize=2)
def schema(kind: Kind) -> dict[str, Any]:
    """The vendored JSON Schema of an aggregate file or of one instance record."""
    text = resources.files("assay.export").joinpath("schemas", _FILES[kind]).read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@lru_cache(maxsize=2)
def _validator(kind: Kind) -> Any:
    from jsonschema import Draft7Validator

    return Draft7Validator(schema(kind))


@lru_cache(maxsize=2)
def _compiled_check(kind: Kind) -> Callable[[Any], Any]:
    """The schema compiled to Python: ~20 times faster than `_validator`, which took 4 min
    50 s to check a 500,000-trial run's records, but it stops at the first error."""
    import fastjsonschema

    # Formats are left unchecked, as `_validator` leaves them; defaults are not written in.
    return fastjsonschema.compile(schema(kind), use_default=False, use_formats=False)


def schema_errors(document: Any, kind: Kind) -> list[str]:
    """Every way `document` breaks its schema, each as `path: message`; empty when valid.
    A document the compiled check takes is valid; only one it refuses is gone over again
    to name every error."""
    from fastjsonschema import JsonSchemaValueException

    try:
        _compiled_check(kind)(document)
        return []
    except JsonSchemaValueException:
        pass
    errors = sorted(_validator(kind).iter_errors(document), key=lambda e: list(e.absolute_path))
    return [f"{'/'.join(map(str, error.absolute_path)) or '(root)'}: {error.message}"
            for error in errors]
