"""The `mcp_servers:` entries of a config: how to reach one MCP server.

Kept free of the `mcp` SDK so that reading a config does not import it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from assay.config.config_model import ConfigModel


class McpServerConfig(ConfigModel):
    """One MCP server: a local process over stdio, or a remote one over HTTP or SSE."""

    type: Literal["stdio", "http", "sse"] = "stdio"
    """How to talk to the server: `stdio` starts `command` as a child process;
    `http` is the streamable HTTP transport; `sse` is the older HTTP+SSE transport."""

    command: str | None = None
    """stdio: the executable that starts the server, e.g. `uvx` or `python`."""

    args: list[str] = Field(default_factory=list)
    """stdio: arguments passed to `command`."""

    env: dict[str, str] = Field(default_factory=dict)
    """stdio: environment variables for the server process, on top of the environment
    assay runs in (certificates, proxies and the like reach the server)."""

    clean_env: bool = False
    """stdio: start the server with only a safe minimum of assay's environment (PATH, HOME,
    ...) plus `env`, instead of all of it."""

    cwd: str | None = None
    """stdio: working directory of the server process, relative to the config file."""

    url: str | None = None
    """http/sse: the server's endpoint, e.g. `http://localhost:8000/mcp`."""

    headers: dict[str, str] = Field(default_factory=dict)
    """http/sse: HTTP headers sent with every request (use `${VAR}` for secrets)."""

    startup_timeout: float = Field(default=30.0, gt=0)
    """Seconds to wait for the server to start and list its tools before the run stops."""

    tool_timeout: float = Field(default=60.0, gt=0)
    """Seconds one tool call may take; a slower call is reported to the agent as a tool error."""

    max_restarts: int = Field(default=3, ge=0)
    """How many times a server that dies mid-run is restarted; when it dies again after
    them, or cannot be restarted, it is down and the run stops (exit 3)."""

    def working_directory(self, base_dir: Path) -> Path:
        """stdio: where the server starts: `cwd` under the config's folder, else that
        folder. One answer for the check before a run and for the start itself."""
        return (base_dir / self.cwd).resolve() if self.cwd else base_dir

    def search_path(self) -> str | None:
        """stdio: the PATH `command` is looked up on: `env`'s, else assay's (which a clean
        environment keeps too)."""
        return self.env.get("PATH", os.environ.get("PATH"))

    @model_validator(mode="after")
    def _check_transport_fields(self) -> McpServerConfig:
        if self.type == "stdio":
            if not self.command:
                raise ValueError("a stdio server needs `command`")
            if self.url or self.headers:
                raise ValueError("`url` and `headers` apply to http and sse servers, not stdio")
        else:
            if not self.url:
                raise ValueError(f"an {self.type} server needs `url`")
            if self.command or self.args or self.env or self.cwd or self.clean_env:
                raise ValueError(
                    f"`command`, `args`, `env`, `clean_env` and `cwd` apply to stdio servers, "
                    f"not {self.type}"
                )
        return self


PACK_SERVER_PREFIX = "pack:"
"""A condition's `mcp_servers: [pack:NAME]` names the built-in MCP server of pack NAME."""


def pack_server_name(reference: str) -> str | None:
    """The pack name in a `pack:NAME` server reference, or None for a declared server."""
    if reference.startswith(PACK_SERVER_PREFIX):
        return reference[len(PACK_SERVER_PREFIX):]
    return None
