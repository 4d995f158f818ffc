"""End to end: `assay run examples/mcp-context` against the fake LLM server.

The fake model knows nothing about Larkspur: it answers a fact only when the
fact is in front of it (in retrieved passages, or in a tool result it asked
for). So the baseline fails, and the two pack conditions pass only if
retrieval really delivers the right passage: this checks the whole chain,
config -> agent -> MCP pack server / context injection -> store.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from assay.testing.fake_llm import FakeLLM
from assay.testing.script import FakeRequest, Reply, Rule

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "mcp-context"
FACTS = [json.loads(line) for line in (EXAMPLE / "questions.jsonl").read_text().splitlines()]


def _known_fact(seen: str, question: str) -> str:
    """The expected fact for `question`, if the text the model was shown contains it."""
    for case in FACTS:
        if case["input"] in question:
            for fact in ([case["expected"]] if isinstance(case["expected"], str)
                         else case["expected"]):
                if fact in seen:
                    return f"{fact}."
    return "I do not know Larkspur."


def _search_first(request: FakeRequest) -> Reply:
    return Reply(tool_calls=[{"name": "search", "arguments": {"query": request.last_user,
                                                              "top_k": 3}}])


def _answer_from_tool(request: FakeRequest) -> Reply:
    return Reply(text=_known_fact(request.messages[-1]["content"], request.last_user))


def _answer_from_prompt(request: FakeRequest) -> Reply:
    return Reply(text=_known_fact(request.last_user, request.last_user))


RULES = [
    Rule(has_tools=True, after_tool_result=False, reply=_search_first),
    Rule(after_tool_result=True, reply=_answer_from_tool),
    Rule(user="<passages>", reply=_answer_from_prompt),
]


def run_assay(tmp_path: Path, llm: FakeLLM, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ASSAY_STORE": str(tmp_path / "assay.db"),
           "OPENAI_BASE_URL": llm.base_url, "OPENAI_API_KEY": "test-key",
           "ASSAY_MODEL": "openai/fake-model"}
    return subprocess.run([sys.executable, "-m", "assay", "run", *args, "--no-progress"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
                          check=False)


def stored_trials(tmp_path: Path) -> list[dict]:
    from assay.store import Store

    store = Store(str(tmp_path / "assay.db"))
    try:
        [run] = store.list_runs("mcp-context")
        return [trial.to_dict() for trial in store.iter_trials(run.id)]  # as results.json
    finally:
        store.close()


def test_example_runs_end_to_end_and_context_makes_the_difference(tmp_path: Path) -> None:
    with FakeLLM(RULES, default="I do not know Larkspur.") as llm:
        result = run_assay(tmp_path, llm, str(EXAMPLE / "assay.yaml"))
    assert result.returncode == 0, result.stderr
    trials = stored_trials(tmp_path)
    by_condition: dict[str, list[dict]] = {}
    for trial in trials:
        by_condition.setdefault(trial["condition"], []).append(trial)
    assert sorted(by_condition) == ["baseline", "pack-mcp", "pack-rag"]
    assert all(t["error"] is None for t in trials)

    def passed(condition: str) -> list[bool]:
        return [t["scores"]["contains"]["passed"] for t in by_condition[condition]]

    assert not any(passed("baseline"))
    assert all(passed("pack-rag"))
    assert all(passed("pack-mcp"))

    for trial in by_condition["pack-rag"]:
        assert trial["output"]["metadata"]["context"]["source_ids"]
        assert "tool_calls" not in trial["output"]
    for trial in by_condition["pack-mcp"]:
        agent = trial["output"]["metadata"]["agent"]
        assert (agent["turns"], agent["tool_calls"], agent["tool_errors"]) == (2, 1, 0)
        [call] = trial["output"]["tool_calls"]
        assert call["name"] == "search" and call["arguments"]["top_k"] == 3

    # The example's own `tool_calls` scorer: pack-mcp searched, the others had nothing to call.
    verdicts = {condition: {(t["scores"]["tool_calls"]["passed"], t["scores"]["tool_calls"]["reason"])
                            for t in group} for condition, group in by_condition.items()}
    assert verdicts == {
        "pack-mcp": {(True, "the tool call matches")},
        "baseline": {(False, "call 1: expected search, got no such call")},
        "pack-rag": {(False, "call 1: expected search, got no such call")},
    }


def test_a_model_that_never_calls_tools_fails_pack_mcp_visibly(tmp_path: Path) -> None:
    """Every pack-mcp trial ends as an error naming the requirement, never as a pass, and
    each of its three attempts is a real call (a retry from the cache could not differ);
    a condition with no result stops the run, exit 3, every trial stored."""
    with FakeLLM(default="I do not know Larkspur.") as llm:
        result = run_assay(tmp_path, llm, str(EXAMPLE / "assay.yaml"))
        received = llm.received
    assert result.returncode == 3, result.stderr
    assert "condition pack-mcp has no result: all " in result.stderr
    assert "require_mcp_tool_use" in result.stderr
    trials = stored_trials(tmp_path)
    mcp = [t for t in trials if t["condition"] == "pack-mcp"]
    assert len(mcp) == len(FACTS)
    for trial in mcp:
        assert trial["scores"] == {}
        assert trial["error"] == ("requirement not met after 3 attempt(s): require_mcp_tool_use: "
                                  "the agent answered without calling an MCP tool "
                                  "(offered: search, read)")
        assert trial["output"]["metadata"]["agent"]["attempts"] == 3
        assert not trial["usage"]["cache_hits"]  # None or 0: no attempt came from the cache
    assert received == 2 * len(FACTS) + 3 * len(FACTS)  # baseline, pack-rag; 3 tries each
    assert all(t["error"] is None for t in trials if t["condition"] != "pack-mcp")


def test_a_server_that_never_starts_stops_the_run_before_any_trial(tmp_path: Path) -> None:
    servers = REPO / "tests" / "context" / "servers"
    (tmp_path / "q.jsonl").write_text('{"id": "1", "input": "hi", "expected": "hi"}\n')
    (tmp_path / "broken.yaml").write_text(f"""
name: broken-server
dataset: {{path: q.jsonl}}
target: {{type: agent, model: "${{ASSAY_MODEL}}"}}
mcp_servers:
  graph: {{type: stdio, command: {json.dumps(sys.executable)},
          args: [{json.dumps(str(servers / "never_starts.py"))}]}}
conditions:
  with_graph: {{mcp_servers: [graph]}}
scorers: [{{type: contains}}]
""")
    with FakeLLM(default="hi") as llm:
        result = run_assay(tmp_path, llm, "broken.yaml")
        assert llm.received == 0  # not one trial reached the model
    assert result.returncode == 3
    assert "MCP server 'graph' failed to start" in result.stderr
    assert "GRAPH_URL is not set" in result.stderr
