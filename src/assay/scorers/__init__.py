"""Scorers: checks (deterministic) and judges (LLM), registered by kind name.

Owns what every scorer is (`base`), the checks (`text`, `numeric`,
`structured`, `tool_calls`, `custom` for your Python function) and the
judges (`judges/`). May import config (templates), providers (judges),
user_code (your Python scorers) and the root nouns.
"""

from assay.scorers.base import CheckScorer, Scorer, ScorerParams

__all__ = ["CheckScorer", "Scorer", "ScorerParams"]
