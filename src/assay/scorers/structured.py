"""Checks on structured answers: the output is JSON, and it fits a JSON Schema."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from pydantic import ConfigDict, Field, model_validator

from assay.case import Case
from assay.output import Output
from assay.registry import scorer
from assay.score import Score
from assay.scorers._expected import CheckParams, clip
from assay.scorers.base import CheckScorer, param_error
from assay.services import Services

_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\r?\n(.*?)```", re.DOTALL)


def parse_json_output(text: str, allow_fences: bool) -> tuple[Any, str | None]:
    """(value, None) when `text` is JSON, else (None, why not).

    Models often wrap JSON in a Markdown code fence, with or without prose
    around it; with `allow_fences` the first fenced block is read when the
    text as a whole is not JSON.
    """
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        whole_error = exc
    if allow_fences:
        fenced = _FENCE.search(text)
        if fenced is not None:
            try:
                return json.loads(fenced.group(1)), None
            except json.JSONDecodeError as exc:
                return None, f"fenced block is not JSON: {_describe(exc)}"
    if not text.strip():
        return None, "output is empty"
    return None, f"output is not JSON: {_describe(whole_error)}"


def _describe(exc: json.JSONDecodeError) -> str:
    return f"{exc.msg} at line {exc.lineno} column {exc.colno}"


class JsonParams(CheckParams):
    """Params of a check that reads the output as JSON."""

    allow_fences: bool = True
    """Accept JSON inside a Markdown code fence (```json ... ```), with or without prose
    around it."""


@scorer("json_valid")
class JsonValid(CheckScorer):
    """Passes when the output parses as JSON."""

    bounded = True
    Params = JsonParams
    params: JsonParams

    def check(self, case: Case, output: Output) -> Score:
        value, problem = parse_json_output(output.text, self.params.allow_fences)
        if problem is not None:
            return Score.binary(False, problem)
        return Score.binary(True, f"valid JSON ({_json_type(value)})", json_type=_json_type(value))


@scorer("json_schema")
class JsonSchema(CheckScorer):
    """Passes when the output is JSON that validates against a JSON Schema."""

    class Params(JsonParams):
        schema_: dict[str, Any] | None = Field(
            default=None, alias="schema", description="The JSON Schema, inline.")

        schema_file: str | None = None
        """A file holding the JSON Schema (JSON or YAML), relative to the config's directory."""

        model_config = ConfigDict(validate_by_name=True, validate_by_alias=True)

        @model_validator(mode="after")
        def _one_source(self) -> JsonSchema.Params:
            if (self.schema_ is None) == (self.schema_file is None):
                raise ValueError("give exactly one of 'schema' and 'schema_file'")
            return self

    params: Params

    def __init__(self, params: Params, services: Services) -> None:
        super().__init__(params, services)
        from jsonschema.exceptions import SchemaError
        from jsonschema.validators import validator_for

        schema = params.schema_ if params.schema_ is not None else self._load_schema()
        where = params.schema_file or "inline schema"
        key = "schema_file" if params.schema_file else "schema"
        if not isinstance(schema, dict):
            raise param_error(key, f"json_schema scorer: {where} is not a JSON object")
        cls = validator_for(schema)
        try:
            cls.check_schema(schema)
        except SchemaError as exc:
            raise param_error(
                key, f"json_schema scorer: {where} is not a valid JSON Schema: {exc.message} "
                f"(at {_json_path(exc.absolute_path)})"
            ) from None
        self.validator = cls(schema, format_checker=cls.FORMAT_CHECKER)

    def _load_schema(self) -> Any:
        path = self.services.resolve_path(self.params.schema_file or "")
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise param_error("schema_file", f"json_schema scorer: cannot read schema_file "
                              f"{path}: {exc.strerror}") from None
        import yaml

        try:
            if path.suffix.lower() in (".yaml", ".yml"):
                return yaml.safe_load(text)
            return json.loads(text)
        except (ValueError, yaml.YAMLError) as exc:
            raise param_error("schema_file", f"json_schema scorer: schema_file {path} does not "
                              f"parse: {exc}") from None

    def check(self, case: Case, output: Output) -> Score:
        value, problem = parse_json_output(output.text, self.params.allow_fences)
        if problem is not None:
            return Score.binary(False, problem)
        errors = sorted(self.validator.iter_errors(value), key=_error_order)
        if not errors:
            return Score.binary(True, "matches the schema")
        first = errors[0]
        listed = [{"path": _json_path(error.absolute_path), "message": error.message}
                  for error in errors[:10]]
        reason = f"{_json_path(first.absolute_path)}: {_clip_message(first.message)}"
        if len(errors) > 1:
            reason += f" (and {len(errors) - 1} more)"
        return Score.binary(False, reason, errors=listed, error_count=len(errors))


def _error_order(error: Any) -> tuple[str, ...]:
    """Order errors by where they are in the document, so 'first' means first in reading order."""
    return tuple(f"{part:>10}" if isinstance(part, int) else str(part)
                 for part in error.absolute_path)


def _json_path(parts: Iterable[Any]) -> str:
    """`$.items[0].price`: where in the document a problem is."""
    path = "$"
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def _clip_message(message: str) -> str:
    return message if len(message) <= 160 else clip(message, 160)


def _json_type(value: Any) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number")
