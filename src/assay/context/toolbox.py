"""The tools one condition offers its agent, gathered from its MCP servers.

Tools keep their own names, so `expected_tool_calls` in a dataset reads as the
server defines them. When several servers of one condition offer the same name,
each is exposed as `server__tool` instead; a name model APIs refuse (MCP allows
dots and 128 characters, OpenAI and Anthropic take at most 64 letters, digits,
`_` and `-`) is exposed with `_` for the rest, cut to 64. Either way the run
says so, once per tool name (`notes`). A call is recorded by the name the agent
called, with its server's name for a renamed tool (`ToolCall.tool`), so a case may
expect it by either: `search` is met by `docs__search` or `wiki__search`.
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
from assay.wire_tool_call import INVALID_JSON, NOT_AN_OBJECT
from assay.wording import plural

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
MAX_TOOL_NAME = 64
"""The longest tool name OpenAI and Gemini take (Anthropic's limit is no shorter)."""


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
        """Exposed name -> original name, for tools renamed to avoid a collision or a name
        model APIs refuse."""
        offered = [(server, tool) for server in servers for tool in server.tools]
        owners: dict[str, list[str]] = {}
        for server, tool in offered:
            owners.setdefault(tool.name, []).append(server.name)
        kept = {tool.name for _, tool in offered
                if len(owners[tool.name]) == 1 and _provider_name(tool.name) == tool.name}
        taken = set(kept)  # a tool that keeps its name keeps it, whatever comes before it
        for server, tool in offered:
            exposed = tool.name
            if tool.name not in kept:
                wanted = tool.name if len(owners[tool.name]) == 1 \
                    else f"{server.name}__{tool.name}"
                exposed = _unused(_provider_name(wanted), taken)
                taken.add(exposed)
                self.renamed[exposed] = tool.name
            self._routes[exposed] = (server, tool.name)
            self.specs.append(ToolSpec(
                name=exposed,
                description=tool.description or tool.title or "",
                input_schema=dict(tool.input_schema or {"type": "object"}),
            ))
        self.notes = _rename_notes(owners, self.renamed)
        """One sentence per renamed tool name, saying which servers offer it and what the
        agent sees instead."""

    def __bool__(self) -> bool:
        return bool(self._routes)

    def offered_names(self) -> set[str]:
        """Every name a case may expect a tool of this toolbox by: the names the agent sees,
        and their servers' names for the renamed ones."""
        return set(self._routes) | set(self.renamed.values())

    def server_of(self, name: str) -> str | None:
        route = self._routes.get(name)
        return route[0].name if route else None

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Run one tool. Tool failures come back as `is_error` results for the model to
        read, as do arguments the model wrote that are no JSON object (the server is not
        asked: it would be sent our placeholder for them); a server that died raises
        `ServerCrashed`, and one that is down for good `RunFailed`."""
        started = time.perf_counter()
        route = self._routes.get(name)
        if route is None:
            known = ", ".join(sorted(self._routes)) or "none"
            return ToolResult(f"unknown tool '{name}' (available: {known})", True,
                              _ms(started), "", name)
        server, tool = route
        unreadable = _unreadable_arguments(arguments)
        if unreadable is not None:
            return ToolResult(f"the arguments of '{name}' are not a JSON object ({unreadable}); "
                              "call it again with arguments as one JSON object", True,
                              _ms(started), server.name, tool)
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


def _unreadable_arguments(arguments: dict[str, Any]) -> str | None:
    """What the model wrote for a call's arguments when it was no JSON object (the provider
    kept it under a key of ours, `wire_tool_call`), cut short; None for real arguments."""
    if len(arguments) != 1:
        return None
    key, value = next(iter(arguments.items()))
    if key == INVALID_JSON:
        text = str(value)
        return f"not JSON: {text[:200]}" + ("..." if len(text) > 200 else "")
    if key == NOT_AN_OBJECT:
        return f"JSON {type(value).__name__}: {json.dumps(value)[:200]}"
    return None


def _provider_name(name: str) -> str:
    """`name` as every model API takes it: `_` for any other character, at most 64."""
    return _UNSAFE.sub("_", name)[:MAX_TOOL_NAME] or "tool"


def _unused(name: str, taken: set[str]) -> str:
    """`name`, or `name_2`, `name_3`... (cut to fit 64) when another tool has it already."""
    number = 1
    candidate = name
    while candidate in taken:
        number += 1
        suffix = f"_{number}"
        candidate = name[:MAX_TOOL_NAME - len(suffix)] + suffix
    return candidate


def _rename_notes(owners: dict[str, list[str]], renamed: dict[str, str]) -> list[str]:
    """One warning per renamed tool name: who offers it, what the agent sees, and why."""
    exposed_as: dict[str, list[str]] = {}
    for exposed, original in renamed.items():
        exposed_as.setdefault(original, []).append(exposed)
    notes: list[str] = []
    for original, names in exposed_as.items():
        servers = owners[original]
        seen = ", ".join(f"'{name}'" for name in names)
        if len(servers) > 1:
            notes.append(f"{plural(len(servers), 'MCP server')} ({', '.join(servers)}) offer a "
                         f"tool named '{original}'; the agent sees them as {seen}")
        elif _provider_name(original) != original:
            notes.append(f"MCP server '{servers[0]}' offers a tool named '{original}', which "
                         f"model APIs refuse (at most {MAX_TOOL_NAME} letters, digits, '_' "
                         f"and '-'); the agent sees it as {seen}")
        else:
            notes.append(f"MCP server '{servers[0]}' offers a tool named '{original}', the name "
                         f"another tool is shown as; the agent sees it as {seen}")
    return notes


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)
