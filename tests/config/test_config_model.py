"""Every model read from a config refuses `true` or `false` where a number is wanted."""

from __future__ import annotations

import importlib
import types
import typing
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from assay.config.loading import SECTION_MODELS
from assay.config.models import EvalConfig
from assay.context.pack_config import ContextConfig
from assay.registry import scorers, targets


def _config_models() -> list[type[BaseModel]]:
    """The models a config is read into: the file's own, each section's, and every
    registered target's and scorer's params, with the models nested in their fields."""
    roots: list[type[BaseModel]] = [EvalConfig, ContextConfig]
    roots += [getattr(importlib.import_module(module), name)
              for module, name in SECTION_MODELS.values()]
    roots += [kind.Params for kind in targets.load_all().values()]
    roots += [kind.Params for kind in scorers.load_all().values()]
    found: dict[type[BaseModel], None] = {}
    pending = list(roots)
    while pending:
        model = pending.pop()
        if model not in found:
            found[model] = None
            pending += [nested for field in model.model_fields.values()
                        for nested in _models_in(field.annotation)]
    return list(found)


def _models_in(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for argument in typing.get_args(annotation):
        yield from _models_in(argument)


def _bare(annotation: Any) -> Any:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _true_for_a_number(annotation: Any) -> Any:
    """A value putting `true` where the type wants a number (in the field, or in its items),
    or None when the type wants no number."""
    annotation = _bare(annotation)
    origin = typing.get_origin(annotation)
    arguments = [_bare(argument) for argument in typing.get_args(annotation)]
    if annotation in (int, float):
        return True
    if origin in (typing.Union, types.UnionType):
        if bool in arguments:
            return None
        return next((value for argument in arguments
                     if (value := _true_for_a_number(argument)) is not None), None)
    if origin is tuple and arguments:
        items = [_true_for_a_number(argument) for argument in arguments if argument is not ...]
        return items if all(item is not None for item in items) else None
    if origin is list and arguments:
        item = _true_for_a_number(arguments[0])
        return None if item is None else [item]
    if origin is dict and len(arguments) == 2:
        item = _true_for_a_number(arguments[1])
        return None if item is None else {"metric": item}
    return None


def _fields(wanted: typing.Callable[[Any], bool]) -> list[Any]:
    return [pytest.param(model, name, field.alias or name, id=f"{model.__qualname__}.{name}")
            for model in _config_models() for name, field in model.model_fields.items()
            if wanted(field.annotation)]


NUMBER_FIELDS = _fields(lambda annotation: _true_for_a_number(annotation) is not None)
BOOLEAN_FIELDS = _fields(lambda annotation: bool in {_bare(annotation),
                                                      *typing.get_args(annotation)})


def test_the_walk_finds_the_numbers_and_booleans_of_every_kind_of_config_model() -> None:
    """A walk that found nothing would pass the tests below with nothing checked."""
    numbers = {param.id for param in NUMBER_FIELDS}
    assert {"RunSettings.epochs", "ModelParams.max_tokens", "JudgeScore.Params.repeats",
            "ContextConfig.top_k", "ProviderConfig.timeout", "Price.input_per_mtok",
            "PackConfig.chunk_chars", "McpServerConfig.max_restarts", "CalibrationSpec.scale",
            "PassRule.min", "NumberOutput.threshold", "PythonScorer.Params.scale"} <= numbers
    assert {"PythonParams.threaded", "NumberOutput.integer"} <= {param.id
                                                                 for param in BOOLEAN_FIELDS}


@pytest.mark.parametrize("model, name, key", NUMBER_FIELDS)
def test_every_number_of_every_config_model_refuses_true(model: type[BaseModel], name: str,
                                                         key: str) -> None:
    """Regression: `repeats: true`, `top_k: true`, `max_tokens: true`, `temperature: true`
    read as 1 and `timeout: false` as 0, wherever the model was not the config file's own
    (a target's or a scorer's params, a provider, a pack, a condition's context, a
    calibration spec)."""
    value = _true_for_a_number(model.model_fields[name].annotation)
    with pytest.raises(ValidationError) as info:
        model.model_validate({key: value})
    at_the_key = [error for error in info.value.errors() if error["loc"][:1] == (key,)]
    assert at_the_key, f"{model.__qualname__}.{name} took {value!r}"
    assert {error["msg"] for error in at_the_key} == {"Input should be a number, not true or false"}


@pytest.mark.parametrize("model, name, key", BOOLEAN_FIELDS)
def test_a_true_boolean_field_still_takes_true(model: type[BaseModel], name: str,
                                               key: str) -> None:
    try:
        model.model_validate({key: True})
    except ValidationError as exc:
        assert [error for error in exc.errors() if error["loc"][:1] == (key,)] == []


def test_a_boolean_for_a_number_is_said_among_the_models_other_problems() -> None:
    """The check is model-wide (see ConfigModel): stopping at the boolean would hide the rest,
    `run: {epochs: true, concurrency: 0}` saying only the epochs, where each field's own
    problem is said."""
    from assay.config.models import DatasetConfig, RunSettings
    from assay.providers.config import ProviderConfig

    with pytest.raises(ValidationError) as info:
        RunSettings.model_validate({"epochs": True, "concurrency": 0})
    assert [(error["loc"], error["type"]) for error in info.value.errors()] == [
        (("concurrency",), "greater_than_equal"), (("epochs",), "number_not_boolean")]
    with pytest.raises(ValidationError) as info:
        DatasetConfig.model_validate({"sample": True, "fields": {"expeted": "answer"}})
    assert [(error["loc"], error["msg"][:28]) for error in info.value.errors()] == [
        (("fields",), "'expeted' is no field of a c"),
        (("sample",), "Input should be a number, no")]
    with pytest.raises(ValidationError) as info:
        ProviderConfig.model_validate({"base_url": "ftp://x", "max_retries": True})
    url = info.value.errors()[0]
    assert (url["loc"], url["type"]) == (("base_url",), "value_error")
    assert str(url["ctx"]["error"]) == "'ftp://x' is not an http:// or https:// URL with a host"
