"""Scorers: deterministic checks and LLM judges, registered by kind name."""

from assay.scorers.base import CheckScorer, Scorer, ScorerParams

__all__ = ["CheckScorer", "Scorer", "ScorerParams"]
