"""An MCP server over stdio whose process exits on its third tool call.

Used to check that a server dying mid-run fails only the affected trials and
is restarted for the rest. `--crash-on N` picks the call that kills it;
`--start-once FILE` makes every start after the first fail, as a server whose
port or lock file is still held by its dead predecessor does; `--tool-name NAME` offers
`lookup` under another name.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("crashing")
_calls = 0
_crash_on = 3


def lookup(key: str) -> str:
    """Look a key up in a small fixed table."""
    global _calls
    _calls += 1
    if _calls == _crash_on:
        print(f"crashing on call {_calls}", file=sys.stderr, flush=True)
        os._exit(17)
    table = {"alpha": "first letter", "omega": "last letter"}
    if key not in table:
        raise ToolError(f"no entry for {key!r}")
    return table[key]


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--crash-on", type=int, default=3)
    parser.add_argument("--start-once", type=Path)
    parser.add_argument("--tool-name", default="lookup")
    options = parser.parse_args()
    server.tool(name=options.tool_name)(lookup)
    _crash_on = options.crash_on
    if options.start_once is not None:
        if options.start_once.exists():
            print(f"cannot lock {options.start_once}: held by another process", file=sys.stderr,
                  flush=True)
            sys.exit(1)
        options.start_once.touch()
    print(f"crashing server up, pid {os.getpid()}", file=sys.stderr, flush=True)
    server.run("stdio")
