"""What a judge must answer: a number in a range, a label from a set, or a JSON object.

A format knows three things about its judgements: the JSON Schema to ask the
provider for (structured output), how to read a reply into a `Judgement`
(tolerantly, but never by guessing), and how k repeated judgements reduce
to one. The rubric format lives in `judge_rubric`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from assay.scorers.judges.judgement import (
    JudgeConfigError,
    Judgement,
    Reduction,
    ReplyParseError,
    majority,
    reduce_numbers,
)
from assay.scorers.judges.parse import (
    SCORE_KEYS,
    as_number,
    extract_json,
    extract_label,
    extract_number,
    extract_object,
    extract_reason,
    pick,
)


class ReplyFormat:
    """The shape of a judgement. Subclasses implement `parse`, `reduce` and `response_schema`."""

    scale: tuple[float, float] = (0.0, 1.0)
    reductions: tuple[Reduction, ...] = ("mean", "median", "majority")

    def response_schema(self) -> dict[str, Any]:
        raise NotImplementedError

    def instructions(self) -> str:
        """How to reply, in words, for judges without structured output."""
        example = json.dumps(_example(self.response_schema()))
        return f"Reply with a single JSON object and nothing else, shaped like: {example}"

    def parse(self, text: str) -> Judgement:
        raise NotImplementedError

    def reduce(self, judgements: Sequence[Judgement], how: Reduction) -> Judgement:
        raise NotImplementedError

    def reduction(self, how: Reduction | None) -> Reduction:
        """`how`, checked against this format; its natural reduction when None."""
        if how is None:
            return self.reductions[0]
        if how not in self.reductions:
            allowed = ", ".join(self.reductions)
            raise JudgeConfigError(f"reduce: {how!r} does not apply to this judge's judgements "
                                   f"(allowed: {allowed})")
        return how


class NumberFormat(ReplyFormat):
    """A score in [low, high], passing at `threshold` or above."""

    def __init__(self, low: float, high: float, threshold: float, *, integer: bool = True,
                 reason_hint: str = "one sentence") -> None:
        if not low < high:
            raise JudgeConfigError(f"score range [{low}, {high}]: the minimum must be below "
                                   "the maximum")
        if not low <= threshold <= high:
            raise JudgeConfigError(f"threshold {threshold} is outside the score range "
                                   f"[{low}, {high}]")
        self.scale = (float(low), float(high))
        self.threshold = float(threshold)
        self.integer = integer
        self.reason_hint = reason_hint

    def response_schema(self) -> dict[str, Any]:
        low, high = self.scale
        number: dict[str, Any] = {"type": "integer" if self.integer else "number",
                                  "minimum": _plain(low), "maximum": _plain(high)}
        return _object({"reason": {"type": "string", "description": self.reason_hint},
                        "score": number})

    def parse(self, text: str) -> Judgement:
        low, high = self.scale
        data = extract_object(text)
        if data is not None:
            found = pick(data, SCORE_KEYS)
            value = as_number(found, high=high) if found is not None else None
        else:
            value = extract_number(text, high=high)
        if value is None:
            raise ReplyParseError(f"no score between {_plain(low)} and {_plain(high)} "
                                    "found in the reply")
        if not low <= value <= high:
            raise ReplyParseError(f"score {_plain(value)} is outside the range "
                                    f"{_plain(low)}..{_plain(high)}")
        return Judgement(passed=value >= self.threshold, value=value,
                       reason=extract_reason(data, text))

    def reduce(self, judgements: Sequence[Judgement], how: Reduction) -> Judgement:
        values = [v.value for v in judgements if v.value is not None]
        value = reduce_numbers(values, how)
        return Judgement(passed=value >= self.threshold, value=value,
                       reason=_nearest(judgements, value).reason)


class LabelFormat(ReplyFormat):
    """A label from a fixed set; the judgement passes when the label is one of `passing`.

    The score's value is 1 for a passing label and 0 otherwise, so the mean
    of values is the pass rate; the label itself is kept in the details.
    """

    reductions = ("majority",)

    def __init__(self, labels: Sequence[str], passing: Sequence[str]) -> None:
        self.labels = [str(label) for label in labels]
        self.passing = {str(label) for label in passing}
        if len(self.labels) < 2 or len(set(self.labels)) != len(self.labels):
            raise JudgeConfigError("labels: give at least two distinct labels")
        unknown = sorted(self.passing - set(self.labels))
        if unknown:
            raise JudgeConfigError(f"pass: {', '.join(unknown)} not among labels "
                            f"({', '.join(self.labels)})")
        if not self.passing:
            raise JudgeConfigError("pass: name at least one passing label")

    def response_schema(self) -> dict[str, Any]:
        return _object({"reason": {"type": "string", "description": "one sentence"},
                        "label": {"type": "string", "enum": list(self.labels)}})

    def parse(self, text: str) -> Judgement:
        label = extract_label(text, self.labels)
        if label is None:
            raise ReplyParseError(f"no single label of {', '.join(self.labels)} "
                                    "found in the reply")
        return self._judgement(label, extract_reason(extract_object(text), text))

    def reduce(self, judgements: Sequence[Judgement], how: Reduction) -> Judgement:
        labels = [v.label for v in judgements if v.label is not None]
        label = majority(labels, prefer=lambda item: (item in self.passing,
                                                      self.labels.index(item)))
        reason = next(v.reason for v in judgements if v.label == label)
        return self._judgement(label, reason)

    def _judgement(self, label: str, reason: str) -> Judgement:
        passed = label in self.passing
        return Judgement(passed=passed, value=1.0 if passed else 0.0, label=label, reason=reason)


class SchemaFormat(ReplyFormat):
    """A JSON object valid against a user's schema.

    `value_field` names a number in the object that becomes the score (the
    scale comes from `scale` or the field's minimum/maximum); `passed_field`
    names a boolean that decides pass/fail; otherwise `threshold` on the
    value does. One of `passed_field` and `threshold` is required, so every
    judgement has a pass reading.
    """

    def __init__(self, schema: dict[str, Any], *, value_field: str | None,
                 passed_field: str | None, threshold: float | None,
                 scale: tuple[float, float] | None) -> None:
        from jsonschema import Draft202012Validator
        from jsonschema.exceptions import SchemaError

        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as exc:
            raise JudgeConfigError(f"schema: not a valid JSON Schema: {exc.message}") from None
        self.schema = schema
        self._validator = Draft202012Validator(schema)
        self.value_field = value_field
        self.passed_field = passed_field
        self.threshold = threshold
        if value_field is None and passed_field is None:
            raise JudgeConfigError("a json output needs value_field (a number) or passed_field "
                            "(a boolean) to read a judgement from")
        if passed_field is None and threshold is None:
            raise JudgeConfigError("a json output without passed_field needs a threshold")
        if value_field is None:
            self.scale = (0.0, 1.0)
            self.reductions = ("majority",)
        else:
            self.scale = scale or _field_scale(schema, value_field)

    def response_schema(self) -> dict[str, Any]:
        return self.schema

    def parse(self, text: str) -> Judgement:
        data = extract_json(text)
        if data is None:
            raise ReplyParseError("no JSON found in the reply")
        errors = sorted(self._validator.iter_errors(data), key=lambda e: list(e.path))
        if errors:
            where = "/".join(str(p) for p in errors[0].path) or "(root)"
            raise ReplyParseError(f"reply does not match the schema at {where}: "
                                    f"{errors[0].message}")
        if not isinstance(data, dict):
            raise ReplyParseError("the reply is valid JSON but not an object")
        value = self._value(data)
        passed = self._passed(data, value)
        if value is None:
            value = 1.0 if passed else 0.0
        return Judgement(passed=passed, value=value, reason=extract_reason(data, text),
                       data={"object": data})

    def _value(self, data: dict[str, Any]) -> float | None:
        if self.value_field is None:
            return None
        value = as_number(data.get(self.value_field))
        if value is None:
            raise ReplyParseError(f"field {self.value_field!r} is missing or not a number")
        low, high = self.scale
        if not low <= value <= high:  # a schema without bounds lets it through
            raise ReplyParseError(f"field {self.value_field!r} is {_plain(value)}, outside the "
                                  f"scale {_plain(low)}..{_plain(high)}")
        return value

    def _passed(self, data: dict[str, Any], value: float | None) -> bool:
        if self.passed_field is not None:
            flag = data.get(self.passed_field)
            if not isinstance(flag, bool):
                raise ReplyParseError(f"field {self.passed_field!r} is missing or not "
                                        "true/false")
            return flag
        assert value is not None and self.threshold is not None
        return value >= self.threshold

    def reduce(self, judgements: Sequence[Judgement], how: Reduction) -> Judgement:
        votes = [v.passed for v in judgements]
        if self.value_field is None:
            passed = majority(votes, prefer=lambda vote: vote)
            return Judgement(passed=passed, value=1.0 if passed else 0.0,
                           reason=next(v.reason for v in judgements if v.passed == passed))
        value = reduce_numbers([v.value for v in judgements if v.value is not None], how)
        if self.passed_field is not None:
            passed = majority(votes, prefer=lambda vote: vote)
        else:
            assert self.threshold is not None
            passed = value >= self.threshold
        return Judgement(passed=passed, value=value, reason=_nearest(judgements, value).reason)


def _field_scale(schema: dict[str, Any], name: str) -> tuple[float, float]:
    spec = (schema.get("properties") or {}).get(name) or {}
    low, high = spec.get("minimum"), spec.get("maximum")
    if not isinstance(low, (int, float)) or not isinstance(high, (int, float)):
        raise JudgeConfigError(f"value_field {name!r}: give `scale: [min, max]` or a minimum and "
                        "maximum for that property in the schema")
    return (float(low), float(high))


def _nearest(judgements: Sequence[Judgement], value: float) -> Judgement:
    """The judgement closest to the reduced value, whose reason best stands for the result."""
    return min(judgements, key=lambda v: abs((v.value if v.value is not None else value) - value))


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties),
            "additionalProperties": False}


def _plain(number: float) -> float | int:
    return int(number) if float(number).is_integer() else number


def _example(schema: dict[str, Any]) -> Any:
    """A placeholder instance of `schema`, to show a judge the expected reply."""
    kind = schema.get("type")
    if "enum" in schema:
        return " | ".join(str(option) for option in schema["enum"])
    if kind == "object":
        return {key: _example(sub) for key, sub in (schema.get("properties") or {}).items()}
    if kind == "array":
        return [_example(schema.get("items") or {})]
    if kind in ("integer", "number"):
        low, high = schema.get("minimum"), schema.get("maximum")
        return f"<{kind} {low}-{high}>" if low is not None and high is not None else f"<{kind}>"
    if kind == "boolean":
        return "<true | false>"
    return f"<{schema.get('description', 'text')}>"
