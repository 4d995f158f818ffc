"""Cases side by side, for one run (its conditions) or two runs (each condition in both).

A page holds `PAGE_SIZE` cases, chosen by the store in case-id order with
the filter applied there (flipped, regressed, errored, unstable, a tag,
text in the id), so the page costs the same on the first case or the
100,000th.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response

from assay.records import RunRecord
from assay.review.recorded import RecordedReview
from assay.review.summary import review_order, scorer_order
from assay.store.filters import SHOWS
from assay.view.pages import path_run, render
from assay.view.params import case_filter, text
from assay.view.side_by_side import Side, arrange

if TYPE_CHECKING:
    from assay.store import Store

PAGE_SIZE = 25


def run_cases_page(request: Request) -> Response:
    run = path_run(request, with_trials=True)
    if isinstance(run, Response):
        return run
    conditions = conditions_of(request.app.state.store, run)
    sides = [Side(run.id, name, name) for name in conditions]
    return _page(request, [run], sides, baseline=baseline_of(run, conditions))


def compare_cases_page(request: Request) -> Response:
    from assay.view.compare_page import two_runs

    runs = two_runs(request)
    if isinstance(runs, Response):
        return runs
    run_a, run_b = runs
    store = request.app.state.store
    names_a, names_b = conditions_of(store, run_a), conditions_of(store, run_b)
    sides = []
    for name in [*names_b, *(n for n in names_a if n not in names_b)]:
        if name in names_a:
            sides.append(Side(run_a.id, name, f"A · {name}"))
        if name in names_b:
            sides.append(Side(run_b.id, name, f"B · {name}"))
    return _page(request, [run_a, run_b], sides)


def conditions_of(store: Store, run: RunRecord) -> list[str]:
    """The run's conditions in the order its review lists them, its baseline first."""
    return review_order(store, run)[1]


def baseline_of(run: RunRecord, conditions: Sequence[str]) -> str | None:
    """The condition the run's review compared the others with (`assay run --baseline`),
    else its first: what `regressed` reads when the page is not told, so the cases it lists
    are the losses the run's comparisons count."""
    recorded = RecordedReview.of(run)
    if recorded is not None and recorded.baseline in conditions:
        return recorded.baseline
    return conditions[0] if conditions else None


def scorers_of(run: RunRecord) -> list[str]:
    return scorer_order(run)


def _page(request: Request, runs: Sequence[RunRecord], sides: list[Side], *,
          baseline: str | None = None) -> Response:
    store = request.app.state.store
    query = request.query_params
    chosen = case_filter(query)
    wanted = chosen if chosen.baseline else replace(chosen, baseline=baseline)
    page = store.case_page([r.id for r in runs], wanted, after=text(query, "after"),
                           before=text(query, "before"), limit=PAGE_SIZE)
    previews = store.trial_previews([r.id for r in runs], page.case_ids)
    scorers = list(dict.fromkeys(name for run in runs for name in scorers_of(run)))
    scorers += [n for n in dict.fromkeys(s for p in previews for s in p.scores)
                if n not in scorers]
    rows = arrange(page.case_ids, sides, previews, scorers)
    return render("cases.html.j2", runs=list(runs), sides=sides, rows=rows, page=page,
                  epochs={run.id: run.epochs for run in runs},
                  wanted=chosen, baseline=baseline, shows=SHOWS, scorers=scorers,
                  conditions=list(dict.fromkeys(s.condition for s in sides)),
                  here=request.url.path, query=dict(query))
