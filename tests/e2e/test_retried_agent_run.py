"""An agent trial retried for a tool requirement counts every attempt's tool calls.

Regression: a trial retried because its first attempt's tool calls all failed
(`require_mcp_tool_success`) counted only the last attempt's calls in the cost table
('tool calls 1, tool errors 0') while its tokens and cost covered both attempts, so
the failed calls disappeared. The table, report.md and the trial's page in `assay view`
now count the three calls and two failures the agent made, and the `tool_calls` scorer
still judges the last attempt's trajectory, the one it answered with.
"""

from __future__ import annotations

import sys
from pathlib import Path

import httpx

from assay.store import Store
from assay.testing import FakeLLM
from assay.testing.script import Reply, Rule
from assay.testing.viewer import serving
from tests.e2e.project import CRASHING_SERVER as SERVER
from tests.e2e.project import run_assay, write_project
from tests.view.page_text import page_text

CONFIG = f"""name: retried
dataset: {{path: cases.jsonl}}
target: {{type: agent, model: openai/gpt-4.1-mini, max_turns: 3}}
mcp_servers:
  lookup:
    command: {sys.executable}
    args: [{SERVER}, --crash-on, "0"]
conditions:
  tools: {{mcp_servers: [lookup], require_mcp_tool_success: true}}
scorers: [{{type: contains}}]
"""
FAILS_THEN_LOOKS_UP = Rule(has_tools=True, after_tool_result=False, reply=[
    Reply(tool_calls=[{"name": "lookup", "arguments": {"key": "zeta"}},
                      {"name": "lookup", "arguments": {"key": "eta"}}]),
    Reply(tool_calls=[{"name": "lookup", "arguments": {"key": "alpha"}}])])
"""The first attempt asks for two keys the server does not have (both calls fail), the
retry for one it has."""


def test_the_table_report_and_trial_page_count_the_failed_calls_of_a_retried_attempt(
        tmp_path: Path) -> None:
    write_project(tmp_path, CONFIG, {"c1": "What is 2+2?"})
    with FakeLLM([FAILS_THEN_LOOKS_UP], default="4") as llm:
        done = run_assay(tmp_path, llm, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    [row] = [line.split() for line in done.stdout.splitlines() if line.startswith("tools ")
             and "$" in line]
    assert row[-3:] == ["3", "2", "4"]  # tool calls, tool errors, turns
    assert "4 LLM calls answered" in done.stdout  # two turns per attempt
    markdown = (tmp_path / "out" / "report.md").read_text()
    assert markdown.split("## Conditions")[1].split("\n")[4].endswith("| 3 | 2 | 4 |")

    store = Store(str(tmp_path / "assay.db"))
    try:
        [run] = store.list_runs("retried")
        [trial] = list(store.iter_trials(run.id))
    finally:
        store.close()
    [judged] = trial.output.tool_calls  # the last attempt's: what the scorers judge
    assert (judged.arguments, judged.error) == ({"key": "alpha"}, None)

    with serving(str(tmp_path / "assay.db")) as viewer:
        page = page_text(httpx.get(f"{viewer}runs/{run.id}/trial",
                                   params={"case": "c1", "condition": "tools"}).text)
    assert "3 tool calls (2 failed) over 2 attempts" in page
    assert "the last of 2 attempts, which the scores judge" in page
