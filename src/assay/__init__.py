"""assay: evaluate LLM apps and AI agents with evidence.

The public API is re-exported here; everything else is internal.
"""

from __future__ import annotations

from assay._version import __version__

TYPE_CHECKING = False  # `typing` is not imported until it is needed: `assay` starts sooner
if TYPE_CHECKING:
    from typing import Any

    from assay.api.evaluate import EvalResult, evaluate, evaluate_async
    from assay.case import Case
    from assay.condition import Condition
    from assay.errors import AssayError, RunFailed, UserError
    from assay.output import Output, ToolCall, Usage
    from assay.registry import scorer, target
    from assay.score import Score
    from assay.scorers.base import CheckScorer, Scorer, ScorerParams
    from assay.targets.base import Target, TargetParams

_LAZY = {
    "Case": "assay.case",
    "Condition": "assay.condition",
    "Output": "assay.output",
    "ToolCall": "assay.output",
    "Usage": "assay.output",
    "Score": "assay.score",
    "Scorer": "assay.scorers.base",
    "CheckScorer": "assay.scorers.base",
    "ScorerParams": "assay.scorers.base",
    "Target": "assay.targets.base",
    "TargetParams": "assay.targets.base",
    "scorer": "assay.registry",
    "target": "assay.registry",
    "evaluate": "assay.api.evaluate",
    "evaluate_async": "assay.api.evaluate",
    "EvalResult": "assay.api.evaluate",
    "AssayError": "assay.errors",
    "UserError": "assay.errors",
    "RunFailed": "assay.errors",
}

__all__ = [
    "AssayError",
    "Case",
    "CheckScorer",
    "Condition",
    "EvalResult",
    "Output",
    "RunFailed",
    "Score",
    "Scorer",
    "ScorerParams",
    "Target",
    "TargetParams",
    "ToolCall",
    "Usage",
    "UserError",
    "__version__",
    "evaluate",
    "evaluate_async",
    "scorer",
    "target",
]


if not TYPE_CHECKING:  # a type checker sees the names above, and flags any other
    def __getattr__(name: str) -> Any:
        """Import public names on first use, keeping `import assay` cheap."""
        if name in _LAZY:
            import importlib

            return getattr(importlib.import_module(_LAZY[name]), name)
        raise AttributeError(f"module 'assay' has no attribute {name!r}")
