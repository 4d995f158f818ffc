"""Helpers for the context tests: real MCP servers over stdio, no network."""

from __future__ import annotations

import sys
from pathlib import Path

from assay.context.mcp_config import McpServerConfig
from assay.context.mcp_servers import McpServers

SERVERS = Path(__file__).parent / "servers"
EXAMPLE_DOCS = Path(__file__).parents[2] / "examples" / "mcp-context" / "docs"


def python_server(script: str, *args: str, **fields: object) -> McpServerConfig:
    """A stdio server config running one of our test servers with this interpreter."""
    return McpServerConfig(type="stdio", command=sys.executable,
                           args=[str(SERVERS / script), *args], **fields)


def time_server(**fields: object) -> McpServerConfig:
    """The reference `mcp-server-time` from PyPI, pinned to UTC so answers are stable."""
    return McpServerConfig(type="stdio", command=sys.executable,
                           args=["-m", "mcp_server_time", "--local-timezone", "UTC"], **fields)


def make_servers(tmp_path: Path, **configs: McpServerConfig) -> McpServers:
    return McpServers(configs, base_dir=tmp_path)
