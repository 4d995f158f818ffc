"""Sandboxed prompt and value templates over case fields (`{{ expected }}`).

Templates come from config files that may be shared, so they render in
jinja2's sandbox. A string without `{{` or `{%` is returned as is, and one of
text and `{{ name }}` placeholders is checked and rendered the way jinja2
would, without importing jinja2 at all: most values are one or the other.

What an expression renders as: text as it is; a list, a mapping or a boolean
as JSON (`["Phobos", "Deimos"]`, `true`), never a Python repr; a missing
value (None) is an error naming the case's missing field, never the text
`None`, which would silently fail a case (or pass it, for an answer that
happens to say "None"). `value_of` gives a lone `{{ name }}`'s value itself,
for a check that compares with each item of a list.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import keyword
import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from assay.errors import UserError


def is_template(text: str) -> bool:
    return "{{" in text or "{%" in text


class _Missing(Exception):
    """An expression rendered None."""


_AS_JSON = (list, tuple, dict, bool)
"""What renders as JSON (a tuple of types: `list | tuple | ...` would be built per call)."""


def _finalize(value: Any) -> Any:
    if value is None:
        raise _Missing
    if isinstance(value, _AS_JSON):
        return json.dumps(value, ensure_ascii=False, default=str)
    return value


@lru_cache(maxsize=1)
def _environment() -> Any:
    from jinja2 import StrictUndefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    return ImmutableSandboxedEnvironment(undefined=StrictUndefined, keep_trailing_newline=True,
                                         finalize=_finalize)


@lru_cache(maxsize=256)
def _compile(source: str) -> Any:
    from jinja2 import TemplateSyntaxError

    try:
        return _environment().from_string(source)
    except TemplateSyntaxError as exc:
        raise UserError(f"template syntax error on line {exc.lineno}: {exc.message}") from None
    except RecursionError:  # jinja2 parses nesting by recursion: `{{ a[[[[...` thousands deep
        raise UserError("template nests brackets or blocks too deeply to read") from None


_MISSING = "template renders a missing value: a field it names is empty (None) for this case"

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_]\w*)\s*\}\}")
_LITERALS = frozenset({"true", "false", "none", "True", "False", "None"})


def _plain_name(name: str) -> bool:
    """A name that jinja2 reads as a variable and nothing else: an ASCII identifier that is
    neither a literal (`true`) nor a keyword (`{{ not }}` does not compile)."""
    return (name.isidentifier() and name.isascii() and not keyword.iskeyword(name)
            and name not in _LITERALS)


@lru_cache(maxsize=256)
def _plain_parts(source: str) -> tuple[str, ...] | None:
    """Text and `{{ name }}` placeholders only: (text, name, text, ..., text), rendered by
    joining, at a fraction of jinja2's cost per case. None for any other template (jinja2
    renders those, and any with a carriage return, whose newlines jinja2 rewrites). The output
    is the same: each value through `_finalize`, then `str`. Such a template always compiles,
    so checking it needs no jinja2 either (`{{{ name }}}` is not one: jinja2 reads its
    first two braces as the placeholder's)."""
    parts = _PLACEHOLDER.split(source)
    if any(marker in text for text in parts[0::2] for marker in ("{{", "{%", "{#", "\r")):
        return None
    if not all(_plain_name(name) for name in parts[1::2]):
        return None
    if any(text.endswith("{") for text in parts[:-1:2]):
        return None
    return tuple(parts)


@lru_cache(maxsize=256)
def _expression(name: str) -> Any:
    """A compiled `{{ name }}` expression, compiled once per name, not once per case."""
    return _environment().compile_expression(name, undefined_to_none=False)


_LONE = re.compile(r"^\s*\{\{\s*([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*\}\}\s*$")


def lone_variable(source: str) -> str | None:
    """`expected` for `"{{ expected }}"` (a template that is one variable and nothing else)."""
    match = _LONE.match(source)
    return match.group(1) if match else None


def value_of(name: str, variables: dict[str, Any]) -> Any:
    """The value of the dotted `name` (`metadata.answer`) among `variables`, as it is (a list
    stays a list); an unknown name is a `UserError`, a missing one is None."""
    if name in variables and _plain_name(name):
        return variables[name]  # what jinja2's expression gives, without building it
    from jinja2 import Undefined, UndefinedError

    try:
        value = _expression(name)(**variables)
        if isinstance(value, Undefined):
            value._fail_with_undefined_error()
    except UndefinedError as exc:
        raise UserError(f"template refers to an unknown variable: {exc.message}") from None
    return value


def validate_template(source: str) -> None:
    """Raise `UserError` now if `source` will not compile later (text and `{{ name }}`
    placeholders always compile: see `_plain_parts`)."""
    if is_template(source) and _plain_parts(source) is None:
        _compile(source)


def render(source: str, variables: dict[str, Any]) -> str:
    """Render `source` with `variables`; an undefined name is a clear error."""
    if not is_template(source):
        return source
    parts = _plain_parts(source)
    if parts is not None and all(name in variables for name in parts[1::2]):
        try:
            return "".join(part if index % 2 == 0 else str(_finalize(variables[part]))
                           for index, part in enumerate(parts))
        except _Missing:
            raise UserError(_MISSING) from None
    from jinja2 import UndefinedError

    try:
        return str(_compile(source).render(**variables))
    except UndefinedError as exc:
        raise UserError(f"template refers to an unknown variable: {exc.message}") from None
    except _Missing:
        raise UserError(_MISSING) from None


_UNDEFINED = re.compile(r"'([^']+)' is undefined")


def render_problem(source: str, variables: dict[str, Any]) -> str | None:
    """Why `source` does not render with `variables` (with a did-you-mean), or None: what
    `assay validate` says of a scorer's or a target's template tried on a real case."""
    try:
        render(source, variables)
    except UserError as exc:
        message = str(exc)
        unknown = _UNDEFINED.search(message)
        if unknown:
            hint = difflib.get_close_matches(unknown.group(1), list(variables), n=1)
            if hint:
                message += f"; did you mean '{hint[0]}'?"
        return message
    except Exception as exc:  # noqa: BLE001 - whatever the sandbox raises is the answer
        return f"template does not render: {type(exc).__name__}: {exc}"
    return None


def template_compiles(source: str) -> str:
    """`source` unchanged if it compiles; a ValueError (for a pydantic validator) if not."""
    try:
        validate_template(source)
    except UserError as exc:
        raise ValueError(str(exc)) from None
    return source


def templates_compile(sources: Any) -> Any:
    """Each template in `sources` (a text, or the texts in a list or a JSON body) compiles;
    one that does not is named by where it sits (`item 1`, `messages.0.content`)."""
    for where, source in template_texts(sources):
        try:
            template_compiles(source)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}" if where else str(exc)) from None
    return sources


