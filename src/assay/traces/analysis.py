"""The result of analysing a set of sessions: what the report and guidelines render."""

from __future__ import annotations

from dataclasses import dataclass, field

from assay.traces.exchanges import Exchange
from assay.traces.findings import Finding, Judgement
from assay.traces.metrics import HIT_RATE_TARGET, TraceMetrics
from assay.traces.sessions import Session, Unreadable


@dataclass
class TraceAnalysis:
    sessions: list[Session]
    exchanges: list[Exchange]
    metrics: TraceMetrics
    unreadable: list[Unreadable] = field(default_factory=list)
    judgements: list[Judgement] | None = None
    """None when no judge model was configured (metrics only)."""
    judge_model: str | None = None
    hit_rate_target: float = HIT_RATE_TARGET

    @property
    def findings(self) -> list[Finding]:
        return [f for j in self.judgements or () for f in j.findings]

    def findings_of(self, *types: str) -> list[Finding]:
        return [f for f in self.findings if f.type in types]

    @property
    def judge_errors(self) -> list[Judgement]:
        return [j for j in self.judgements or () if j.error is not None]
