"""Templates of text and `{{ name }}` render exactly as jinja2 renders them, only faster."""

from __future__ import annotations

import pytest

from assay.case import Case
from assay.config.templates import (
    _compile,
    _expression,
    _plain_parts,
    case_renderer,
    case_variables,
    render,
    validate_template,
    value_of,
)
from assay.errors import UserError

VARIABLES = {"expected": "Paris", "answers": ["Phobos", "Deimos"], "flag": True, "n": 3,
             "x": 1.5, "meta": {"k": "v"}, "text": "multi\nline ✓", "empty": ""}
SOURCES = ["The answer is {{ expected }}", "{{expected}}", "{{ answers }} / {{ flag }}",
           "{{ n }}{{ x }} {{ meta }}", "a }} b {{ text }}", "{{ empty }}!",
           "line one\n{{ expected }}\n", "  {{ expected }}  "]


@pytest.mark.parametrize("source", SOURCES)
def test_text_and_names_render_as_jinja2_renders_them(source):
    assert _plain_parts(source) is not None  # the fast way is taken
    assert render(source, VARIABLES) == str(_compile(source).render(**VARIABLES))


@pytest.mark.parametrize("source", ["{{ expected | upper }}", "{% if n %}{{ n }}{% endif %}",
                                    "{# note #}{{ n }}", "{{ meta.k }}", "{{ true }}",
                                    "a\r\n{{ n }}", "{{- n }}"])
def test_anything_else_is_left_to_jinja2(source):
    assert _plain_parts(source) is None
    assert render(source, VARIABLES) == str(_compile(source).render(**VARIABLES))


@pytest.mark.parametrize("source", ["{{{ expected }}}", "{{ not }}", "{{ in }}", "{{ é }}",
                                    "{{ a² }}", "{{ None }}", "x {{{ n }}"])
def test_a_name_jinja2_reads_otherwise_is_left_to_jinja2(source):
    assert _plain_parts(source) is None
    try:
        _compile(source)
    except UserError as exc:
        with pytest.raises(UserError, match="syntax error") as checked:
            validate_template(source)
        assert str(checked.value) == str(exc)
    else:
        validate_template(source)


@pytest.mark.parametrize("source", [*SOURCES, "{{ _x1 }}} and {{ y }}",
                                    "{ {{ n }}", "{{\n  expected\t}}"])
def test_text_and_names_are_known_to_compile_without_jinja2(source):
    assert _plain_parts(source) is not None
    validate_template(source)  # no error, and none from jinja2 either:
    _compile(source)


@pytest.mark.parametrize("name", ["expected", "answers", "flag", "meta", "empty", "n"])
def test_a_lone_name_has_the_value_jinja2_gives_it(name):
    assert value_of(name, VARIABLES) is _expression(name)(**VARIABLES)


def test_a_missing_value_is_an_error_either_way():
    with pytest.raises(UserError, match="missing value"):
        render("The answer is {{ expected }}", {"expected": None})
    with pytest.raises(UserError, match="missing value"):
        render("{{ expected | default(none) }}", {"expected": None})


def test_an_unknown_name_is_named_in_the_error():
    with pytest.raises(UserError, match="'nowhere' is undefined"):
        render("The answer is {{ nowhere }}", VARIABLES)


def test_a_lone_name_gives_its_value_itself():
    assert value_of("answers", VARIABLES) == ["Phobos", "Deimos"]
    assert value_of("meta.k", VARIABLES) == "v"


CASE = Case(id="c1", input=[{"role": "user", "content": "capital?"}], expected="Paris",
            tags=["geo"], difficulty="easy", metadata={"question": "capital?", "n": 3})


@pytest.mark.parametrize("source", ["The answer is {{ expected }}", "{{ id }}: {{ input }}",
                                    "{{ tags }} {{ difficulty }} {{ metadata }}",
                                    "{{ question }} x{{ n }}", "{{ expected | upper }}",
                                    "plain text"])
def test_a_case_renderer_renders_as_render_over_the_case_variables(source):
    assert case_renderer(source)(CASE) == render(source, case_variables(CASE))


def test_a_dataset_field_named_like_a_case_field_wins_in_a_case_renderer_too():
    case = Case(id="c2", input="q", expected="from expected", metadata={"expected": "field"})
    assert case_renderer("{{ expected }}!")(case) == "field!"


def test_a_case_renderer_names_a_missing_value():
    with pytest.raises(UserError, match="missing value"):
        case_renderer("The answer is {{ expected }}")(Case(id="c3", input="q"))


def test_a_template_nested_thousands_deep_is_an_error_not_a_crash() -> None:
    """Regression: a config value `{{ expe[[[[...` 5,000 brackets deep ended `assay
    validate` in 'internal error: RecursionError' from jinja2's parser."""
    with pytest.raises(UserError, match="nests brackets or blocks too deeply"):
        validate_template("{{ expe" + "[" * 5000)
