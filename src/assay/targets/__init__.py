"""Targets: what is under test, registered by kind name.

Owns what every target is (`base`) and the kinds: `python` (in assay's
process, or in worker processes: `python_pool`, `python_worker`), `command`
(with `process_tree` to end every process it started), `http`, `model`
and `agent` (an LLM tool loop over MCP tools); `unfinished` keeps what a target
reports it had done when its deadline cuts it short. May import config,
providers, context and the root nouns.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assay.targets.base import Target, TargetParams

__all__ = ["Target", "TargetParams"]


def __getattr__(name: str) -> Any:
    """Import on first use: a python target's worker process (`python -m
    assay.targets.python_worker`) must not load pydantic and the registry to start."""
    if name in __all__:
        from assay.targets import base

        return getattr(base, name)
    raise AttributeError(f"module 'assay.targets' has no attribute {name!r}")
