"""The agent target: a tool loop over real MCP servers, with its trajectory recorded.

The model side is a scripted provider (the `Provider` interface, no HTTP) so
each test states exactly what the model asks for; the MCP side is real
servers over stdio and in process. The end-to-end run through the fake LLM
server lives in tests/context/test_example_mcp_context.py.
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
from pathlib import Path
from typing import Any

import pytest

from assay.case import Case
from assay.condition import Condition
from assay.errors import UserError
from assay.output import Usage
from assay.providers.base import ChatRequest, ChatResponse, RequestedToolCall
from assay.registry import scorers
from assay.runner.trial import run_trial
from assay.services import Services
from assay.targets.agent import AgentParams, AgentTarget
from assay.testing.config import eval_config

REPO = Path(__file__).resolve().parents[2]
SERVERS = REPO / "tests" / "context" / "servers"
DOCS = REPO / "examples" / "mcp-context" / "docs"

TIME = {"type": "stdio", "command": sys.executable,
        "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]}
CRASHING = {"type": "stdio", "command": sys.executable,
            "args": [str(SERVERS / "crashing_server.py")]}
STEADY = {"type": "stdio", "command": sys.executable,
          "args": [str(SERVERS / "crashing_server.py"), "--crash-on", "0"]}
"""The same lookup table, never crashing: a tool whose answer is the same at every call."""
HANGING = {"type": "stdio", "command": sys.executable,
           "args": [str(SERVERS / "misbehaving_server.py"), "--mode", "hangs-in-call"]}
"""A `lookup` that never answers."""
TOOLLESS = {"type": "stdio", "command": sys.executable,
            "args": [str(SERVERS / "misbehaving_server.py"), "--mode", "no-tools"]}
"""A server that lists no tool."""


class ScriptedModel:
    """A provider that answers from a list of turns and keeps every request."""

    name = "scripted"

    def __init__(self, *turns: ChatResponse | str) -> None:
        self.turns = list(turns)
        self.requests: list[ChatRequest] = []

    async def chat(self, request: ChatRequest, *, use_cache: bool = True) -> ChatResponse:
        self.requests.append(request)
        turn = self.turns[min(len(self.requests), len(self.turns)) - 1]
        return ChatResponse(text=turn, usage=Usage(10, 5, 0.001, 1)) if isinstance(turn, str) \
            else turn

    async def aclose(self) -> None:
        pass


def calls(*pairs: tuple[str, dict[str, Any]], text: str = "") -> ChatResponse:
    return ChatResponse(text=text, tool_calls=[RequestedToolCall(f"call_{i}", name, args)
                                               for i, (name, args) in enumerate(pairs)],
                        usage=Usage(20, 8, 0.002, 1), stop_reason="tool_use")


def make_agent(tmp_path: Path, model: ScriptedModel, *, mcp_servers: list[str] = (),
               context: dict | None = None, require_use: bool = False,
               require_success: bool = False, **params: Any) -> AgentTarget:
    config = eval_config(mcp_servers={"time": TIME, "flaky": CRASHING, "steady": STEADY,
                                      "hanging": HANGING, "toolless": TOOLLESS},
                         packs={"larkspur": {"path": str(DOCS)}})
    services = Services(base_dir=tmp_path, config=config)
    condition = Condition(name="c", mcp_servers=list(mcp_servers), context=context,
                          require_tool_use=require_use, require_tool_success=require_success)
    agent = AgentTarget(AgentParams(type="agent", model="scripted/m", **params), condition,
                        services)
    agent.provider, agent.model_name = model, "m"
    return agent


def run_agent(agent: AgentTarget, *cases: Case):
    async def scenario():
        try:
            await agent.start()
            return [await agent.answer(case) for case in cases]
        finally:
            await agent.close()
            await agent.services.aclose()

    return asyncio.run(scenario())


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run in an empty working directory, so the pack index cache (`.assay/`) lands there."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


CONVERT = {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}


def test_tool_loop_records_the_full_trajectory(in_tmp: Path) -> None:
    model = ScriptedModel(calls(("convert_time", CONVERT), text="Let me convert."),
                          "Noon UTC is 21:00 in Tokyo.")
    agent = make_agent(in_tmp, model, mcp_servers=["time"], system="Use tools.")
    [output] = run_agent(agent, Case("q1", "What is 12:00 UTC in Tokyo?"))

    assert output.error is None
    assert output.text == "Noon UTC is 21:00 in Tokyo."
    [call] = output.tool_calls
    assert (call.name, call.arguments, call.error) == ("convert_time", CONVERT, None)
    assert json.loads(call.result)["target"]["datetime"][11:16] == "21:00"
    assert call.duration_ms is not None and call.duration_ms > 0
    roles = [m["role"] for m in output.transcript]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    assert output.transcript[3]["tool_call_id"] == "call_0"
    meta = output.metadata["agent"]
    assert (meta["turns"], meta["tool_calls"], meta["tool_errors"], meta["attempts"]) == (2, 1, 0, 1)
    assert meta["steps"][0]["tool_calls"][0]["server"] == "time"
    assert output.usage.input_tokens == 30 and output.usage.calls == 2
    assert output.usage.cost_usd == pytest.approx(0.003)
    second = model.requests[1]
    assert sorted(spec.name for spec in second.tools) == ["convert_time", "get_current_time"]
    assert second.messages[-1]["role"] == "tool" and second.system == "Use tools."


def test_tool_calls_scorer_grades_a_real_trajectory(in_tmp: Path) -> None:
    model = ScriptedModel(calls(("get_current_time", {"timezone": "UTC"})),
                          calls(("convert_time", {**CONVERT, "time": "13:00"})), "done")
    [output] = run_agent(make_agent(in_tmp, model, mcp_servers=["time"]), Case("q", "t?"))
    tool_calls = scorers.get("tool_calls")
    grader = tool_calls(tool_calls.Params(type="tool_calls"), Services())
    expected = [{"name": "get_current_time", "arguments": {"timezone": "UTC"}},
                {"name": "convert_time", "arguments": CONVERT}]
    score = grader.check(Case("q", "t?", expected_tool_calls=expected), output)
    assert score.passed is False
    assert "call 2" in score.reason and "'time'" in score.reason and "13:00" in score.reason
    in_order = grader.check(Case("q", "t?", expected_tool_calls=expected[:1] + [
        {"name": "convert_time", "arguments": {"time": "13:00"}}]), output)
    assert in_order.passed is True


def test_tool_error_is_shown_to_the_model_and_counted(in_tmp: Path) -> None:
    model = ScriptedModel(calls(("get_current_time", {"timezone": "Nowhere/Land"})), "Sorry.")
    [output] = run_agent(make_agent(in_tmp, model, mcp_servers=["time"]), Case("q", "time?"))
    assert output.error is None  # the agent coped; the tool failure is part of the trajectory
    [call] = output.tool_calls
    assert call.result is None and "Nowhere/Land" in call.error
    assert output.metadata["agent"]["tool_errors"] == 1
    assert model.requests[1].messages[-1]["is_error"] is True


def test_a_server_crash_fails_that_trial_and_later_trials_get_a_fresh_server(
        in_tmp: Path) -> None:
    lookup = calls(("lookup", {"key": "alpha"}))
    # The crashing call ends its trial at once, so that trial asks the model only once.
    model = ScriptedModel(lookup, "a", lookup, "b", lookup, lookup, "d")
    agent = make_agent(in_tmp, model, mcp_servers=["flaky"])
    outputs = run_agent(agent, *(Case(f"q{i}", "look up alpha") for i in range(4)))
    assert [o.error is None for o in outputs] == [True, True, False, True]
    assert outputs[2].error.startswith("MCP server 'flaky' died during 'lookup'")
    assert "crashing on call 3" in outputs[2].error
    assert outputs[3].tool_calls[0].result == "first letter"
    assert outputs[2].metadata["agent"]["stop_reason"] == "error"


def test_require_tool_use_retries_then_records_the_broken_requirement(in_tmp: Path) -> None:
    model = ScriptedModel("I just know.")
    agent = make_agent(in_tmp, model, mcp_servers=["time"], require_use=True,
                       requirement_attempts=3)
    [output] = run_agent(agent, Case("q", "time?"))
    assert len(model.requests) == 3
    assert output.error == ("requirement not met after 3 attempt(s): "
                            "require_mcp_tool_use: the agent answered without calling an MCP tool "
                            "(offered: get_current_time, convert_time)")
    assert output.metadata["agent"]["attempts"] == 3
    assert output.usage.calls == 3  # every attempt is paid for
    assert [request.cache_tag for request in model.requests] == [None, "attempt-2", "attempt-3"]


def test_requirement_retries_are_real_calls_and_a_rerun_pays_for_none(in_tmp: Path) -> None:
    """Regression: at temperature 0 each retry was answered from the cache, so it repeated
    the broken attempt instead of asking the model again."""
    from assay.providers.config import ProviderConfig
    from assay.providers.pool import ProviderPool
    from assay.testing import FakeLLM, Reply, Rule

    # The tool must answer alike both times: the time server's answer changes every second,
    # and a changed tool result is rightly a new request, not a cache hit.
    rules = [Rule(user="alpha?", reply=["I just know.", "Still sure.",
                                        Reply(tool_calls=[{"name": "lookup",
                                                           "arguments": {"key": "alpha"}}]),
                                        "The first letter."])]

    async def scenario():
        async with FakeLLM(rules) as llm:
            pool = ProviderPool({"openai": ProviderConfig(name="openai", kind="openai",
                                                          base_url=llm.base_url)}, environ={})
            agent = make_agent(in_tmp, ScriptedModel(), mcp_servers=["steady"], require_use=True,
                               requirement_attempts=3, temperature=0)
            agent.provider, agent.model_name = pool.resolve("openai/gpt-4.1")
            try:
                await agent.start()
                first = await agent.answer(Case("q", "alpha?"))
                sent_first = llm.received
                again = await agent.answer(Case("q", "alpha?"))  # as a resumed run would
            finally:
                await agent.close()
                await agent.services.aclose()
                await pool.aclose()
            return first, again, sent_first, llm.received

    first, again, sent_first, sent_total = asyncio.run(scenario())
    assert first.error is None and first.text == "The first letter."
    assert first.metadata["agent"]["attempts"] == 3
    assert sent_first == 4 and first.usage.cache_hits == 0  # 1 + 1 + 2 turns, all asked
    assert sent_total == sent_first  # the rerun came wholly from the cache
    assert again.text == first.text and again.usage.cache_hits == 4


def test_a_retry_that_meets_the_requirement_succeeds(in_tmp: Path) -> None:
    model = ScriptedModel("guess", calls(("get_current_time", {"timezone": "UTC"})), "checked")
    agent = make_agent(in_tmp, model, mcp_servers=["time"], require_use=True,
                       require_success=True)
    [output] = run_agent(agent, Case("q", "time?"))
    assert output.error is None and output.text == "checked"
    meta = output.metadata["agent"]
    assert meta["attempts"] == 2
    assert meta["retried_for"] == [("require_mcp_tool_use: the agent answered without calling "
                                   "an MCP tool (offered: get_current_time, convert_time)")]


def test_a_retried_trial_counts_every_attempts_tool_calls_and_keeps_the_last_trajectory(
        in_tmp: Path) -> None:
    """Regression: a trial retried because every call failed counted only its last attempt's
    tool calls (1, 0 failed) while its cost and tokens covered both attempts, so the two
    failed calls of the first attempt were missing from the cost table."""
    bad = calls(("get_current_time", {"timezone": "Bad/Zone"}),
                ("get_current_time", {"timezone": "Nowhere/Else"}))
    good = calls(("get_current_time", {"timezone": "UTC"}))
    model = ScriptedModel(bad, "gave up", good, "checked")
    agent = make_agent(in_tmp, model, mcp_servers=["time"], require_success=True)
    [output] = run_agent(agent, Case("q", "time?"))
    assert output.error is None and output.text == "checked"
    meta = output.metadata["agent"]
    assert (meta["attempts"], meta["turns"], meta["tool_calls"], meta["tool_errors"]) == (
        2, 4, 3, 2)
    assert output.usage.calls == 4  # as the counts: every attempt
    [judged] = output.tool_calls  # the trajectory the scorers judge: the last attempt's
    assert (judged.arguments, judged.error) == ({"timezone": "UTC"}, None)
    assert len(meta["steps"]) == 2


def test_an_unreachable_model_raises_for_the_runner_instead_of_ending_the_loop(
        in_tmp: Path) -> None:
    """A refused connection is no agent trajectory: it reaches the runner as the same
    ProviderError (kind "connection") the model target raises, not as a requirement retry."""
    from assay.providers.config import ProviderConfig
    from assay.providers.failures import ProviderError
    from assay.providers.pool import ProviderPool

    async def scenario(port: int) -> ProviderError:
        config = ProviderConfig(name="openai", kind="openai", backoff=0.001, max_retries=1,
                                base_url=f"http://127.0.0.1:{port}/v1")
        pool = ProviderPool({"openai": config}, environ={})
        agent = make_agent(in_tmp, ScriptedModel(), mcp_servers=["time"], require_use=True)
        agent.provider, agent.model_name = pool.resolve("openai/gpt-4.1")
        try:
            await agent.start()
            with pytest.raises(ProviderError) as caught:
                await agent.answer(Case("q", "time?"))
            return caught.value
        finally:
            await agent.close()
            await agent.services.aclose()
            await pool.aclose()

    with socket.socket() as sock:  # bound, not listening: connections are refused
        sock.bind(("127.0.0.1", 0))
        error = asyncio.run(scenario(sock.getsockname()[1]))
    assert error.kind == "connection" and "connection refused" in str(error)


def test_require_tool_success_fails_when_every_call_failed(in_tmp: Path) -> None:
    bad = calls(("get_current_time", {"timezone": "Bad/Zone"}))
    model = ScriptedModel(bad, "gave up", bad, "gave up")
    agent = make_agent(in_tmp, model, mcp_servers=["time"], require_success=True,
                       requirement_attempts=2)
    [output] = run_agent(agent, Case("q", "time?"))
    assert output.error == ("requirement not met after 2 attempt(s): "
                            "require_mcp_tool_success: all 1 MCP tool calls failed")


def test_long_tool_results_are_capped_and_the_cut_recorded(in_tmp: Path) -> None:
    model = ScriptedModel(calls(("read", {"source_id": "configuration.md"})), "ok")
    agent = make_agent(in_tmp, model, mcp_servers=["pack:larkspur"], tool_result_cap=100)
    [output] = run_agent(agent, Case("q", "config?"))
    [call] = output.tool_calls
    assert call.result.startswith("[configuration.md] Configuring Larkspur")
    assert "more characters cut at tool_result_cap=100" in call.result
    step = output.metadata["agent"]["steps"][0]["tool_calls"][0]
    assert step["cut_chars"] == step["result_chars"] - 100 > 0
    assert model.requests[1].messages[-1]["content"] == call.result  # what the model read


def test_context_pack_puts_passages_in_the_prompt_and_records_source_ids(in_tmp: Path) -> None:
    model = ScriptedModel("15 minutes [configuration.md#compaction-settings]")
    agent = make_agent(in_tmp, model, context={"pack": "larkspur", "top_k": 2})
    [output] = run_agent(agent, Case("q", "What is the default compaction interval?"))
    context = output.metadata["context"]
    assert context["pack"] == "larkspur" and context["top_k"] == 2
    assert context["source_ids"][0] == "configuration.md#compaction-settings"
    prompt = model.requests[0].messages[-1]["content"]
    assert "[configuration.md#compaction-settings]" in prompt
    assert prompt.endswith("Question:\nWhat is the default compaction interval?")
    assert model.requests[0].tools == []
    assert (in_tmp / ".assay" / "packs").is_dir()


def test_max_turns_ends_a_loop_that_never_answers(in_tmp: Path) -> None:
    model = ScriptedModel(calls(("get_current_time", {"timezone": "UTC"}), text="again"))
    [output] = run_agent(make_agent(in_tmp, model, mcp_servers=["time"], max_turns=3),
                         Case("q", "time?"))
    meta = output.metadata["agent"]
    assert (meta["turns"], meta["tool_calls"], meta["stop_reason"]) == (3, 3, "max_turns")
    assert output.error is None and output.text == "again"


def test_a_tool_the_condition_does_not_offer_is_an_error_result(in_tmp: Path) -> None:
    model = ScriptedModel(calls(("search", {"query": "x"})), "fine")
    [output] = run_agent(make_agent(in_tmp, model), Case("q", "?"))
    assert "no tools are available" in output.tool_calls[0].error


def test_a_trial_cut_by_its_deadline_keeps_the_calls_it_made_and_names_the_tool_it_waited_on(
        in_tmp: Path) -> None:
    """Regression: an agent trial whose tool hung past `run.timeout` was stored as 'timeout:
    no answer within 5s' and nothing else: its model turn and tool call were gone, so the
    run's tool-call count left out calls the servers had received, and nothing named the
    tool that hung."""
    model = ScriptedModel(calls(("lookup", {"key": "alpha"}), text="Looking it up."), "done")
    agent = make_agent(in_tmp, model, mcp_servers=["hanging"])

    async def scenario():
        try:
            await agent.start()
            return await run_trial(agent, Case("q", "look up alpha"), agent.condition, 0, [],
                                   timeout=1.5)
        finally:
            await agent.close()
            await agent.services.aclose()

    output = asyncio.run(scenario()).output
    assert output.error == ("timeout: no answer within 1.5s; the agent was waiting on tool "
                            "'lookup' of MCP server 'hanging', called on turn 1")
    [call] = output.tool_calls
    assert (call.name, call.arguments, call.result) == ("lookup", {"key": "alpha"}, None)
    assert "deadline passed" in call.error
    meta = output.metadata["agent"]
    assert (meta["turns"], meta["tool_calls"], meta["tool_errors"]) == (1, 1, 1)
    assert meta["stop_reason"] == "timeout"
    assert meta["steps"][0]["tool_calls"][0]["server"] == "hanging"
    assert output.text == "Looking it up."
    assert [m["role"] for m in output.transcript] == ["user", "assistant"]


def test_a_condition_whose_servers_offer_no_tool_is_refused_before_any_trial(
        in_tmp: Path) -> None:
    """Regression: a condition whose only MCP server listed no tool asked the model exactly
    as its baseline did (answered from the cache), and was reported 'about even ... within
    noise', for servers the agent never had."""
    model = ScriptedModel("4")
    agent = make_agent(in_tmp, model, mcp_servers=["toolless"])
    with pytest.raises(UserError, match=r"condition 'c': its MCP servers \(toolless\) offer "
                                        r"no tool, so its agent would be asked exactly as with "
                                        r"none"):
        run_agent(agent, Case("q", "2+2?"))
    assert model.requests == []