def template_texts(value: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str, str]]:
    """Every text in `value` (a string, or one nested in lists and mappings) with where it
    sits: '' for `value` itself, `item 1` in a list, `messages.0.content` in a mapping."""
    if isinstance(value, str):
        where = (f"item {path[0]}" if len(path) == 1 and isinstance(path[0], int)
                 else ".".join(map(str, path)))
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from template_texts(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from template_texts(item, (*path, index))


_CASE_NAMES: dict[str, Callable[[Any], Any]] = {
    "id": lambda case: case.id,
    "input": lambda case: case.input_text,
    "messages": lambda case: case.messages,
    "expected": lambda case: case.expected,
    "expected_tool_calls": lambda case: case.expected_tool_calls,
    "expected_traits": lambda case: case.expected_traits,
    "reference": lambda case: case.reference,
    "tags": lambda case: case.tags,
    "difficulty": lambda case: case.difficulty,
    "metadata": lambda case: case.metadata,
}
"""How `case_variables` reads each Case field (a dataset field in `metadata` wins)."""


def case_renderer(source: str) -> Callable[[Any], str]:
    """`render(source, case_variables(case))` as a function of the case, for a template
    rendered once per case: a template of text and `{{ name }}` placeholders reads just the
    fields it names, instead of building every variable of the case each time."""
    if not is_template(source):
        return lambda case: source
    parts = _plain_parts(source)
    if parts is None or any(name not in _CASE_NAMES for name in parts[1::2]):
        return lambda case: render(source, case_variables(case))
    slots = [(index, parts[index], _CASE_NAMES[parts[index]])
             for index in range(1, len(parts), 2)]

    def rendered(case: Any) -> str:
        pieces = list(parts)
        metadata = case.metadata
        try:
            for index, name, read in slots:
                value = metadata[name] if name in metadata else read(case)
                pieces[index] = str(_finalize(value))
        except _Missing:
            raise UserError(_MISSING) from None
        return "".join(pieces)

    return rendered


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
