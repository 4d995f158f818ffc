"""Sandboxed prompt and value templates over case fields (`{{ expected }}`).

Templates come from config files that may be shared, so they render in
jinja2's sandbox. A string without `{{` or `{%` is returned as is, without
importing jinja2 at all: most values are plain.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import Any

from assay.errors import UserError


def is_template(text: str) -> bool:
    return "{{" in text or "{%" in text


@lru_cache(maxsize=256)
def _compile(source: str) -> Any:
    from jinja2 import StrictUndefined, TemplateSyntaxError
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment(undefined=StrictUndefined, keep_trailing_newline=True)
    try:
        return env.from_string(source)
    except TemplateSyntaxError as exc:
        raise UserError(f"template syntax error on line {exc.lineno}: {exc.message}") from None


def check_template(source: str) -> None:
    """Raise `UserError` now if `source` will not compile later."""
    if is_template(source):
        _compile(source)


def render(source: str, variables: dict[str, Any]) -> str:
    """Render `source` with `variables`; an undefined name is a clear error."""
    if not is_template(source):
        return source
    from jinja2 import UndefinedError

    try:
        return _compile(source).render(**variables)
    except UndefinedError as exc:
        raise UserError(f"template refers to an unknown variable: {exc.message}") from None


def case_variables(case: Any, **extra: Any) -> dict[str, Any]:
    """The names a template may use: every Case field, `input` as text, plus extras."""
    variables = {
        "id": case.id,
        "input": case.input_text,
        "messages": case.messages,
        "expected": case.expected,
        "expected_tool_calls": case.expected_tool_calls,
        "expected_traits": case.expected_traits,
        "reference": case.reference,
        "tags": case.tags,
        "difficulty": case.difficulty,
        "metadata": case.metadata,
    }
    variables.update(case.metadata)  # original dataset fields, e.g. {{ question }}
    variables.update(extra)
    return variables


def template_hash(source: str) -> str:
    """A short, stable fingerprint of a prompt template, stored with every verdict."""
    return hashlib.sha256(source.encode()).hexdigest()[:16]
