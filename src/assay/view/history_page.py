"""An experiment's runs over time: a chart per metric with each run's CI band."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from assay.analysis.history import build_history
from assay.view.chart import history_charts
from assay.view.pages import error_page, render
from assay.view.params import text, whole

DEFAULT_RUNS = 30


def history_page(request: Request) -> Response:
    store = request.app.state.store
    experiment = text(request.query_params, "experiment")
    if experiment is None:
        return error_page("name the experiment: /history?experiment=NAME", status=400)
    limit = whole(request.query_params, "runs", default=DEFAULT_RUNS, most=1000) or DEFAULT_RUNS
    histories = build_history(store.list_runs(experiment, limit=limit))
    if not histories:
        return error_page(f"no runs of experiment {experiment!r} in this store", status=404)
    return render("history.html.j2", experiment=experiment,
                  histories=[(h, history_charts(h)) for h in histories])
