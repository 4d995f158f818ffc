"""The Every Eval Ever JSON Schemas (vendored, see `schemas/SOURCE.md`) and checks against them.

Every document `assay export --format eee` writes is checked before it is
written: a file that the format's own validator would refuse is a bug of
ours, and it is reported, never shipped.
"""

from __future__ import annotations

import json
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


def schema_errors(document: Any, kind: Kind) -> list[str]:
    """Every way `document` breaks its schema, each as `path: message`; empty when valid."""
    errors = sorted(_validator(kind).iter_errors(document), key=lambda e: list(e.absolute_path))
    return [f"{'/'.join(map(str, error.absolute_path)) or '(root)'}: {error.message}"
            for error in errors]
