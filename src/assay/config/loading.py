"""Load a config file: YAML -> interpolation -> validation -> resolved conditions.

Every problem found is collected and reported at once, each naming the
file, the line and the field.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from assay.condition import Condition
from assay.config.interpolation import interpolate, missing_problems
from assay.config.models import PACE_SETTINGS, EvalConfig
from assay.config.validation import problems_from
from assay.config.yaml_source import SourceMap, load_yaml
from assay.errors import Problem, UserError
from assay.redaction import (
    command_line_secrets,
    literal_secrets,
    redact_structure,
    register,
    urls_secrets,
)

# Sections whose entries are validated by a model that lives with the code that uses them.
SECTION_MODELS: dict[str, tuple[str, str]] = {
    "providers": ("assay.providers.config", "ProviderConfig"),
    "mcp_servers": ("assay.context.mcp_config", "McpServerConfig"),
    "packs": ("assay.context.pack_config", "PackConfig"),
}


@dataclass
class LoadedConfig:
    """A validated config with everything the runner needs resolved."""

    path: Path
    config: EvalConfig
    stored: dict[str, Any]
    """The config as written (before `${VAR}` interpolation), secrets redacted: what the store keeps."""
    hash: str
    conditions: list[Condition]
    target_params: dict[str, BaseModel]
    """The target's validated params per condition name."""
    scorer_params: list[BaseModel]
    sections: dict[str, dict[str, BaseModel | dict[str, Any]]] = field(default_factory=dict)
    """Validated `providers`, `mcp_servers` and `packs` entries by name."""
    source: SourceMap | None = None
    """Where each value sits in the file, to locate problems found after loading."""

    @property
    def base_dir(self) -> Path:
        return self.path.parent

    @property
    def written_path(self) -> str:
        """The config's path as the user gave it, for messages: the same file the lines of
        its problems name, not the absolute path the runner works with."""
        return self.source.file if self.source is not None else str(self.path)

    @property
    def name(self) -> str:
        return self.config.name


def load_config(path: str | Path, *, env: Mapping[str, str] | None = None) -> LoadedConfig:
    """Read, interpolate and validate a config file; raise `UserError` listing every problem."""
    path = Path(path)
    data, source = load_yaml(path)
    return load_config_data(data, source, path, env=env)


def load_config_data(data: Any, source: SourceMap, path: Path, *,
                     env: Mapping[str, str] | None = None,
                     described: dict[str, Any] | None = None) -> LoadedConfig:
    """Validate config data read from `path` (or built in code, as the Python API does).

    `described` is a JSON-able stand-in for data that holds Python objects (a function
    given in code): what the store keeps and the config hash covers.
    """
    if not isinstance(data, dict):
        raise UserError("invalid config", [Problem("the top level must be a mapping of keys",
                                                   source.file, 1)])
    foreign = _import_foreign(data, source)
    if foreign is not data:  # a k-eval config: lines and fields as its file has them
        from assay.config.keval import KevalSourceMap

        source = KevalSourceMap(source.file, source.root)
    data = foreign
    register(*literal_secrets(data))  # a target echoing one is masked as for `${VAR}`
    resolved, missing = interpolate(data, env)  # registers a variable used as a credential
    # and one put in a URL's password or key, or after a command line's `--api-key`
    register(*urls_secrets(resolved), *command_line_secrets(resolved))
    stored = redact_structure(data if described is None else described)  # what the store keeps
    problems = missing_problems(missing, source.file, source.line)
    try:
        config = EvalConfig.model_validate(resolved)
    except ValidationError as exc:
        problems.extend(problems_from(exc, EvalConfig, source))
        raise UserError(f"invalid config {source.file}", _as_written(problems, source)) from None
    sections = _validate_sections(config, source, problems)
    target_params, conditions = _resolve_conditions(config, source, problems)
    scorer_params = _validate_scorers(config, source, problems)
    _check_references(config, scorer_params, source, problems)
    if problems:
        raise UserError(f"invalid config {source.file}", _as_written(problems, source))
    # The hash covers the values the run will really use (`${VAR}` resolved), so resuming
    # with another ASSAY_MODEL is refused; secret-looking values are masked first.
    hashed = without_pace(
        redact_structure(interpolate(data if described is None else described, env)[0]))
    digest = hashlib.sha256(
        json.dumps(hashed, sort_keys=True, default=str).encode()).hexdigest()
    return LoadedConfig(path=path.resolve(), config=config, stored=stored, hash=digest,
                        conditions=conditions, target_params=target_params,
                        scorer_params=scorer_params, sections=sections, source=source)


