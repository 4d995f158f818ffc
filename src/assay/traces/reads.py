"""Which tool calls read a file, and which file.

Agents name their read tool differently (pi `read`, Claude Code `Read`, MCP
servers `read_file`); the path argument too. A call counts as a file read
when its name is in `READ_TOOLS` (case-insensitive) and it names a path.
"""

from __future__ import annotations

from typing import Any

READ_TOOLS = frozenset({"read", "read_file", "readfile", "view", "notebookread", "cat"})
PATH_KEYS = ("path", "file_path", "filePath", "filename", "file", "notebook_path")
CONTENT_CHARS = 2000
"""How much of a file's content is kept: enough for a judge to check a citation."""


def read_path(name: str, arguments: dict[str, Any]) -> str | None:
    """The path a tool call reads, or None when the call is not a file read."""
    if name.lower() not in READ_TOOLS:
        return None
    for key in PATH_KEYS:
        value = arguments.get(key)
        if isinstance(value, str) and value:
            return value
    return None
