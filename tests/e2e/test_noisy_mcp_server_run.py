"""An MCP server that prints a banner on stdout runs with no traceback on the terminal.

Regression: a server that printed 'Starting lookup v1.2' on stdout before speaking MCP
(as many do) put the SDK's 'Failed to parse JSONRPC message from server' and a pydantic
traceback at the top of a run that went well.
"""

from __future__ import annotations

import sys
from pathlib import Path

from assay.testing import FakeLLM
from assay.testing.script import Reply, Rule
from tests.e2e.project import CRASHING_SERVER as SERVER
from tests.e2e.project import run_assay, write_project

CONFIG = f"""name: noisy-server
dataset: {{path: cases.jsonl}}
target: {{type: agent, model: openai/gpt-4.1-mini, max_turns: 3}}
mcp_servers:
  lookup:
    command: sh
    args: [-c, "echo Starting lookup v1.2; exec {sys.executable} {SERVER} --crash-on 0"]
conditions:
  tools: {{mcp_servers: [lookup]}}
scorers: [{{type: contains}}]
"""
LOOK_UP = Rule(has_tools=True, after_tool_result=False,
               reply=Reply(tool_calls=[{"name": "lookup", "arguments": {"key": "alpha"}}]))


def test_a_banner_on_a_servers_stdout_is_no_traceback_on_the_terminal(tmp_path: Path) -> None:
    write_project(tmp_path, CONFIG, {f"c{i}": f"What is 2+2, case {i}?" for i in range(3)})
    with FakeLLM([LOOK_UP], default="4") as llm:
        done = run_assay(tmp_path, llm, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "Failed to parse" not in done.stderr
    assert "3 of 3" not in done.stderr  # no trial errored
    markdown = (tmp_path / "out" / "report.md").read_text()
    assert "| tools | 3 | 0 |" in markdown  # three trials, no target error
