"""A would-be MCP server that fails before speaking the protocol, as a misconfigured one does."""

import sys

print("fatal: GRAPH_URL is not set; cannot connect to the graph", file=sys.stderr, flush=True)
sys.exit(2)
