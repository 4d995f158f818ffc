"""The tools one condition offers its agent, gathered from its MCP servers.

Tools keep their own names, so `expected_tool_calls` in a dataset reads as the
server defines them. When two servers of one condition offer the same name,
both are exposed as `server__tool` instead, and the run says so.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Any

from assay.context.mcp_connection import ServerDied
from assay.context.mcp_servers import ManagedServer
from assay.errors import RunFailed
from assay.providers.base import ToolSpec

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(slots=True)
class ToolResult:
    """What one tool call gave back, as the model will read it."""

    text: str
    is_error: bool
    duration_ms: float
    server: str
    tool: str


class ServerCrashed(Exception):
    """A tool's server died during the call: the trial is an error, not the agent's fault."""


class Toolbox:
    """Named tools from a set of started servers, callable by the exposed name."""

    def __init__(self, servers: list[ManagedServer]) -> None:
        self.specs: list[ToolSpec] = []
        self._routes: dict[str, tuple[ManagedServer, str]] = {}
        self.renamed: dict[str, str] = {}
        """Exposed name -> original name, for tools renamed to avoid a collision."""
        owners: dict[str, int] = {}
        for server in servers:
            for tool in server.tools:
                owners[tool.name] = owners.get(tool.name, 0) + 1
        for server in servers:
            for tool in server.tools:
                exposed = tool.name
                if owners[tool.name] > 1:
                    exposed = f"{_UNSAFE.sub('_', server.name)}__{tool.name}"
                    self.renamed[exposed] = tool.name
                self._routes[exposed] = (server, tool.name)
                self.specs.append(ToolSpec(
                    name=exposed,
                    description=tool.description or tool.title or "",
                    input_schema=dict(tool.input_schema or {"type": "object"}),
                ))

    def __bool__(self) -> bool:
        return bool(self._routes)

    def server_of(self, name: str) -> str | None:
        route = self._routes.get(name)
        return route[0].name if route else None

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Run one tool. Tool failures come back as `is_error` results for the model to
        read; a server that died raises `ServerCrashed`, and one that is down for good
        `RunFailed`."""
        started = time.perf_counter()
        route = self._routes.get(name)
        if route is None:
            known = ", ".join(sorted(self._routes)) or "none"
            return ToolResult(f"unknown tool '{name}' (available: {known})", True,
                              _ms(started), "", name)
        server, tool = route
        try:
            result = await server.call(tool, arguments)
        except ServerDied as exc:
            raise ServerCrashed(f"MCP server '{server.name}' died during '{tool}': {exc}") from None
        except TimeoutError as exc:
            return ToolResult(f"tool '{tool}' timed out: {exc}", True, _ms(started),
                              server.name, tool)
        except RunFailed:
            raise  # the server is down for good: the run stops, not just this trial
        except Exception as exc:  # noqa: BLE001 - a protocol-level error answer
            return ToolResult(f"tool '{tool}' failed: {exc}", True, _ms(started),
                              server.name, tool)
        return ToolResult(result_text(result), bool(result.is_error), _ms(started),
                          server.name, tool)


def result_text(result: Any) -> str:
    """A `CallToolResult` as text: its text blocks, placeholders for media, else its
    structured content as JSON."""
    parts: list[str] = []
    for block in result.content or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind in ("image", "audio"):
            parts.append(f"[{kind} content, {getattr(block, 'mime_type', 'unknown type')}]")
        elif kind == "resource":
            resource = block.resource
            parts.append(getattr(resource, "text", None) or f"[resource {resource.uri}]")
        elif kind == "resource_link":
            parts.append(f"[resource link {block.uri}]")
        else:
            parts.append(f"[{kind or 'unknown'} content]")
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    return "\n".join(parts)


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)
