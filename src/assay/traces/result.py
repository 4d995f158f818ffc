"""The result of analysing a set of sessions: what the report and guidelines render.

It holds totals and one row per session, never the exchanges themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from assay.traces.findings import Finding, Judgement
from assay.traces.judging import Judgements
from assay.traces.metrics import HIT_RATE_TARGET, TraceMetrics
from assay.traces.selection import Selection
from assay.traces.sessions import Session, Unreadable


@dataclass
class TraceAnalysis:
    sessions: list[Session]
    metrics: TraceMetrics
    unreadable: list[Unreadable] = field(default_factory=list)
    judgements: Judgements | None = None
    """None when no judge model was configured (metrics only)."""
    hit_rate_target: float = HIT_RATE_TARGET
    knowledge: bool = False
    """Whether the agent answers from a knowledge base (`--knowledge` was given): only then
    do the wiki hit rate, its target and advice about the wiki apply."""
    subagent_files: int = 0
    """Subagent session files counted with their parent session, not as sessions."""
    selection: Selection | None = None
    """What `--name`, `--since` and `--last` kept; None when none was given."""

    @property
    def judge_model(self) -> str | None:
        return self.judgements.model if self.judgements is not None else None

    @property
    def findings(self) -> list[Finding]:
        return self.judgements.findings if self.judgements is not None else []

    def findings_of(self, *types: str) -> list[Finding]:
        return [f for f in self.findings if f.type in types]

    @property
    def judge_errors(self) -> list[Judgement]:
        return self.judgements.errors if self.judgements is not None else []
