"""Run a k-eval config as it is: translate it into an assay config.

The mapping, for people moving by hand:

| k-eval | assay |
| --- | --- |
| `dataset.question_key` / `answer_key` | `dataset.fields: {input: ..., expected: ...}` |
| `agent: {type: claude_code_sdk, model: M}` | `target: {type: agent, model: anthropic/M}` |
| `judge: {model, temperature}` | `judge:` plus `scorers: [{type: rubric}]` (the same three metrics) |
| `mcp_servers:` | `mcp_servers:` (same keys: stdio command/args/env, http and sse url/headers) |
| `conditions.X.system_prompt` | `conditions.X.system` |
| `conditions.X.require_mcp_tool_use/_success` | the same keys |
| `execution.num_repetitions` / `max_concurrent` | `run.epochs` / `run.concurrency` |
| `execution.retry.max_attempts` | `target.requirement_attempts` (tries per trial when a condition's tool requirement is broken) |

k-eval's retry backoff is not carried over: assay's providers retry
transient API errors with their own bounded backoff.
"""

from __future__ import annotations

from typing import Any

from assay.config.yaml_source import SourceMap
from assay.errors import Problem, UserError
from assay.wording import name_text

KNOWN_KEYS = {"name", "version", "dataset", "agent", "judge", "mcp_servers", "conditions",
              "execution"}
KNOWN_AGENT_TYPES = {"claude_code_sdk"}
_BARE_MODEL_PROVIDERS = (("claude", "anthropic"), ("gpt-", "openai"), ("o1", "openai"),
                         ("o3", "openai"), ("o4", "openai"))


def is_keval_config(data: dict[str, Any]) -> bool:
    """k-eval configs have `agent:` and `execution:` where assay has `target:` and `run:`."""
    return "agent" in data and "target" not in data


def convert_keval(data: dict[str, Any]) -> dict[str, Any]:
    """An assay config dict equivalent to the k-eval config `data`.

    Raises `UserError` for what has no equivalent (an unknown key or agent
    type), naming the field. References to undeclared MCP servers are kept,
    so the config loader reports them with their line.
    """
    problems: list[Problem] = []
    for key in sorted(set(map(str, data)) - KNOWN_KEYS):
        problems.append(Problem(f"unknown k-eval key '{name_text(key)}'", field=name_text(key)))
    dataset = _mapping(data, "dataset", problems)
    agent = _mapping(data, "agent", problems)
    judge = _mapping(data, "judge", problems)
    execution = _mapping(data, "execution", problems)
    _mapping(execution, "retry", problems, "execution.")  # its max_attempts moves by _MOVED
    agent_type = agent.get("type", "claude_code_sdk")
    if not isinstance(agent_type, str) or agent_type not in KNOWN_AGENT_TYPES:
        problems.append(Problem(f"unknown k-eval agent type '{agent_type}'", field="agent.type"))
    model = _model_name(agent.get("model"), "agent.model", problems)
    judge_model = _model_name(judge.get("model"), "judge.model", problems)
    if problems:
        raise UserError("cannot import this k-eval config", problems)

    converted: dict[str, Any] = {
        "name": data.get("name"),
        "dataset": {"path": dataset.get("path")},
        "target": {"type": "agent", "model": model},
        "scorers": [{"type": "rubric"}],
        "mcp_servers": data.get("mcp_servers") or {},
        "conditions": _conditions(data.get("conditions")),
    }
    for path, original in _MOVED:
        value = _value_at(data, original, _DEFAULTS.get(path, _ABSENT))
        if value is not _ABSENT:
            _put(converted, path, value)
    if data.get("version") is not None:
        converted["description"] = f"k-eval config, version {data['version']}"
    if judge:
        converted["judge"] = {key: judge[key] for key in ("model", "temperature") if key in judge}
        if judge_model is not None:
            converted["judge"]["model"] = judge_model
    run = {key: value for key, value in converted.pop("run", {}).items() if value is not None}
    if run:  # a count k-eval leaves empty takes assay's default
        converted["run"] = run
    return converted


