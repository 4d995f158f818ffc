"""The names of the tools an agent is offered, held against the names cases expect. A
tool the agent sees renamed (two MCP servers offer its name) is recorded with its
server's name beside the name called, and a case may expect it by either, so one dataset
grades a condition of one server and a condition of two alike."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from assay.store import Store
from assay.testing.fake_llm import FakeLLM
from assay.testing.script import FakeRequest, Reply, Rule

DOCS = Path(__file__).resolve().parents[2] / "examples" / "mcp-context" / "docs"


def _project(root: Path, expected_tool: str) -> None:
    """Two packs of one folder, each offering `search` and `read`: condition `one` serves
    the first to its agent, `both` serves the two."""
    shutil.copytree(DOCS, root / "docs")
    (root / "cases.jsonl").write_text("".join(json.dumps({
        "id": f"q{i}", "input": "How often does the compactor run?", "expected": "15 minutes",
        "expected_tool_calls": [{"name": expected_tool}]}) + "\n" for i in range(4)))
    (root / "assay.yaml").write_text(yaml.safe_dump({
        "name": "twins", "dataset": {"path": "cases.jsonl"},
        "target": {"type": "agent", "model": "openai/fake-model", "max_turns": 3},
        "packs": {"a": {"path": "docs"}, "b": {"path": "docs"}},
        "conditions": {"one": {"mcp_servers": ["pack:a"]},
                       "both": {"mcp_servers": ["pack:a", "pack:b"]}},
        "scorers": [{"type": "tool_calls", "allow_extra_calls": True}]}))


def _search(request: FakeRequest) -> Reply:
    """The model searches with the first search tool it is shown."""
    name = next(tool for tool in request.tools if tool.endswith("search"))
    return Reply(tool_calls=[{"name": name, "arguments": {"query": "compactor"}}])


def _run(root: Path) -> subprocess.CompletedProcess[str]:
    rules = [Rule(has_tools=True, after_tool_result=False, reply=_search)]
    with FakeLLM(rules, default="Every 15 minutes.") as llm:
        return subprocess.run(
            [sys.executable, "-m", "assay", "run", "assay.yaml", "--no-progress"], cwd=root,
            env={**os.environ, "ASSAY_STORE": str(root / "assay.db"), "COLUMNS": "200",
                 "OPENAI_BASE_URL": llm.base_url, "OPENAI_API_KEY": "test-key"},
            capture_output=True, text=True, timeout=120, check=False)


def _pass_rate(stdout: str, condition: str) -> str:
    """The tool_calls score of `condition` over its 4 cases, from the run's table."""
    found = re.search(rf"^(?:tool_calls)?\s+{condition}\s+4\s+(\S+)", stdout, re.MULTILINE)
    assert found, stdout
    return found.group(1)


def test_a_case_expecting_a_tool_by_its_servers_name_is_met_by_the_renamed_call(
        tmp_path: Path) -> None:
    """Regression: with two MCP servers offering `search`, the agent saw `pack_a__search`
    and `pack_b__search`, and every case expecting `search` failed its tool_calls check,
    'expected search, got no such call'; then such a case was refused, though the name
    the refusal asked for did not exist in the condition of one server."""
    _project(tmp_path, "search")
    result = _run(tmp_path)
    assert result.returncode == 0, result.stderr
    assert _pass_rate(result.stdout, "one") == _pass_rate(result.stdout, "both") == "1.000"
    store = Store(str(tmp_path / "assay.db"))
    [run] = store.list_runs("twins")
    calls = {trial.condition: trial.output.tool_calls[0]
             for trial in store.iter_trials(run.id) if trial.case_id == "q0"}
    store.close()
    assert (calls["one"].name, calls["one"].tool) == ("search", None)
    assert (calls["both"].name, calls["both"].tool) == ("pack_a__search", "search")


def test_a_case_naming_the_renamed_tool_is_met_by_that_call_alone(tmp_path: Path) -> None:
    _project(tmp_path, "pack_a__search")
    result = _run(tmp_path)
    assert result.returncode == 0, result.stderr
    assert _pass_rate(result.stdout, "both") == "1.000"
    assert _pass_rate(result.stdout, "one") == "0.000"


def test_a_tool_no_condition_offers_is_warned_of_before_the_first_trial(tmp_path: Path) -> None:
    """A case expecting `serch` (a typo) failed tool_calls in every trial, a 0% that read
    as the agent's failing, with nothing to say no server offers such a tool."""
    _project(tmp_path, "serch")
    result = _run(tmp_path)
    assert result.returncode == 0, result.stderr
    assert ("4 cases ('q0', 'q1', 'q2' and 1 more): expected_tool_calls name 'serch', which no "
            "condition's MCP servers offer (they offer pack_a__read, pack_a__search, "
            "pack_b__read and 3 more), so each such trial fails tool_calls"
            ) in " ".join((result.stdout + result.stderr).split())
    assert _pass_rate(result.stdout, "one") == "0.000"


def test_a_tool_some_condition_offers_is_not_warned_of(tmp_path: Path) -> None:
    _project(tmp_path, "search")
    result = _run(tmp_path)
    assert "which no condition's MCP servers offer" not in result.stdout + result.stderr
