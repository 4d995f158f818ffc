"""An MCP server over stdio whose process exits on its third tool call.

Used to check that a server dying mid-run fails only the affected trials and
is restarted for the rest. `--crash-on N` picks the call that kills it.
"""

from __future__ import annotations

import argparse
import os
import sys

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("crashing")
_calls = 0
_crash_on = 3


@server.tool()
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
    _crash_on = parser.parse_args().crash_on
    print(f"crashing server up, pid {os.getpid()}", file=sys.stderr, flush=True)
    server.run("stdio")
