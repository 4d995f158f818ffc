"""The arguments of `assay.evaluate` as a config: the same shape a YAML file has.

Python objects (a task function, scorer functions) stay in the config data
the runner validates and uses; the store keeps a JSON-able description of
it, where each function is its `module:qualname`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from assay.datasets.memory import MEMORY_PATH
from assay.errors import UserError
from assay.user_code.calls import reference_of, unwrapped

Task = Callable[..., Any] | Mapping[str, Any] | str
"""A function `(case)` or `(case, condition)` (sync or async), a target spec such as
`{"type": "model", "model": ...}`, or a `module:function` reference."""

ScorerSpec = str | Mapping[str, Any] | Callable[..., Any]
"""A registered kind by name (`"exact_match"`), a spec (`{"type": "contains", "value": ...}`),
or a function `(case, output)` returning a bool, a number, a Score or a dict."""

Data = Iterable[Any] | str | os.PathLike[str] | Mapping[str, Any]
"""Records in memory (dicts or Cases), a dataset file, or a dataset spec (`{"path", "fields"}`,
or `{"hf", "split"}`)."""


@dataclass
class ConfigData:
    data: dict[str, Any]
    """The config to validate and run, functions in place."""
    described: dict[str, Any]
    """The same, JSON-able: what the store keeps and the config hash covers."""
    records: Iterable[Any] | None
    """The records given in memory; None when the data is a file."""


def config_data(experiment: str, *, data: Data, task: Task, scorers: Iterable[ScorerSpec],
                conditions: Mapping[str, Mapping[str, Any] | None] | None = None,
                gates: Iterable[Mapping[str, Any] | BaseModel] = (),
                run: Mapping[str, Any] | None = None,
                sections: Mapping[str, Any] | None = None) -> ConfigData:
    """Build the config of one `evaluate` call; `sections` are further top-level keys
    (description, judge, providers, mcp_servers, packs), given only when set."""
    if not isinstance(experiment, str) or not experiment.strip():
        raise UserError("the experiment name must be a non-empty string: "
                        "history and compare-to-previous group runs by it")
    dataset, records = _dataset(data)
    document: dict[str, Any] = {
        "name": experiment,
        **{key: value for key, value in (sections or {}).items() if value is not None},
        "dataset": dataset,
        "target": _target(task),
        "scorers": [_scorer(spec, index)
                    for index, spec in enumerate(listed(scorers, "scorers"))],
        "run": _run_settings(run or {}),
    }
    if conditions is not None:
        if not isinstance(conditions, Mapping):
            raise UserError("conditions must map each condition's name to its overrides, "
                            "e.g. {'baseline': {}, 'v2': {'args': {'prompt': 2}}}")
        document["conditions"] = {str(name): _overrides(name, overrides)
                                  for name, overrides in conditions.items()}
    listed_gates = listed(gates, "gates")
    if listed_gates:
        document["gates"] = [_gate(gate, index) for index, gate in enumerate(listed_gates)]
    return ConfigData(data=document, described=describe(document), records=records)


def _run_settings(run: Mapping[str, Any]) -> dict[str, Any]:
    """The `run:` section of the given settings. A None that is the setting's default
    (`sample`, `max_errors`) is left out, as a config file leaves the key out; a None that
    means something (`timeout=None`: no deadline, the config's `timeout: null`) is kept,
    where it was dropped and the run held to the 300 s default."""
    from assay.config.models import RunSettings

    defaults = RunSettings.model_fields
    return {key: value for key, value in run.items()
            if value is not None or (key in defaults and defaults[key].default is not None)}


def describe(value: Any) -> Any:
    """A JSON-able copy: functions as `module:qualname`, other objects as their repr."""
    if isinstance(value, Mapping):
        return {str(key): describe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [describe(item) for item in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if callable(value):
        return reference_of(value)
    return repr(value)


def _dataset(data: Data) -> tuple[dict[str, Any], Iterable[Any] | None]:
    if isinstance(data, str | os.PathLike):
        return {"path": os.fspath(data)}, None
    if isinstance(data, Mapping):
        if "path" not in data and "hf" not in data:
            raise UserError("data given as a mapping is a dataset spec and needs a 'path' "
                            "(a file) or 'hf' (a Hugging Face dataset); records in memory "
                            "are a list of dicts")
        return dict(data), None
    if not isinstance(data, Iterable):
        raise UserError(f"data must be a list of records (dicts or Cases), a dataset path or "
                        f"a dataset spec, not {type(data).__name__}")
    return {"path": str(MEMORY_PATH)}, data


def _target(task: Task) -> dict[str, Any]:
    if isinstance(task, str):
        return {"type": "python", "function": task}
    if isinstance(task, Mapping):
        return dict(task)
    if callable(task):
        return {"type": "python", "function": task}
    raise UserError(f"task must be a function, a target spec such as {{'type': 'model', ...}} "
                    f"or a 'module:function' reference, not {type(task).__name__}")


def _scorer(spec: ScorerSpec, index: int) -> dict[str, Any]:
    if isinstance(spec, str):
        return {"type": spec}
    if isinstance(spec, Mapping):
        return dict(spec)
    if callable(spec):
        name = getattr(unwrapped(spec), "__name__", type(spec).__name__)
        if name == "<lambda>":
            raise UserError(f"scorers[{index}]: a lambda has no name to report its scores "
                            "under; pass {'type': 'python', 'function': ..., 'name': ...}")
        return {"type": "python", "function": spec, "name": name}
    raise UserError(f"scorers[{index}]: expected a scorer kind's name, a spec with a 'type', "
                    f"or a function (case, output), not {type(spec).__name__}")


def _overrides(name: object, overrides: object) -> dict[str, Any]:
    if overrides is None:
        return {}
    if not isinstance(overrides, Mapping):
        raise UserError(f"conditions['{name}']: a condition's overrides are a dict such as "
                        f"{{'args': {{'prompt': 2}}}} (or None for none), "
                        f"not {type(overrides).__name__}")
    return dict(overrides)


def _gate(gate: object, index: int) -> dict[str, Any]:
    if isinstance(gate, BaseModel):
        return gate.model_dump(exclude_none=True)
    if not isinstance(gate, Mapping):
        raise UserError(f"gates[{index}]: a gate is a dict such as {{'scorer': 'exact_match', "
                        f"'min_pass_rate': 0.8}}, not {type(gate).__name__}")
    return dict(gate)


def listed(items: Any, what: str) -> list[Any]:
    """`items` as a list; a `UserError` for one item given where a list belongs (a string
    would be read as a list of its letters)."""
    if isinstance(items, str | Mapping) or callable(items) or not isinstance(items, Iterable):
        raise UserError(f"{what} must be a list")
    return list(items)
