"""Storing an analysis as a run (kind `traces`), so history shows the hit rate over time."""

from __future__ import annotations

import uuid
from typing import Any

from assay.traces.repeats import repeat_notes
from assay.traces.result import TraceAnalysis

RUN_KIND = "traces"
WIKI_METRICS = ("wiki_hits", "wiki_hit_rate")
"""Stored only for sessions that answer from a knowledge base (`--knowledge`)."""
MAX_STORED_FINDINGS = 2_000
"""Findings kept whole with the run (for `assay view`); the counts always cover them all."""


def run_summary(analysis: TraceAnalysis) -> dict[str, Any]:
    """What is stored: the metrics, the findings (counts, and each one for the viewer), and
    the session files read (each once), and the sessions met in two files, counted once."""
    judged = analysis.judgements is not None
    metrics = analysis.metrics.to_dict()
    if not analysis.knowledge:  # no wiki to hit: left out, as the report leaves it out
        metrics = {k: v for k, v in metrics.items() if k not in WIKI_METRICS}
    return {
        "metrics": metrics,
        "hit_rate_target": analysis.hit_rate_target if analysis.knowledge else None,
        "most_read": [{"path": p, "questions": n} for p, n in analysis.metrics.most_read],
        "judge_model": analysis.judge_model,
        "findings": {kind: len(analysis.findings_of(kind)) for kind in
                     ("citation", "contradiction", "wiki-gap", "wasted-read")} if judged else None,
        "finding_list": [f.to_dict() for f in analysis.findings[:MAX_STORED_FINDINGS]]
        if judged else None,
        "not_judged": len(analysis.judge_errors) if judged else None,
        "judge_usage": analysis.judgements.usage.to_dict() if analysis.judgements else None,
        "sessions": list(dict.fromkeys(s.meta.path for s in analysis.sessions)),
        "repeated_sessions": repeat_notes(analysis.sessions),
        "selection": analysis.selection.to_dict() if analysis.selection else None,
    }


def record_run(analysis: TraceAnalysis, experiment: str, store_url: str | None = None) -> str:
    """Write one run to the store, `incomplete` when the judge could not judge some
    questions (else `finished`); returns its id."""
    from assay.store import Store
    from assay.store.rows import now_iso

    store = Store(store_url)
    try:
        run_id = f"traces-{uuid.uuid4().hex[:12]}"
        status = "incomplete" if analysis.judge_errors else "finished"
        store.create_run(id=run_id, experiment=experiment, kind=RUN_KIND, status=status,
                         finished_at=now_iso(), total_trials=analysis.metrics.exchanges,
                         summary=run_summary(analysis))
    finally:
        store.close()
    return run_id
