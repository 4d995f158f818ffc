"""An MCP server that keeps dying stops the run (exit 3) once its restarts are spent.

Regression: with its restarts spent, the server failed every later trial that needed it
('not restarting again'), each stored as one more error, while the trials of a condition
without it went on passing; the run then exited 0 with a whole condition errored.
"""

from __future__ import annotations

import sys
from pathlib import Path

from assay.testing import FakeLLM
from assay.testing.script import Reply, Rule
from tests.e2e.project import CRASHING_SERVER as SERVER
from tests.e2e.project import run_assay, write_project

CONFIG = f"""name: dead-server
dataset: {{path: cases.jsonl}}
target: {{type: agent, model: openai/gpt-4.1-mini, max_turns: 3}}
mcp_servers:
  lookup:
    command: {sys.executable}
    args: [{SERVER}, --crash-on, "1"]
    max_restarts: 1
conditions:
  plain: {{}}
  tools: {{mcp_servers: [lookup]}}
scorers: [{{type: contains}}]
run: {{concurrency: 1}}
"""
LOOK_UP = Rule(has_tools=True, after_tool_result=False,
               reply=Reply(tool_calls=[{"name": "lookup", "arguments": {"key": "alpha"}}]))


def test_a_server_down_for_good_stops_the_run_with_exit_3_and_keeps_what_finished(
        tmp_path: Path) -> None:
    write_project(tmp_path, CONFIG, {f"c{i}": f"What is 2+2, case {i}?" for i in range(12)})
    with FakeLLM([LOOK_UP], default="4") as llm:
        done = run_assay(tmp_path, llm, timeout=120)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "MCP server 'lookup' is down: it died again after 1 restart (max_restarts: 1)" \
        in done.stderr
    assert "crashing on call 1" in done.stderr  # the server's own last words
    assert "resume with: assay run assay.yaml --resume " in done.stderr
    assert "Traceback" not in done.stderr

    from assay.store import Store

    store = Store(str(tmp_path / "assay.db"))
    try:
        [run] = store.list_runs("dead-server")
        trials = list(store.iter_trials(run.id))
    finally:
        store.close()
    crashed = [t for t in trials if t.condition == "tools"]
    assert len(crashed) == 2  # the crash, and the crash after the one restart
    assert all("MCP server 'lookup' died during 'lookup'" in (t.output.error or "")
               for t in crashed)
