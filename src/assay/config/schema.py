"""The JSON Schema of the config file, for editors (`assay schema > assay.schema.json`).

Sections validated by registered kinds (target, scorers) become `oneOf` over
every registered kind's params, discriminated by `type`.
"""

from __future__ import annotations

import importlib
from typing import Any

from pydantic import BaseModel

from assay.config.loading import SECTION_MODELS
from assay.config.models import EvalConfig


def config_schema() -> dict[str, Any]:
    from assay.registry import scorers, targets

    schema = EvalConfig.model_json_schema()
    defs = schema.setdefault("$defs", {})
    props = schema["properties"]
    props["target"] = _one_of(targets.load_all(), defs, props["target"])
    scorer_items = _one_of(scorers.load_all(), defs, {})
    props["scorers"] = {**props["scorers"], "items": scorer_items}
    for section, (module_name, class_name) in SECTION_MODELS.items():
        model = getattr(importlib.import_module(module_name), class_name)
        sub = model.model_json_schema(ref_template="#/$defs/{model}")
        defs.update(sub.pop("$defs", {}))
        defs[class_name] = sub
        props[section] = {**props[section], "additionalProperties": {"$ref": f"#/$defs/{class_name}"}}
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "assay config"
    return schema


def _one_of(kinds: dict[str, Any], defs: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    options = []
    for kind, cls in kinds.items():
        params: type[BaseModel] = cls.Params
        sub = params.model_json_schema(ref_template="#/$defs/{model}")
        defs.update(sub.pop("$defs", {}))
        sub.setdefault("properties", {})["type"] = {"const": kind, "description": sub.get(
            "properties", {}).get("type", {}).get("description", "")}
        name = f"{kind}_{params.__name__}"
        defs[name] = sub
        options.append({"$ref": f"#/$defs/{name}"})
    return {"description": base.get("description", ""), "oneOf": options}
