"""Two runs compared: the verdict in one sentence, every metric's change with its CI, the
cases that newly fail or pass, and a history chart per metric with its CI band."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from assay.analysis.history import build_history
from assay.errors import UserError
from assay.records import TRIAL_KINDS, RunRecord
from assay.view.chart import history_charts
from assay.view.pages import error_page, render
from assay.view.params import text

if TYPE_CHECKING:
    from assay.analysis.run_diff import RunDiff

HISTORY_RUNS = 30
"""Runs of the experiment drawn in each chart (the newest)."""


def two_runs(request: Request) -> tuple[RunRecord, RunRecord] | Response:
    """Runs A and B named by `?a=` and `?b=` (ids, prefixes or `latest~N`), or an error page."""
    store = request.app.state.store
    ref_a, ref_b = text(request.query_params, "a"), text(request.query_params, "b")
    if ref_a is None or ref_b is None:
        return error_page("compare two runs: /compare?a=RUN_A&b=RUN_B", status=400)
    try:
        run_a, run_b = store.resolve_run(ref_a), store.resolve_run(ref_b)
    except UserError as exc:
        return error_page(str(exc), status=404)
    if run_a.id == run_b.id:
        return error_page(f"A and B are the same run ({run_a.id})", status=400)
    for run in (run_a, run_b):
        if run.kind not in TRIAL_KINDS:
            return error_page(f"run {run.id} is a {run.kind} run; only eval and rejudge runs "
                              "compare", status=400)
    return run_a, run_b


def compare_page(request: Request) -> Response:
    found = _runs_and_diff(request)
    if isinstance(found, Response):
        return found
    run_a, run_b, diff = found
    store = request.app.state.store
    drawn = store.list_runs(run_b.experiment, kind="eval", limit=HISTORY_RUNS)
    history = build_history(drawn)
    charts = history_charts(history[0], marked={run_a.id, run_b.id}) if history else []
    return render("compare.html.j2", run_a=run_a, run_b=run_b, charts=charts,
                  marked=marked_note(run_a, run_b, {run.id for run in drawn}),
                  **(diff_context(diff) if diff is not None else {"diff": None}))


def marked_note(run_a: RunRecord, run_b: RunRecord, drawn: set[str]) -> str:
    """Which of A and B the history charts mark, and why one is not there: the charts draw
    the newest eval runs of B's experiment, which a rejudge run, a run of another
    experiment or an older run is not among."""
    marked = [label for label, run in (("A", run_a), ("B", run_b)) if run.id in drawn]
    missing = [(label, run) for label, run in (("A", run_a), ("B", run_b))
               if run.id not in drawn]
    parts = [f"{' and '.join(marked)} drawn larger"] if marked else []
    for label, run in missing:
        why = (f"a {run.kind} run" if run.kind != "eval"
               else f"a run of {run.experiment}" if run.experiment != run_b.experiment
               else f"older than the {HISTORY_RUNS} newest runs drawn")
        parts.append(f"{label} is not drawn: it is {why}")
    return "; ".join(parts) + "."


def diff_part(request: Request) -> Response:
    """The comparison section alone, for a page that waited for it: 202 while it is computed."""
    found = _runs_and_diff(request)
    if isinstance(found, Response):
        return found
    run_a, run_b, diff = found
    if diff is None:
        return PlainTextResponse("comparing", status_code=202,
                                 headers={"Cache-Control": "no-store"})
    return render("diff_part.html.j2", run_a=run_a, run_b=run_b, **diff_context(diff))


def _runs_and_diff(request: Request) -> tuple[RunRecord, RunRecord, RunDiff | None] | Response:
    """Runs A and B, and their diff (None while it is computed), or an error page."""
    runs = two_runs(request)
    if isinstance(runs, Response):
        return runs
    run_a, run_b = runs
    diff = request.app.state.reviews.diff(run_a, run_b, wait_s=request.app.state.review_wait_s)
    return run_a, run_b, diff


def diff_context(diff: RunDiff) -> dict[str, Any]:
    from assay.analysis.run_diff import condition_of
    from assay.reports.headline import diff_headline
    from assay.view.review_parts import comparison_lines

    return {"diff": diff, "headline": diff_headline(diff),
            "lines": comparison_lines(diff.entries, condition_of)}
