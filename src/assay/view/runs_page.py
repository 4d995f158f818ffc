"""The run list: newest first, filtered by experiment, kind, status and dates, with live
progress for the runs still in flight (the page asks `/api/progress` every few seconds)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from assay.records import RUN_KINDS, TRIAL_KINDS, RunRecord
from assay.run_status import shown_status
from assay.store.stalled_runs import stalled_runs
from assay.view.pages import render
from assay.view.params import RUN_STATUSES, run_filter, whole

PAGE_SIZE = 50
MAX_PROGRESS_RUNS = 100


def runs_page(request: Request) -> Response:
    store = request.app.state.store
    wanted = run_filter(request.query_params)
    page = whole(request.query_params, "page", default=1, most=100_000) or 1
    runs = store.runs_page(wanted, limit=PAGE_SIZE, offset=(page - 1) * PAGE_SIZE)
    total = store.count_runs(wanted)
    # How many trials a run in flight or stopped part-way has stored (traces store none).
    unfinished = [run.id for run in runs if run.status != "completed" and run.kind != "traces"]
    pair = compare_pair(runs)
    return render("runs.html.j2", runs=runs, pair=pair, wanted=wanted, page=page, total=total,
                  stalled=stalled_runs(store, runs),
                  pages=max(1, -(-total // PAGE_SIZE)), experiments=store.experiments(),
                  statuses=RUN_STATUSES, kinds=RUN_KINDS, comparable=TRIAL_KINDS,
                  done=store.trial_counts(unfinished) if unfinished else {})


def progress(request: Request) -> Response:
    """`{run id: {status, shown_status, stalled, done, total}}` for the runs named by
    `?run=ID` (repeatable); `stalled` is why a run marked running probably is not (else
    null), and `shown_status` its status as the page shows it (`running?` then)."""
    store = request.app.state.store
    ids = request.query_params.getlist("run")[:MAX_PROGRESS_RUNS]
    runs = [run for run in (store.get_run(i) for i in ids) if run is not None]
    done = store.trial_counts([run.id for run in runs]) if runs else {}
    stalled = stalled_runs(store, runs)
    body: dict[str, Any] = {run.id: {"status": run.status,
                                     "shown_status": shown_status(run.status,
                                                                  stalled=run.id in stalled),
                                     "done": done.get(run.id, 0),
                                     "total": run.total_trials,
                                     "stalled": (stalled[run.id].reason() if run.id in stalled
                                                 else None)} for run in runs}
    return JSONResponse(body, headers={"Cache-Control": "no-store"})


def compare_pair(runs: Sequence[RunRecord]) -> list[str]:
    """Preselected for "compare": the newest completed eval run on the page (B), then the
    completed eval run of its experiment before it (A), if the page has one. Two runs of
    different experiments, or one that stopped part-way, are seldom the comparison meant."""
    done = [run for run in runs if run.kind == "eval" and run.status == "completed"]
    if not done:
        return []
    newest = done[0]
    before = next((run for run in done[1:] if run.experiment == newest.experiment), None)
    return [newest.id] + ([before.id] if before else [])
