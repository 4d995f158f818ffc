"""The pack MCP server: `search` and `read` over one knowledge pack.

Built on the official SDK's `MCPServer`, so any MCP client can use it:
assay's own agent (in process, for `mcp_servers: [pack:NAME]`), or another
client through `assay pack serve DIR` over stdio or streamable HTTP.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

if TYPE_CHECKING:
    import socket

    from mcp.server.mcpserver import MCPServer

    from assay.context.pack_index import PackIndex, Passage


def format_passages(passages: list[Passage]) -> str:
    """Passages as the model reads them: each headed by the source id to cite."""
    if not passages:
        return "No passages matched."
    blocks = [f"[{p.source_id}] {p.title} (score {p.score:g})\n{p.text}" for p in passages]
    return "\n\n---\n\n".join(blocks)


def build_pack_server(index: PackIndex) -> MCPServer:
    """An MCP server exposing `search` and `read` over `index`."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    server = MCPServer(
        f"assay-pack-{index.name}",
        instructions=(
            f"Documents of the '{index.name}' knowledge pack. Call `search` with a few "
            "keywords, then `read` a source id for the full passage or document. "
            "Cite the source ids you used."
        ),
        log_level="WARNING",
    )
    # MCPServer configures the root logger; inside an assay run that is not its call to make.
    root.handlers[:] = handlers
    root.setLevel(level)

    @server.tool(structured_output=False)
    def search(query: str, top_k: Annotated[int, Field(ge=1, le=50)] = 5) -> str:
        """Search the pack's documents by keywords. Returns the best matching passages
        (top_k, 1 to 50), each headed by its source id (`path#section`)."""
        return format_passages(index.search(query, top_k))

    @server.tool(structured_output=False)
    def read(source_id: str) -> str:
        """Read one passage by its source id (`path#section`), or a whole document by its path."""
        try:
            passage = index.read(source_id)
        except KeyError as exc:
            raise ToolError(f"{exc.args[0]}; use a source id returned by `search`") from None
        return f"[{passage.source_id}] {passage.title}\n{passage.text}"

    return server


def serve_stdio(index: PackIndex) -> None:
    """Run the pack server over stdio until its client closes it (blocking)."""
    build_pack_server(index).run("stdio")


def serve(index: PackIndex, sock: socket.socket, *, transport: Literal["http", "sse"],
          host: str) -> None:
    """Run the pack server on a bound socket until interrupted (blocking): streamable HTTP
    at `/mcp`, or the older sse transport at `/sse`. `host` is the address it answers as
    (the SDK refuses requests addressed to another, against DNS rebinding)."""
    import uvicorn

    server = build_pack_server(index)
    app = server.streamable_http_app(host=host) if transport == "http" else \
        server.sse_app(host=host)
    config = uvicorn.Config(app, log_level="warning", access_log=False)
    uvicorn.Server(config).run(sockets=[sock])
