"""The pack MCP server: `search` and `read`, in process and through `assay pack serve`."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import pytest

from assay.context.mcp_config import McpServerConfig
from assay.context.mcp_servers import McpServers
from assay.context.pack_index import PackIndex
from assay.context.toolbox import Toolbox

from .helpers import EXAMPLE_DOCS


def test_pack_server_over_stdio_from_the_command_line(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(EXAMPLE_DOCS, docs)
    serve = McpServerConfig(command=sys.executable, args=[
        "-c", "from assay.cli import main; main()", "pack", "serve", str(docs),
        "--name", "larkspur", "--cache", str(tmp_path / "cache")])

    async def scenario():
        servers = McpServers({"larkspur": serve}, base_dir=tmp_path)
        try:
            toolbox = Toolbox(await servers.start(["larkspur"]))
            found = await toolbox.call("search", {"query": "default replication port", "top_k": 2})
            passage = await toolbox.call("read", {"source_id": "cli.md#exit-codes"})
            missing = await toolbox.call("read", {"source_id": "cli.md#nothing"})
            return toolbox, found, passage, missing
        finally:
            await servers.aclose()

    toolbox, found, passage, missing = asyncio.run(scenario())
    assert sorted(spec.name for spec in toolbox.specs) == ["read", "search"]
    assert found.text.startswith("[replication.md#replication]") and "7411" in found.text
    assert "exits with 0 on success, 3 when a key is not found" in passage.text
    assert missing.is_error and "use a source id returned by `search`" in missing.text


def test_pack_reference_starts_the_pack_server_in_process(tmp_path: Path) -> None:
    index = PackIndex.open(EXAMPLE_DOCS, name="larkspur", cache_root=tmp_path / "cache")

    async def scenario():
        servers = McpServers({}, base_dir=tmp_path, packs={"larkspur": index}.__getitem__)
        try:
            toolbox = Toolbox(await servers.start(["pack:larkspur"]))
            return await toolbox.call("search", {"query": "E-TOOBIG"})
        finally:
            await servers.aclose()

    result = asyncio.run(scenario())
    assert not result.is_error
    assert result.server == "pack:larkspur"
    assert result.text.startswith("[troubleshooting.html#e-toobig]")


def test_the_search_tool_tells_the_model_the_top_k_it_takes(tmp_path: Path) -> None:
    """Regression: `top_k` was offered as any integer, and a model asking for 100 passages
    learnt the bound only from the error, a turn spent."""
    index = PackIndex.open(EXAMPLE_DOCS, name="larkspur", cache_root=tmp_path / "cache")

    async def scenario():
        servers = McpServers({}, base_dir=tmp_path, packs={"larkspur": index}.__getitem__)
        try:
            toolbox = Toolbox(await servers.start(["pack:larkspur"]))
            return toolbox, await toolbox.call("search", {"query": "port", "top_k": 100})
        finally:
            await servers.aclose()

    toolbox, too_many = asyncio.run(scenario())
    [search] = [spec for spec in toolbox.specs if spec.name == "search"]
    top_k = search.input_schema["properties"]["top_k"]
    assert (top_k["minimum"], top_k["maximum"], top_k["default"]) == (1, 50, 5)
    assert too_many.is_error and "50" in too_many.text


@pytest.mark.parametrize("transport", ["http", "sse"])
def test_pack_server_over_the_network_transports(tmp_path: Path, transport: str) -> None:
    import socket
    import subprocess
    import time

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-c", "from assay.cli import main; main()", "pack", "serve",
         str(EXAMPLE_DOCS), "--name", "larkspur", "--cache", str(tmp_path / "cache"),
         "--transport", transport, "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert process.poll() is None, process.stderr.read().decode()
                assert time.monotonic() < deadline, "the http server did not come up"
                time.sleep(0.1)
        path = "mcp" if transport == "http" else "sse"
        http = McpServerConfig(type=transport, url=f"http://127.0.0.1:{port}/{path}",
                               headers={"X-Trace": "test"})

        async def scenario():
            servers = McpServers({"docs": http}, base_dir=tmp_path)
            try:
                toolbox = Toolbox(await servers.start(["docs"]))
                return await toolbox.call("search", {"query": "LARKSPUR_HOME", "top_k": 1})
            finally:
                await servers.aclose()

        result = asyncio.run(scenario())
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert not result.is_error
    assert result.text.startswith("[configuration.md#configuring-larkspur]")