def _conditions(conditions: Any) -> Any:
    """The conditions converted; a value of the wrong shape is passed on as it is, for the
    config loader to report with its line."""
    if not isinstance(conditions, dict):
        return conditions if conditions is not None else {}
    return {name: _condition(spec) for name, spec in conditions.items()}


def _condition(spec: Any) -> Any:
    if spec is None:
        spec = {}
    if not isinstance(spec, dict):
        return spec
    servers = spec.get("mcp_servers") or []
    condition: dict[str, Any] = {"mcp_servers": servers}
    prompt = spec.get("system_prompt")
    if prompt is not None:
        condition["system"] = prompt.strip() if isinstance(prompt, str) else prompt
    for key in ("require_mcp_tool_use", "require_mcp_tool_success"):
        if key in spec:
            condition[key] = spec[key]
    for key in sorted(set(spec) - {"mcp_servers", "system_prompt", "require_mcp_tool_use",
                                   "require_mcp_tool_success"}):
        condition[key] = spec[key]  # left for the loader to accept or report
    return condition


def _mapping(data: dict[str, Any], key: str, problems: list[Problem],
             prefix: str = "") -> dict[str, Any]:
    value = data.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        problems.append(Problem(f"'{prefix}{key}' must be a mapping", field=prefix + key))
        return {}
    return value


def _model_name(model: Any, field: str, problems: list[Problem]) -> Any:
    """`provider/model` as assay names models; a bare Claude or GPT name gets its provider."""
    if not isinstance(model, str) or "/" in model:
        return model
    for prefix, provider in _BARE_MODEL_PROVIDERS:
        if model.startswith(prefix):
            return f"{provider}/{model}"
    problems.append(Problem(f"cannot tell the provider of model '{model}'; "
                            "write it as provider/model", field=field))
    return model


_MOVED: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("run", "epochs"), ("execution", "num_repetitions")),
    (("run", "concurrency"), ("execution", "max_concurrent")),
    (("target", "requirement_attempts"), ("execution", "retry", "max_attempts")),
    (("dataset", "fields", "input"), ("dataset", "question_key")),
    (("dataset", "fields", "expected"), ("dataset", "answer_key")),
)
"""The values k-eval keeps under other keys: (assay's path, k-eval's path). `convert_keval`
moves them by this table and `keval_path` finds their lines by it."""
_DEFAULTS: dict[tuple[str, ...], Any] = {("dataset", "fields", "input"): "question",
                                         ("dataset", "fields", "expected"): "answer"}
"""k-eval's own defaults for the moved values it may leave out."""
_RENAMED = (*_MOVED, (("target",), ("agent",)), (("scorers",), ("judge",)))
"""Where a value of the converted config sits in the k-eval file (longest prefix first)."""
_ABSENT: Any = object()


def _value_at(data: dict[str, Any], path: tuple[str, ...], default: Any) -> Any:
    """The value at `path` in the k-eval config, or `default` where a key is missing."""
    value: Any = data
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return default
        value = value[key]
    return value


def _put(config: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    for key in path[:-1]:
        config = config.setdefault(key, {})
    config[path[-1]] = value


def keval_path(path: tuple[Any, ...]) -> tuple[Any, ...]:
    """The k-eval file's path of the converted config's value at `path`."""
    for converted, original in _RENAMED:
        if tuple(path[:len(converted)]) == converted:
            return original + tuple(path[len(converted):])
    if len(path) >= 3 and path[0] == "conditions" and path[2] == "system":
        return (*path[:2], "system_prompt", *path[3:])
    return tuple(path)


class KevalSourceMap(SourceMap):
    """The k-eval file's lines, looked up by the converted config's paths."""

    def line(self, path: tuple[Any, ...]) -> int | None:
        return super().line(keval_path(path))

    def written(self, path: tuple[Any, ...]) -> str | None:
        return super().written(keval_path(path))


def as_written(problems: list[Problem]) -> list[Problem]:
    """Problems of a converted config, each naming the field as the k-eval file spells it,
    each once (a value k-eval gives once may be checked once per condition here)."""
    written = [Problem(p.message, p.file, p.line, ".".join(map(str, keval_path(
        tuple(p.field.split("."))))) if p.field else p.field) for p in problems]
    return list({str(p): p for p in written}.values())
