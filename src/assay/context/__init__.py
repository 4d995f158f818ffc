"""Context an agent can be given: MCP servers and knowledge packs.

`mcp_config` and `pack_config` hold the config models and import only
pydantic, so loading a config stays cheap; the clients, indexes and servers
live in their own modules and are imported when a run needs them. May import
config, providers (the agent's model) and the root nouns.
"""
