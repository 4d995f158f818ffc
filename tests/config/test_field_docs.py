"""A field's docstring is its JSON Schema description, read when the schema is generated."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from assay.config.field_docs import class_docstrings, describe_fields
from assay.config.models import EvalConfig


class Base(BaseModel):
    model_config = ConfigDict(json_schema_extra=describe_fields)

    size: int = 1
    """How many."""

    colour: str = "red"
    """The base's colour."""


class Child(Base):
    colour: str = "blue"

    label: str = Field("x", description="given by the field")
    """not this one"""


def test_a_field_docstring_is_its_schema_description():
    properties = Base.model_json_schema()["properties"]
    assert properties["size"]["description"] == "How many."
    assert properties["colour"]["description"] == "The base's colour."


def test_a_field_redeclared_without_a_docstring_has_none_and_an_inherited_one_keeps_its_own():
    properties = Child.model_json_schema()["properties"]
    assert properties["size"]["description"] == "How many."
    assert "description" not in properties["colour"]


def test_a_description_the_field_gives_wins_over_its_docstring():
    assert Child.model_json_schema()["properties"]["label"]["description"] == "given by the field"


def test_the_config_models_do_not_read_their_source_when_defined():
    assert not EvalConfig.model_config.get("use_attribute_docstrings")
    assert EvalConfig.model_fields["calibration"].description is None
    schema = EvalConfig.model_json_schema()
    assert schema["properties"]["calibration"]["description"].startswith("People's labels")


def test_a_class_without_source_has_no_docstrings():
    generated = type("Generated", (BaseModel,), {"__annotations__": {"n": int}})
    assert class_docstrings(generated) == {}
