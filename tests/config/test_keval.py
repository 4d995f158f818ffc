"""k-eval configs run as they are: converted to assay's config, checked by assay's loader."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from assay.config.keval import convert_keval, is_keval_config
from assay.errors import UserError

# Real k-eval configs, copied from its repository into `shared/fixtures` (see tests/conftest.py).
FIXTURES: list[Path] = []


@pytest.fixture(autouse=True)
def keval_configs(shared_fixtures: Path) -> None:
    """Every test here reads the real k-eval configs: skipped without them, failed in CI."""
    FIXTURES[:] = [shared_fixtures / "configs" / "k-eval"]


def load(name: str) -> dict:
    return yaml.safe_load((FIXTURES[0] / name).read_text())


def test_valid_config_maps_every_section() -> None:
    data = load("valid_config.yaml")
    assert is_keval_config(data)
    config = convert_keval(data)
    assert config["name"] == "kartograph-graph-context-eval"
    assert config["dataset"] == {"path": "./questions.jsonl",
                                 "fields": {"input": "question", "expected": "answer"}}
    assert config["target"] == {"type": "agent", "model": "anthropic/claude-sonnet-4-5",
                                "requirement_attempts": 3}
    assert config["judge"] == {"model": "vertex_ai/claude-opus-4-5", "temperature": 0.0}
    assert config["scorers"] == [{"type": "rubric"}]
    assert config["run"] == {"epochs": 3, "concurrency": 5}
    assert config["mcp_servers"]["graph"] == {"type": "stdio", "command": "python",
                                              "args": ["-m", "kartograph.mcp"]}
    assert config["mcp_servers"]["search"]["headers"] == {
        "Authorization": "Bearer ${SEARCH_API_KEY}"}  # interpolated later by the loader
    both = config["conditions"]["with_graph_and_search"]
    assert both == {
        "mcp_servers": ["graph", "search"],
        "system": "You have access to a property graph tool and a search tool. "
                  "Use them to answer the question.",
        "require_mcp_tool_use": True, "require_mcp_tool_success": True,
    }
    assert config["conditions"]["baseline"]["mcp_servers"] == []


def test_converted_servers_validate_as_assay_mcp_servers() -> None:
    from assay.context.mcp_config import McpServerConfig

    for name in ("valid_config.yaml", "env_var_config.yaml"):
        for server in convert_keval(load(name))["mcp_servers"].values():
            McpServerConfig.model_validate(server)


def test_judge_temperature_is_kept() -> None:
    assert convert_keval(load("high_temp_judge.yaml"))["judge"]["temperature"] == 0.5


def test_undeclared_server_reference_is_kept_for_the_loader_to_report() -> None:
    config = convert_keval(load("invalid_condition_ref.yaml"))
    assert config["conditions"]["baseline"]["mcp_servers"] == ["graph", "nonexistent_server"]


def test_what_has_no_equivalent_is_an_error_naming_the_field() -> None:
    data = load("valid_config.yaml")
    data["agent"] = {"type": "langchain", "model": "mystery-model"}
    data["extras"] = {}
    with pytest.raises(UserError) as caught:
        convert_keval(data)
    message = str(caught.value)
    assert "unknown k-eval key 'extras'" in message
    assert "[agent.type]: unknown k-eval agent type 'langchain'" in message
    assert "[agent.model]: cannot tell the provider of model 'mystery-model'" in message


def test_an_unknown_k_eval_key_is_reported_at_its_line_in_the_file(tmp_path: Path) -> None:
    """Regression: what a k-eval config cannot import was reported by field alone
    (`[bogus]: unknown k-eval key`), with no file and no line."""
    from assay.config import load_config

    path = tmp_path / "k-eval.yaml"
    path.write_text((FIXTURES[0] / "valid_config.yaml").read_text() + "bogus: 1\n")
    lines = path.read_text().splitlines()
    with pytest.raises(UserError) as raised:
        load_config(path)
    [problem] = raised.value.problems
    assert problem.file == str(path) and problem.field == "bogus"
    assert problem.line == len(lines) and "unknown k-eval key" in problem.message


@pytest.mark.parametrize("key, bad, field", [
    ("num_repetitions: 3", 'num_repetitions: "many"', "execution.num_repetitions"),
    ("max_attempts: 3", "max_attempts: -2", "execution.retry.max_attempts"),
    ("max_attempts: 3", "max_attempts: true", "execution.retry.max_attempts"),
])
def test_a_bad_k_eval_value_is_reported_at_its_own_key_and_line(
        tmp_path: Path, key: str, bad: str, field: str) -> None:
    """Regression: values k-eval names differently were reported under assay's names at
    line 1 (`k-eval.yaml:1 [run.epochs]`), a key and a line the user's file does not have;
    a bad retry count was listed once per condition."""
    from assay.config import load_config

    text = (FIXTURES[0] / "valid_config.yaml").read_text()
    assert key in text
    path = tmp_path / "k-eval.yaml"
    path.write_text(text.replace(key, bad))
    line = next(n for n, row in enumerate(path.read_text().splitlines(), 1) if bad in row)
    with pytest.raises(UserError) as raised:
        load_config(path, env={"SEARCH_API_KEY": "k-123"})
    [problem] = raised.value.problems
    assert (problem.file, problem.line, problem.field) == (str(path), line, field)


def test_values_k_eval_leaves_out_take_its_defaults_and_an_empty_count_takes_assays() -> None:
    data = {"name": "x", "dataset": {"path": "q.jsonl"}, "agent": {"model": "claude-sonnet-4-5"},
            "execution": {"num_repetitions": None, "max_concurrent": 4, "retry": {}}}
    config = convert_keval(data)
    assert config["dataset"] == {"path": "q.jsonl",
                                 "fields": {"input": "question", "expected": "answer"}}
    assert config["run"] == {"concurrency": 4}
    assert config["target"] == {"type": "agent", "model": "anthropic/claude-sonnet-4-5"}
    assert "run" not in convert_keval({**data, "execution": {"num_repetitions": None}})
