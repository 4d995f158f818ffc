"""LLM providers on the official SDKs."""
