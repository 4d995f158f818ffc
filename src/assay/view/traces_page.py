"""An `assay traces` analysis stored as a run: its metrics (as eval-report.md words and
rounds them), the files read most, and its findings, each with the question it was about."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from assay.records import RunRecord
from assay.view.pages import render


def traces_page(request: Request, run: RunRecord) -> Response:
    from assay.reports.trace_performance import performance

    summary: dict[str, Any] = run.summary if isinstance(run.summary, dict) else {}
    stored = summary.get("metrics")
    metrics: dict[str, Any] = stored if isinstance(stored, dict) else {}
    findings = [f for f in summary.get("finding_list") or [] if isinstance(f, dict)]
    target = summary.get("hit_rate_target")
    rows = performance(metrics, target if isinstance(target, (int, float)) else None)
    return render("traces.html.j2", run=run, summary=summary, metrics=metrics,
                  performance=rows, findings=findings, counts=summary.get("findings") or {},
                  most_read=[m for m in summary.get("most_read") or [] if isinstance(m, dict)],
                  sessions=[s for s in summary.get("sessions") or [] if isinstance(s, str)],
                  repeated=[n for n in summary.get("repeated_sessions") or []
                            if isinstance(n, str)], selection=_selection(summary))


def _selection(summary: dict[str, Any]) -> str | None:
    """`Kept 3 of 7 sessions (--since 2026-03-01)`, as the terminal and eval-report.md say it,
    for an analysis run with `--name`, `--since` or `--last`."""
    from assay.wording import capitalised

    chosen = summary.get("selection")
    note = chosen.get("note") if isinstance(chosen, dict) else None
    return capitalised(note) if isinstance(note, str) else None
