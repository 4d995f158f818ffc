"""assay: evaluate LLM apps and AI agents with evidence.

The public API is re-exported here; everything else is internal.
"""

from __future__ import annotations

from assay._version import __version__

TYPE_CHECKING = False  # `typing` is not imported until it is needed: `assay` starts sooner
if TYPE_CHECKING:
    from typing import Any

    from assay.analysis.summary import ConditionStats, RunSummary, ScoreStats
    from assay.api.evaluate import EvalResult, evaluate, evaluate_async
    from assay.case import Case
    from assay.condition import Condition
    from assay.errors import AssayError, CostBudgetSpent, RunFailed, UserError
    from assay.output import Output, ToolCall, Usage
    from assay.records import RunRecord, TrialRecord
    from assay.registry import scorer, target
    from assay.review.result import GateResult
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
    "CostBudgetSpent": "assay.errors",
    # what an `EvalResult` holds, for a program that annotates what it reads from one
    "RunRecord": "assay.records",
    "TrialRecord": "assay.records",
    "RunSummary": "assay.analysis.summary",
    "ScoreStats": "assay.analysis.summary",
    "ConditionStats": "assay.analysis.summary",
    "GateResult": "assay.review.result",
}

__all__ = [
    "AssayError",
    "Case",
    "CheckScorer",
    "Condition",
    "ConditionStats",
    "CostBudgetSpent",
    "EvalResult",
    "GateResult",
    "Output",
    "RunFailed",
    "RunRecord",
    "RunSummary",
    "Score",
    "ScoreStats",
    "Scorer",
    "ScorerParams",
    "Target",
    "TargetParams",
    "ToolCall",
    "TrialRecord",
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
