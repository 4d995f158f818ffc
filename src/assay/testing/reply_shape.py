"""What shape of reply a request asks for, read from its JSON Schema or its instructions.

A request asks for structured output in one of two ways: a JSON Schema sent
as the response format (OpenAI `response_format`, Anthropic `output_config`
or a forced tool), or, for servers without structured output, a JSON
example closing the system prompt ("Reply with a single JSON object ...
shaped like: {...}"), whose placeholders `<integer 0-10>`, `<number>`,
`<true | false>`, `a | b | c` (a choice) and `<text>` are read back into a
schema. Either way the schema is then classified as one of the verdicts
assay's judges give:

- `number`: `{reason, score}` with the score's range (judge_score 0-10, traits 1-3,
  a custom number judge);
- `label`: `{reason, label}` with the label's choices;
- `rubric`: one `{reasoning, score}` object per metric, plus `unverified_claims`;
- `json`: anything else, answered with an instance of the schema.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from assay.testing.script import FakeRequest

ReplyKind = Literal["number", "label", "rubric", "json"]

_RANGE = re.compile(r"^<(integer|number)(?:\s+(-?[\d.]+)\s*-\s*(-?[\d.]+))?>$")
CLAIMS_FIELD = "unverified_claims"


@dataclass(frozen=True)
class ReplyShape:
    """The reply a request asks for: its schema, and which verdict shape that schema is."""

    kind: ReplyKind
    schema: dict[str, Any]
    value_field: str | None = None
    """The number (`number`) or choice (`label`) field."""
    scale: tuple[float, float] = (0.0, 1.0)
    integer: bool = True
    choices: list[str] = field(default_factory=list)
    metrics: list[str] = field(default_factory=list)
    """The rubric's metric names, in the schema's order."""


def asked_schema(request: FakeRequest) -> dict[str, Any] | None:
    """The JSON Schema the request asks its reply to follow, or None for free text."""
    if request.response_schema is not None:
        return request.response_schema
    example = closing_example(request.system)
    return None if example is None else schema_of_example(example)


def closing_example(text: str) -> dict[str, Any] | None:
    """The JSON object that ends `text` (trailing spaces aside), if one does."""
    stripped = text.rstrip()
    if not stripped.endswith("}"):
        return None
    decoder = json.JSONDecoder()
    start = stripped.rfind("{")
    while start != -1:
        try:
            value, end = decoder.raw_decode(stripped, start)
        except json.JSONDecodeError:
            value, end = None, -1
        if end == len(stripped) and isinstance(value, dict):
            return value
        start = stripped.rfind("{", 0, start)
    return None


def schema_of_example(example: Any) -> dict[str, Any]:
    """A JSON Schema read back from a placeholder example of it."""
    if isinstance(example, dict):
        return {"type": "object",
                "properties": {key: schema_of_example(value) for key, value in example.items()},
                "required": list(example)}
    if isinstance(example, list):
        return {"type": "array", "items": schema_of_example(example[0]) if example else {}}
    if isinstance(example, bool):
        return {"type": "boolean"}
    if isinstance(example, (int, float)):
        return {"type": "number"}
    text = str(example).strip()
    if text == "<true | false>":
        return {"type": "boolean"}
    number = _RANGE.match(text)
    if number is not None:
        kind, low, high = number.groups()
        schema: dict[str, Any] = {"type": kind}
        if low is not None:
            schema.update(minimum=float(low), maximum=float(high))
        return schema
    if " | " in text and not text.startswith("<"):
        return {"type": "string", "enum": [option.strip() for option in text.split(" | ")]}
    return {"type": "string"}


def classify(schema: dict[str, Any]) -> ReplyShape:
    """Which of the judges' verdict shapes `schema` is (`json` when none)."""
    properties: dict[str, Any] = schema.get("properties") or {}
    if schema.get("type") != "object" or not properties:
        return ReplyShape("json", schema)
    rest = {name: spec for name, spec in properties.items() if not _is_reason(name, spec)}
    if len(rest) == 1:
        [(name, spec)] = rest.items()
        if spec.get("type") in ("integer", "number"):
            return ReplyShape("number", schema, value_field=name, scale=_bounds(spec),
                              integer=spec.get("type") == "integer")
        if spec.get("type") == "string" and spec.get("enum"):
            return ReplyShape("label", schema, value_field=name,
                              choices=[str(option) for option in spec["enum"]])
    metrics = [name for name, spec in properties.items() if _is_metric(spec)]
    if metrics and set(properties) <= {*metrics, CLAIMS_FIELD}:
        score = properties[metrics[0]]["properties"]["score"]
        return ReplyShape("rubric", schema, scale=_bounds(score), metrics=metrics,
                          integer=score.get("type") == "integer")
    return ReplyShape("json", schema)


def _is_reason(name: str, spec: dict[str, Any]) -> bool:
    return spec.get("type") == "string" and not spec.get("enum") and name in REASON_FIELDS


REASON_FIELDS = frozenset({"reason", "reasoning", "rationale", "explanation", "justification"})


def _is_metric(spec: dict[str, Any]) -> bool:
    inner = spec.get("properties") or {}
    score = inner.get("score") or {}
    return spec.get("type") == "object" and score.get("type") in ("integer", "number")


def _bounds(spec: dict[str, Any]) -> tuple[float, float]:
    low, high = spec.get("minimum"), spec.get("maximum")
    if isinstance(low, (int, float)) and isinstance(high, (int, float)):
        return (float(low), float(high))
    return (0.0, 1.0) if spec.get("type") == "number" else (0.0, 10.0)