def without_pace(data: Any) -> Any:
    """The config without its `PACE_SETTINGS`, which change how a run goes, not what it
    measures; a `run:` left empty goes too, as if it had never been written."""
    run = data.get("run") if isinstance(data, dict) else None
    if not isinstance(run, dict):
        return data
    kept = {key: value for key, value in run.items() if key not in PACE_SETTINGS}
    rest = {key: value for key, value in data.items() if key != "run"}
    return {**rest, "run": kept} if kept else rest


def _import_foreign(data: dict[str, Any], source: SourceMap) -> dict[str, Any]:
    """Accept a k-eval config as is (see `assay.config.keval`); what cannot be imported is
    reported at its line in the file."""
    from assay.config.keval import convert_keval, is_keval_config

    if not is_keval_config(data):
        return data
    try:
        return convert_keval(data)
    except UserError as exc:
        located = [Problem(p.message, source.file,
                           source.line(tuple(p.field.split("."))) if p.field else None, p.field)
                   for p in exc.problems]
        raise UserError(str(exc.args[0]), located) from None


def _as_written(problems: list[Problem], source: SourceMap) -> list[Problem]:
    from assay.config.keval import KevalSourceMap, as_written

    return as_written(problems) if isinstance(source, KevalSourceMap) else problems


_TYPE_KEYS_ELSEWHERE = ("kind", "Type", "TYPE", "typ", "types", "scorer", "target")
"""Keys other tools (or a slip) use for what assay calls `type`."""


def _kind_model(registry: Any, entry: dict[str, Any], where: tuple[Any, ...],
                source: SourceMap, problems: list[Problem]) -> type[BaseModel] | None:
    kind = entry.get("type")
    if not isinstance(kind, str):
        near = next((key for key in _TYPE_KEYS_ELSEWHERE if key in entry), None)
        message = "missing 'type'"
        if "type" in entry:
            message = (f"'type' must be the name of a {registry.sort} type "
                       f"(known: {', '.join(registry.names())})")
        elif near is not None:
            message += f" (this entry has '{near}:'; assay's key is 'type:')"
        key = "type" if "type" in entry else near
        at = where if key is None else (*where, key)
        problems.append(Problem(message, source.file, source.line(at), ".".join(map(str, at))))
        return None
    try:
        params: type[BaseModel] = registry.get(kind).Params
        return params
    except KeyError as exc:
        problems.append(Problem(str(exc.args[0]), source.file, source.line((*where, "type")),
                                ".".join(map(str, (*where, "type")))))
        return None


def _validate(model: type[BaseModel], data: dict[str, Any], where: tuple[Any, ...],
              source: SourceMap, problems: list[Problem]) -> BaseModel | None:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems.extend(problems_from(exc, model, source, where))
        return None


def _validate_sections(config: EvalConfig, source: SourceMap,
                       problems: list[Problem]) -> dict[str, dict[str, Any]]:
    sections: dict[str, dict[str, Any]] = {}
    for section, (module_name, class_name) in SECTION_MODELS.items():
        entries = getattr(config, section)
        if not entries:
            sections[section] = {}
            continue
        model = _section_model(module_name, class_name)
        validated: dict[str, Any] = {}
        for name, entry in entries.items():
            params = _validate(model, entry or {}, (section, name), source, problems)
            if params is not None:
                validated[name] = params
        sections[section] = validated
    return sections


def _section_model(module_name: str, class_name: str) -> type[BaseModel]:
    model: type[BaseModel] = getattr(importlib.import_module(module_name), class_name)
    return model


