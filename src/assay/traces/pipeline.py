"""The traces pipeline, one way: read -> exchanges -> metrics -> judge -> report and guidelines."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from assay.errors import UserError
from assay.providers.base import Provider
from assay.traces.analysis import TraceAnalysis
from assay.traces.findings import judge_all
from assay.traces.guidelines import render_insights, update_guidelines
from assay.traces.knowledge import KnowledgeFolder
from assay.traces.metrics import DEFAULT_WIKI_PATHS, HIT_RATE_TARGET, compute_metrics
from assay.traces.report import render_report
from assay.traces.sessions import SessionFilter, load_sessions

REPORT_NAME = "eval-report.md"
GUIDELINES_NAME = "guidelines.md"


@dataclass
class TraceOptions:
    format: str | None = None
    filter: SessionFilter = field(default_factory=SessionFilter)
    knowledge: Path | None = None
    wiki_paths: Sequence[str] = DEFAULT_WIKI_PATHS
    hit_rate_target: float = HIT_RATE_TARGET


def analyze(paths: Sequence[str | Path], options: TraceOptions) -> TraceAnalysis:
    """Everything that needs no model: sessions, exchanges, metrics."""
    sessions, unreadable = load_sessions(paths, options.format)
    if not sessions:
        detail = "; ".join(f"{u.path}: {u.reason}" for u in unreadable[:5])
        raise UserError(f"no session files found in {', '.join(map(str, paths))}"
                        + (f" ({detail})" if detail else ""))
    sessions = options.filter.apply(sessions)
    exchanges = [e for s in sessions for e in s.exchanges]
    if options.knowledge is not None:
        folder = KnowledgeFolder.scan(options.knowledge)
        for exchange in exchanges:
            folder.annotate(exchange)
    metrics = compute_metrics(exchanges, len(sessions), options.wiki_paths)
    return TraceAnalysis(sessions, exchanges, metrics, unreadable,
                         hit_rate_target=options.hit_rate_target)


async def judge(analysis: TraceAnalysis, provider: Provider, model: str,
                concurrency: int = 4) -> None:
    analysis.judgements = await judge_all(provider, model, analysis.exchanges, concurrency)
    analysis.judge_model = model


def write_outputs(analysis: TraceAnalysis, output: Path,
                  guidelines: Path | None = None) -> tuple[Path, Path]:
    """Write the report and update (not overwrite) the guidelines file."""
    output.mkdir(parents=True, exist_ok=True)
    report_path = output / REPORT_NAME
    report_path.write_text(render_report(analysis), encoding="utf-8")
    guidelines_path = guidelines or output / GUIDELINES_NAME
    existing = guidelines_path.read_text(encoding="utf-8") if guidelines_path.exists() else ""
    guidelines_path.parent.mkdir(parents=True, exist_ok=True)
    guidelines_path.write_text(update_guidelines(existing, render_insights(analysis)),
                               encoding="utf-8")
    return report_path, guidelines_path
