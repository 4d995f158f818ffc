"""The Condition: a named variant of the target."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

TOOL_KEYS = frozenset({"mcp_servers", "context", "require_mcp_tool_use",
                       "require_mcp_tool_success"})
"""A condition's keys that give a model tools or context; only some target kinds honour them."""


@dataclass(slots=True)
class Condition:
    """The same cases under a different context.

    `target` is the fully resolved target config for this condition (the
    config's target with this condition's overrides applied). `mcp_servers`
    names servers declared under the config's `mcp_servers:`; `context`
    asks for retrieved passages from a knowledge pack.
    """

    name: str
    target: dict[str, Any] = field(default_factory=dict)
    mcp_servers: list[str] = field(default_factory=list)
    context: dict[str, Any] | None = None
    description: str | None = None
    require_tool_use: bool = False
    require_tool_success: bool = False

    def tool_keys(self) -> list[str]:
        """The config keys of this condition that only some target kinds can honour (MCP
        servers, pack context, tool-use requirements), as written in the config."""
        keys = {"mcp_servers": bool(self.mcp_servers), "context": self.context is not None,
                "require_mcp_tool_use": self.require_tool_use,
                "require_mcp_tool_success": self.require_tool_success}
        return [key for key, given in keys.items() if given]