def _resolve_conditions(config: EvalConfig, source: SourceMap, problems: list[Problem]
                        ) -> tuple[dict[str, BaseModel], list[Condition]]:
    from assay.registry import targets

    model = _kind_model(targets, config.target, ("target",), source, problems)
    params: dict[str, BaseModel] = {}
    conditions: list[Condition] = []
    for name, condition in config.conditions.items():
        overrides = condition.overrides()
        merged = {**config.target, **overrides}
        if model is not None:
            found: list[Problem] = []
            validated = _validate(model, merged, ("target",), source, found)
            for problem in found:  # point at the condition when it set the key
                key = (problem.field or "").split(".")[1:2]
                if key and key[0] in overrides:
                    where = ("conditions", name, key[0])
                    problem.field = ".".join(map(str, where))
                    problem.line = source.line(where)
                if problem not in problems:  # a key under `target:` is checked per condition
                    problems.append(problem)
            if validated is not None:
                params[name] = validated
        conditions.append(Condition(
            name=name, target=merged, mcp_servers=list(condition.mcp_servers),
            context=condition.context, description=condition.description,
            require_tool_use=condition.require_mcp_tool_use,
            require_tool_success=condition.require_mcp_tool_success,
        ))
    return params, conditions


def _validate_scorers(config: EvalConfig, source: SourceMap,
                      problems: list[Problem]) -> list[BaseModel]:
    from assay.registry import scorers

    validated: list[BaseModel] = []
    seen: dict[str, int] = {}
    for index, spec in enumerate(config.scorers):
        where = ("scorers", index)
        if not isinstance(spec, dict):
            problems.append(Problem("each scorer is a mapping with a 'type'", source.file,
                                    source.line(where), f"scorers.{index}"))
            continue
        model = _kind_model(scorers, spec, where, source, problems)
        if model is None:
            continue
        params = _validate(model, spec, where, source, problems)
        if params is None:
            continue
        name = getattr(params, "name", None) or spec["type"]
        if name in seen:
            problems.append(Problem(
                f"two scorers are named '{name}' (items {seen[name]} and {index}); "
                "give one a distinct `name:`", source.file, source.line(where), f"scorers.{index}"))
        seen[name] = index
        validated.append(params)
    return validated


def scorer_type(params: BaseModel) -> str:
    """A scorer's `type:`. Every scorer's params model has one; the BaseModel they are typed
    as declares none."""
    return str(getattr(params, "type"))  # noqa: B009


def scorer_name(params: BaseModel) -> str:
    """A scorer's name as the config gives it: its `name:`, else its `type`."""
    return str(getattr(params, "name", None) or scorer_type(params))


def _check_references(config: EvalConfig, scorer_params: list[BaseModel], source: SourceMap,
                      problems: list[Problem]) -> None:
    for name, condition in config.conditions.items():
        for index, server in enumerate(condition.mcp_servers):
            if server.startswith("pack:"):
                if server[5:] not in config.packs:
                    _unknown(problems, source, ("conditions", name, "mcp_servers", index),
                             f"pack '{server[5:]}'", config.packs)
            elif server not in config.mcp_servers:
                _unknown(problems, source, ("conditions", name, "mcp_servers", index),
                         f"MCP server '{server}'", config.mcp_servers)
        pack = (condition.context or {}).get("pack")
        if pack is not None and not isinstance(pack, str):
            where = ("conditions", name, "context", "pack")
            problems.append(Problem(f"context.pack must be a pack's name, not {pack!r:.40}",
                                    source.file, source.line(where), ".".join(where)))
        elif pack is not None and pack not in config.packs:
            _unknown(problems, source, ("conditions", name, "context", "pack"),
                     f"pack '{pack}'", config.packs)
        elif condition.context is not None:  # `top_k: 0` or a misspelt key, located
            _validate(_section_model("assay.context.pack_config", "ContextConfig"),
                      condition.context, ("conditions", name, "context"), source, problems)
    scorer_names = {scorer_name(p) for p in scorer_params}
    for index, gate in enumerate(config.gates):
        if scorer_params and gate.scorer is not None and gate.scorer not in scorer_names:
            _unknown(problems, source, ("gates", index, "scorer"), f"scorer '{gate.scorer}'",
                     scorer_names)
        if gate.condition is not None and gate.condition not in config.conditions:
            _unknown(problems, source, ("gates", index, "condition"),
                     f"condition '{gate.condition}'", config.conditions)


def _unknown(problems: list[Problem], source: SourceMap, where: tuple[Any, ...], what: str,
             known: Any) -> None:
    import difflib

    names = sorted(known)
    hint = difflib.get_close_matches(what.split("'")[1], names, n=1)
    message = f"unknown {what}"
    message += f"; did you mean '{hint[0]}'?" if hint else ""
    message += f" (declared: {', '.join(names)})" if names else " (none declared)"
    problems.append(Problem(message, source.file, source.line(where), ".".join(map(str, where))))
