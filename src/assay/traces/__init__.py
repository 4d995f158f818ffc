"""`assay traces`: learn from an agent's own session logs, after the fact.

Session files (pi, Claude Code, OpenAI-style chat JSONL) are read into
exchanges (a question, the answer, the files read and what they said),
measured without a model, optionally checked by a judge model, and turned
into a report for people and guidelines for the agent. Exchanges stream:
memory does not grow with the size of the logs, only by one small hash per
question (`repeats`, so a session read from two files counts once). May import
providers and scorers (the judge), the store and reports (the renderers).
"""

from assay.traces.exchanges import Exchange, FileRead, SessionMeta
from assay.traces.findings import Finding, Judgement, parse_findings
from assay.traces.judging import Judgements, StreamingJudge, judge_all
from assay.traces.metrics import MetricsTally, TraceMetrics, compute_metrics
from assay.traces.options import TraceOptions
from assay.traces.pipeline import analyze, analyze_judged, check_outputs, write_outputs
from assay.traces.result import TraceAnalysis
from assay.traces.selection import SessionFilter
from assay.traces.sessions import Session, iter_exchanges, load_sessions
from assay.traces.stream import ExchangeStream

__all__ = [
    "Exchange",
    "ExchangeStream",
    "FileRead",
    "Finding",
    "Judgement",
    "Judgements",
    "MetricsTally",
    "Session",
    "SessionFilter",
    "SessionMeta",
    "StreamingJudge",
    "TraceAnalysis",
    "TraceMetrics",
    "TraceOptions",
    "analyze",
    "analyze_judged",
    "check_outputs",
    "compute_metrics",
    "iter_exchanges",
    "judge_all",
    "load_sessions",
    "parse_findings",
    "write_outputs",
]
