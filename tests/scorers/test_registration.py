"""The deterministic kinds are found by name and describe every key for editor completion."""

from __future__ import annotations

import pytest

from assay.registry import scorers
from assay.scorers.base import CheckScorer

DETERMINISTIC = ["exact_match", "contains", "regex", "token_f1", "numeric", "json_valid",
                 "json_schema", "tool_calls", "python"]


@pytest.mark.parametrize("kind", DETERMINISTIC)
def test_kind_is_registered_as_a_check_scorer(kind):
    cls = scorers.get(kind)
    assert cls.kind == kind
    assert issubclass(cls, CheckScorer)


@pytest.mark.parametrize("kind", DETERMINISTIC)
def test_every_own_key_has_a_description_in_the_json_schema(kind):
    properties = scorers.get(kind).Params.model_json_schema(by_alias=True)["properties"]
    own = {key: spec for key, spec in properties.items() if key not in ("type", "name")}
    assert own, f"{kind} has no keys of its own"
    undescribed = [key for key, spec in own.items() if not spec.get("description")]
    assert undescribed == []


@pytest.mark.parametrize("kind", DETERMINISTIC)
def test_unknown_keys_are_rejected(kind):
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        scorers.get(kind).Params.model_validate({"type": kind, "treshold": 0.5})
