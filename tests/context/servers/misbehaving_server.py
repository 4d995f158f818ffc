"""An MCP server on the official SDK's low-level `Server` that misbehaves as `--mode` says.

- `hang-at-initialize`: its startup never finishes, so it never answers `initialize`
- `malformed-result`: `lookup` answers a text block without its text
- `breaks-its-schema`: `lookup` declares an output schema and answers against it
- `hangs-in-call`: `lookup` never answers
- `exits-mid-call`: the process exits while `lookup` runs
- `bad-tool-list`: `tools/list` answers a tool whose input schema is not a schema
- `huge-result`: `lookup` answers 30 MB of text
- `raises`: `lookup` raises an exception inside the handler
- `no-tools`: `tools/list` answers no tool at all
- `well`: `lookup` answers properly (the control)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

MODE = "well"
OUTPUT_SCHEMA = {"type": "object", "properties": {"meaning": {"type": "string"}},
                 "required": ["meaning"]}


@asynccontextmanager
async def startup(_server: Server[Any]) -> AsyncIterator[dict[str, Any]]:
    if MODE == "hang-at-initialize":
        print("connecting to the graph database...", file=sys.stderr, flush=True)
        await asyncio.sleep(3600)
    yield {}


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    if MODE == "bad-tool-list":
        return types.ListToolsResult.model_construct(tools=[types.Tool.model_construct(
            name="lookup", input_schema="a string, not a schema")])
    if MODE == "no-tools":
        return types.ListToolsResult(tools=[])
    schema = OUTPUT_SCHEMA if MODE == "breaks-its-schema" else None
    return types.ListToolsResult(tools=[types.Tool(
        name="lookup", description="Look a key up.", output_schema=schema,
        input_schema={"type": "object", "properties": {"key": {"type": "string"}}})])


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    if MODE == "malformed-result":
        return types.CallToolResult.model_construct(
            content=[types.TextContent.model_construct(type="text")], is_error=False)
    if MODE == "breaks-its-schema":
        return types.CallToolResult(content=[], structured_content={"meaning": 42})
    if MODE == "hangs-in-call":
        await asyncio.sleep(3600)
    if MODE == "exits-mid-call":
        print("out of memory while reading the index", file=sys.stderr, flush=True)
        os._exit(9)
    if MODE == "huge-result":
        return types.CallToolResult(content=[types.TextContent(type="text",
                                                               text="x" * 30_000_000)])
    if MODE == "raises":
        raise RuntimeError("the index is corrupt")
    return types.CallToolResult(content=[types.TextContent(type="text", text="first letter")])


async def main() -> None:
    server: Server[Any] = Server("misbehaving", lifespan=startup, on_list_tools=list_tools,
                                 on_call_tool=call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="well")
    MODE = parser.parse_args().mode
    anyio.run(main)
