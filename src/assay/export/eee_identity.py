"""Who and what was evaluated, as Every Eval Ever names it: the model, the dataset, the folder.

Every Eval Ever files one evaluation of one model under
`data/<collection>/<developer>/<model>/<uuid>.json`. An assay run may hold
several conditions, each its own system under test, so each condition
becomes one such evaluation. The model is the condition's `model` (a model
or agent target: `openai/gpt-4.1` gives developer `openai`); for a target
that is code (`python`, `command`, `http`) it is the target itself, e.g.
`python/support:answer`. The collection is the experiment's name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

_UNSAFE = re.compile(r'[<>:"\\|?*\x00-\x1f]')
_RESERVED = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)),
             *(f"LPT{i}" for i in range(1, 10))}


@dataclass(frozen=True)
class ModelIdentity:
    """The model (or system) one condition evaluated."""

    id: str
    """`developer/name`, as the format's `model_info.id` wants it."""
    target_type: str

    @property
    def developer(self) -> str:
        return self.id.split("/", 1)[0]

    def folder(self, collection: str) -> PurePosixPath:
        """`data/<collection>/<developer>/<model>`, each part a portable file name."""
        developer, _, name = self.id.partition("/")
        return PurePosixPath("data", path_part(collection), path_part(developer),
                             path_part(name.replace("/", "_")))


def condition_identity(config: dict[str, Any] | None, condition: str) -> ModelIdentity:
    """The model a condition of a stored run's config evaluated."""
    config = config if isinstance(config, dict) else {}
    target = dict(config.get("target") or {}) if isinstance(config.get("target"), dict) else {}
    conditions = config.get("conditions")
    overrides = conditions.get(condition) if isinstance(conditions, dict) else None
    if isinstance(overrides, dict):
        target.update({key: value for key, value in overrides.items()
                       if key in ("model", "function", "command", "url")})
    kind = str(target.get("type") or "python")
    if kind in ("model", "agent") and target.get("model"):
        model = _resolved(str(target["model"]))
        return ModelIdentity(model if "/" in model else f"unknown/{model}", kind)
    what = target.get("function") or target.get("url") or target.get("command") or "target"
    if isinstance(what, list):
        what = what[0] if what else "command"
    return ModelIdentity(f"{kind}/{what}", kind)


def dataset_source(config: dict[str, Any] | None, dataset_path: str | None,
                   dataset_hash: str | None) -> dict[str, Any]:
    """The `source_data` of every result: a Hugging Face dataset, or a file of the user's."""
    spec = (config or {}).get("dataset") if isinstance(config, dict) else None
    details = {"sha256": dataset_hash} if dataset_hash else {}
    if isinstance(spec, dict) and spec.get("hf"):
        source: dict[str, Any] = {"dataset_name": str(spec["hf"]), "source_type": "hf_dataset",
                                  "hf_repo": str(spec["hf"])}
        if spec.get("split"):
            source["hf_split"] = str(spec["split"])
        details.update({key: str(spec[key]) for key in ("revision", "subset") if spec.get(key)})
    else:
        name = PurePosixPath(str(dataset_path or "dataset")).name or "dataset"
        source = {"dataset_name": name, "source_type": "other"}
    if details:
        source["additional_details"] = details
    return source


def path_part(text: str) -> str:
    """`text` as one portable path component (the format's own rules for its folders)."""
    part = _UNSAFE.sub("_", text.replace("/", "_")).rstrip(". ") or "_"
    if part in (".", "..") or part.split(".", 1)[0].upper() in _RESERVED or part == "data":
        part = f"_{part}"
    return part


def _resolved(model: str) -> str:
    """A model written as `${VAR:-default}` in the config, read as the environment has it now."""
    if "${" not in model:
        return model
    from assay.config.interpolation import interpolate

    value, missing = interpolate(model)
    return model if missing else str(value)
