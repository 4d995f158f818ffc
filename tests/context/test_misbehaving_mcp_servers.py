"""MCP servers that misbehave, written on the official SDK: each misbehaviour ends as a clear
start failure, a tool error the model reads, or a crashed trial, within its time limit;
never a hang or an exception out of the toolbox.

The servers are `servers/misbehaving_server.py` in its modes, all started at once.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from assay.context.toolbox import ServerCrashed, Toolbox, ToolResult
from assay.errors import RunFailed

from .helpers import make_servers, python_server

CALLED = ["well", "malformed-result", "breaks-its-schema", "hangs-in-call", "exits-mid-call",
          "raises"]
NEVER_START = ["hang-at-initialize", "bad-tool-list"]


def _config(mode: str, startup_timeout: float = 60):
    return python_server("misbehaving_server.py", "--mode", mode, tool_timeout=1.5,
                         startup_timeout=startup_timeout, max_restarts=0)


async def _call_each(tmp_path: Path) -> dict[str, ToolResult | str]:
    servers = make_servers(tmp_path, **{mode: _config(mode) for mode in CALLED})

    async def call(mode: str) -> ToolResult | str:
        [server] = await servers.start([mode])
        try:
            return await Toolbox([server]).call("lookup", {"key": "alpha"})
        except ServerCrashed as exc:
            return f"crashed: {exc}"

    try:
        results = await asyncio.gather(*(call(mode) for mode in CALLED))
    finally:
        await servers.aclose()
    return dict(zip(CALLED, results, strict=True))


@pytest.mark.slow
def test_each_misbehaving_tool_call_is_a_tool_error_or_a_crashed_trial(tmp_path: Path) -> None:
    results = asyncio.run(asyncio.wait_for(_call_each(tmp_path), 120))
    well = results["well"]
    assert isinstance(well, ToolResult) and not well.is_error and well.text == "first letter"
    for mode, says in [("malformed-result", "failed"), ("breaks-its-schema",
                                                        "Invalid structured content"),
                       ("hangs-in-call", "timed out: no answer within 1.5s"),
                       ("raises", "failed")]:
        result = results[mode]
        assert isinstance(result, ToolResult) and result.is_error, (mode, result)
        assert says in result.text, (mode, result.text)
    crashed = results["exits-mid-call"]
    assert isinstance(crashed, str) and crashed.startswith(
        "crashed: MCP server 'exits-mid-call' died during 'lookup'")
    assert "out of memory while reading the index" in crashed  # its stderr says why


@pytest.mark.slow
def test_a_server_that_never_finishes_starting_stops_the_run_with_its_stderr(
        tmp_path: Path) -> None:
    async def start(mode: str) -> BaseException | None:
        servers = make_servers(tmp_path, **{mode: _config(mode, startup_timeout=8)})
        try:
            await servers.start([mode])
        except RunFailed as exc:
            return exc
        finally:
            await servers.aclose()
        return None

    async def both() -> list[BaseException | None]:
        return list(await asyncio.gather(*(start(mode) for mode in NEVER_START)))

    hung, bad_list = asyncio.run(asyncio.wait_for(both(), 60))
    assert isinstance(hung, RunFailed) and "did not start within 8s" in str(hung)
    assert "connecting to the graph database" in str(hung)  # its stderr, up to the hang
    assert isinstance(bad_list, RunFailed) and "failed to start" in str(bad_list)
