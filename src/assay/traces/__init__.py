"""`assay traces`: learn from an agent's own session logs, after the fact.

Session files (pi, Claude Code, OpenAI-style chat JSONL) are read into
exchanges (a question, the answer, the files read and what they said),
measured without a model, optionally checked by a judge model, and turned
into a report for people and guidelines for the agent.
"""

from assay.traces.analysis import TraceAnalysis
from assay.traces.exchanges import Exchange, FileRead, SessionMeta
from assay.traces.findings import Finding, Judgement, judge_all, parse_findings
from assay.traces.metrics import TraceMetrics, compute_metrics
from assay.traces.pipeline import TraceOptions, analyze, judge, write_outputs
from assay.traces.sessions import Session, SessionFilter, iter_exchanges, load_sessions

__all__ = [
    "Exchange", "FileRead", "Finding", "Judgement", "Session", "SessionFilter", "SessionMeta",
    "TraceAnalysis", "TraceMetrics", "TraceOptions", "analyze", "compute_metrics",
    "iter_exchanges", "judge", "judge_all", "load_sessions", "parse_findings", "write_outputs",
]
