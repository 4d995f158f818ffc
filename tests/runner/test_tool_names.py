"""A dataset's expected tool calls name the tools as the agent sees them: a tool renamed
because two MCP servers offer its name is refused by its servers' name before any trial."""

from __future__ import annotations

import json
import os
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
    """Two packs of one folder, both served to one condition: each offers `search` and `read`."""
    shutil.copytree(DOCS, root / "docs")
    (root / "cases.jsonl").write_text("".join(json.dumps({
        "id": f"q{i}", "input": "How often does the compactor run?", "expected": "15 minutes",
        "expected_tool_calls": [{"name": expected_tool}]}) + "\n" for i in range(4)))
    (root / "assay.yaml").write_text(yaml.safe_dump({
        "name": "twins", "dataset": {"path": "cases.jsonl"},
        "target": {"type": "agent", "model": "openai/fake-model", "max_turns": 3},
        "packs": {"a": {"path": "docs"}, "b": {"path": "docs"}},
        "conditions": {"both": {"mcp_servers": ["pack:a", "pack:b"]}},
        "scorers": [{"type": "tool_calls", "allow_extra_calls": True}]}))


def _search_a(request: FakeRequest) -> Reply:
    return Reply(tool_calls=[{"name": "pack_a__search", "arguments": {"query": "compactor"}}])


def _run(root: Path) -> subprocess.CompletedProcess[str]:
    rules = [Rule(has_tools=True, after_tool_result=False, reply=_search_a)]
    with FakeLLM(rules, default="Every 15 minutes.") as llm:
        return subprocess.run(
            [sys.executable, "-m", "assay", "run", "assay.yaml", "--no-progress"], cwd=root,
            env={**os.environ, "ASSAY_STORE": str(root / "assay.db"), "COLUMNS": "200",
                 "OPENAI_BASE_URL": llm.base_url, "OPENAI_API_KEY": "test-key"},
            capture_output=True, text=True, timeout=120, check=False)


def test_a_case_expecting_a_renamed_tool_by_its_servers_name_is_refused_naming_the_new_names(
        tmp_path: Path) -> None:
    """Regression: with two MCP servers offering `search`, the agent saw `pack_a__search`
    and `pack_b__search`, and every case expecting `search` failed its tool_calls check,
    'expected search, got no such call', with only a warning to say why."""
    _project(tmp_path, "search")
    result = _run(tmp_path)
    assert result.returncode == 2, result.stderr
    assert ("cases.jsonl [expected_tool_calls]: 4 cases ('q0', 'q1', 'q2' and 1 more) expect "
            "a call to 'search', which condition 'both' offers its agent as 'pack_a__search' or "
            "'pack_b__search'; write the name of the one meant") in result.stderr
    store = Store(str(tmp_path / "assay.db"))
    assert store.list_runs("twins") == []  # refused before the run began
    store.close()


def test_a_case_naming_the_tool_as_the_agent_sees_it_is_graded_by_that_name(
        tmp_path: Path) -> None:
    _project(tmp_path, "pack_a__search")
    result = _run(tmp_path)
    assert result.returncode == 0, result.stderr
    assert "tool_calls   both        4   1.000" in result.stdout, result.stdout
