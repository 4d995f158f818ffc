"""What a deterministic check compares against: the case's `expected`, or a `value:`.

Every text check reads its reference the same way, so the rules live here once:
a `value:` on the scorer wins (it may be a template over the case), otherwise
the case's `expected`; a list means "any of these answers"; a case with
nothing to compare against is a scorer error that says so, never a silent pass.
"""

from __future__ import annotations

import json
from typing import Any

from assay.case import Case
from assay.config.templates import (
    case_renderer,
    case_variables,
    is_template,
    lone_variable,
    validate_template,
    value_of,
)
from assay.errors import UserError
from assay.score import Score
from assay.scorers.base import ScorerParams, param_error


class CheckParams(ScorerParams):
    """Base of the deterministic scorers' params."""


def no_expected(case: Case, what: str = "expected value") -> Score:
    """The error for a case that gives a check nothing to compare against."""
    return Score.failure(
        f"case '{case.id}' has no {what}; set 'expected' in the dataset "
        f"or 'value' on the scorer"
    )


def as_text(value: Any) -> str:
    """A reference value as text: strings as they are, other scalars as JSON (`true`, `1.5`)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


class Reference:
    """Resolves the reference answers of one case: from `value:` if given, else `expected`.

    Templates in `value:` are checked once here, at config time, and rendered
    per case; plain values are used as they are.
    """

    def __init__(self, value: str | list[str] | None) -> None:
        self.value = value
        sources = [value] if isinstance(value, str) else list(value or [])
        self.templated = any(is_template(source) for source in sources)
        for index, source in enumerate(sources):
            try:
                validate_template(source)
            except UserError as exc:
                field = "value" if isinstance(value, str) else f"value.{index}"
                raise param_error(field, str(exc)) from None
        # Per source, once: a lone `{{ name }}` (its value, a list staying a list), or the
        # template's renderer.
        self._sources = [(lone_variable(source), case_renderer(source)) for source in sources]

    def texts(self, case: Case) -> list[str] | Score:
        """The acceptable answers as text, or a `Score.failure` when there are none."""
        if self.value is None:
            return _values(case, "expected", case.expected)
        if not self.templated:
            return [self.value] if isinstance(self.value, str) else list(self.value)
        variables: dict[str, Any] | None = None
        texts: list[str] = []
        try:
            for name, rendered in self._sources:
                if name is None:
                    texts.append(rendered(case))
                    continue
                if variables is None:
                    variables = case_variables(case)
                found = _values(case, name, value_of(name, variables))
                if isinstance(found, Score):
                    return found
                texts += found
        except UserError as exc:  # e.g. a field this one case lacks
            return Score.failure(f"case '{case.id}': {exc}")
        return texts


def _values(case: Case, name: str, value: Any) -> list[str] | Score:
    """The texts a reference value stands for: each item of a list (so `contains` looks for
    each, per its `mode`), else the value as text; a missing value is an error naming it."""
    if value is None or value == [] or value == "":
        return no_expected(case) if name == "expected" else Score.failure(
            f"case '{case.id}' has no {name} (`{{{{ {name} }}}}` is empty)")
    if isinstance(value, dict):
        return Score.failure(f"case '{case.id}' has a mapping as {name}; this check compares "
                             "text")
    if isinstance(value, list):
        return [as_text(item) for item in value]
    return [as_text(value)]


def clip(text: str, limit: int = 80) -> str:
    """`text` quoted for a reason line, shortened in the middle when long."""
    if len(text) > limit:
        half = (limit - 3) // 2
        text = f"{text[:half]}...{text[-half:]}"
    return repr(text)
