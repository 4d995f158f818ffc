"""A run: its verdict in one sentence first, then scores with their CIs, the conditions
compared, the gates, the change since the previous run, and cost.

The review behind it is computed once in the background (`reviews`); a page
asked for before it is ready says so and fills in when it is. A run still in
flight shows its progress per condition instead, and reloads when it ends.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from assay.errors import UserError
from assay.store.stalled_runs import stalled_runs
from assay.view.pages import error_page, path_run, render

if TYPE_CHECKING:
    from assay.review.result import Review

LIVE = ("running",)
SHOWS = (("flipped", "flipped"), ("regressed", "regressed"), ("errored", "errored"),
         ("unstable", "unstable verdict"))


def run_page(request: Request) -> Response:
    run = path_run(request)
    if isinstance(run, Response):
        return run
    store = request.app.state.store
    if run.kind == "traces":
        from assay.view.traces_page import traces_page

        return traces_page(request, run)
    stalled = stalled_runs(store, [run]).get(run.id)
    live = run.status in LIVE and stalled is None
    review = (None if run.status in LIVE
              else request.app.state.reviews.review(run, wait_s=request.app.state.review_wait_s))
    return render("run.html.j2", run=run, live=live, shows=SHOWS, stalled=stalled,
                  counts=(store.condition_counts(run.id) if run.status in LIVE or stalled
                          else {}),
                  done=(store.trial_counts([run.id]).get(run.id, 0)
                        if run.status != "completed" else None),
                  **(review_context(review) if review is not None else {"review": None}))


def review_part(request: Request) -> Response:
    """The review section alone, for a page that waited for it: 202 while it is computed."""
    run = path_run(request, with_trials=True)
    if isinstance(run, Response):
        return run
    try:
        review = request.app.state.reviews.review(run, wait_s=request.app.state.review_wait_s)
    except UserError as exc:
        return error_page(str(exc), status=400)
    if review is None:
        return PlainTextResponse("reviewing", status_code=202,
                                 headers={"Cache-Control": "no-store"})
    return render("review_part.html.j2", run=run, shows=SHOWS, **review_context(review))


def review_context(review: Review) -> dict[str, Any]:
    # The analysis (scipy) is imported with the first review, not when the app starts.
    from assay.analysis.run_diff import condition_of
    from assay.reports.costs import (
        CACHED_JUDGE_CALLS,
        CACHED_JUDGE_CALLS_NOTE,
        SHARED_JUDGE_COST,
        judge_calls_cached,
    )
    from assay.reports.headline import review_headline
    from assay.reports.unscored import page_warnings
    from assay.view.review_parts import comparison_lines, score_table

    previous = review.previous
    return {
        "review": review,
        "headline": review_headline(review),
        "scores": score_table(review.summary, review.bars),
        "comparisons": comparison_lines(review.comparisons.entries,
                                        lambda e: e.comparison.label_b),
        "previous_lines": comparison_lines(previous.entries, condition_of) if previous else [],
        "baseline": review.comparisons.baseline,
        "conditions": review.summary.conditions,
        "costs": review.costs,
        "judge_cache": judge_calls_cached(review.summary.conditions),
        "cached_judge_calls": CACHED_JUDGE_CALLS,
        "cached_judge_calls_note": CACHED_JUDGE_CALLS_NOTE,
        "shared_judge_cost": SHARED_JUDGE_COST,
        "tags": [tag for tag in dict.fromkeys(tag for tag, _ in review.summary.by_tag)][:50],
        "warnings": page_warnings(review),
    }
