"""An analysis stored as a run: the numbers `assay history` and `assay view` show for it."""

from __future__ import annotations

from pathlib import Path

from assay.traces.options import TraceOptions
from assay.traces.pipeline import analyze
from assay.traces.storing import run_summary


def test_sessions_without_a_knowledge_base_store_no_wiki_hit_rate(sessions_dir: Path) -> None:
    """Regression: the report and the command's summary leave the wiki hit rate out when no
    `--knowledge` folder is given (coding sessions have no wiki), but the stored metrics kept
    it, so `assay history` and `assay view` showed a wiki hit rate of 74% for them."""
    metrics = run_summary(analyze([sessions_dir], TraceOptions()))["metrics"]
    assert metrics["exchanges"] == 95 and metrics["answered"] == 72
    assert "wiki_hit_rate" not in metrics and "wiki_hits" not in metrics


def test_sessions_with_a_knowledge_base_store_the_wiki_hit_rate_the_report_shows(
        sessions_dir: Path, tmp_path: Path) -> None:
    analysis = analyze([sessions_dir], TraceOptions(knowledge=tmp_path))
    summary = run_summary(analysis)
    assert summary["metrics"]["wiki_hit_rate"] == analysis.metrics.wiki_hit_rate is not None
    assert summary["hit_rate_target"] == analysis.hit_rate_target
