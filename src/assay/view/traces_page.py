"""An `assay traces` analysis stored as a run: its metrics, the files read most, and its
findings, each with the question it was about."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from assay.records import RunRecord
from assay.view.pages import render


def traces_page(request: Request, run: RunRecord) -> Response:
    summary: dict[str, Any] = run.summary if isinstance(run.summary, dict) else {}
    metrics = summary.get("metrics") if isinstance(summary.get("metrics"), dict) else {}
    findings = [f for f in summary.get("finding_list") or [] if isinstance(f, dict)]
    return render("traces.html.j2", run=run, summary=summary, metrics=metrics,
                  findings=findings, counts=summary.get("findings") or {},
                  most_read=[m for m in summary.get("most_read") or [] if isinstance(m, dict)],
                  sessions=[s for s in summary.get("sessions") or [] if isinstance(s, str)])
