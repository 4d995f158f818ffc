"""Targets: what is under test, registered by kind name.

Owns what every target is (`base`) and the kinds: `python`, `command`
(with `process_tree` to end every process it started), `http`, `model`
and `agent` (an LLM tool loop over MCP tools). May import config,
providers, context and the root nouns.
"""

from assay.targets.base import Target, TargetParams

__all__ = ["Target", "TargetParams"]
