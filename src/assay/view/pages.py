"""Rendering a page: the templates, their filters, and the responses they become.

Every template is autoescaped (jinja2's `autoescape=True`): a case input, an
output, a tool result, a judge's reason, a run or experiment name is text
on the page, never markup. Nothing is marked safe.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse

from assay.records import TRIAL_KINDS, RunRecord
from assay.reports.costs import cost_text, tokens_text, usage_tokens_text
from assay.reports.formatting import milliseconds
from assay.trial import epoch_label
from assay.view import links
from assay.wording import plural


def render(template: str, *, status: int = 200, **context: Any) -> HTMLResponse:
    return HTMLResponse(environment().get_template(template).render(**context),
                        status_code=status)


def error_page(message: str, *, status: int) -> HTMLResponse:
    return render("error.html.j2", status=status, message=message, status_code=status)


def path_run(request: Request, *, with_trials: bool = False) -> RunRecord | HTMLResponse:
    """The run the page's path names (`{run_id}`), or the 404 page saying there is none
    (with `with_trials`, none that stores trials: an eval or rejudge run)."""
    run_id = request.path_params["run_id"]
    run: RunRecord | None = request.app.state.store.get_run(run_id)
    if run is None:
        return error_page(f"no run {run_id!r} in this store", status=404)
    if with_trials and run.kind not in TRIAL_KINDS:
        return error_page(f"run {run_id!r} is a {run.kind} run, which has no cases or "
                          f"review: its page is {links.run_link(run_id)}", status=404)
    return run


@lru_cache(maxsize=1)
def environment() -> Any:
    from assay.reports.pages import page_environment

    env = page_environment("assay.view")
    env.filters.update(cost=cost_text, ms=milliseconds, when=when, pretty=pretty,
                       tokens=tokens_text, usage_tokens=usage_tokens_text, plural=plural)
    env.globals.update(link=links.link, runs_link=links.runs_link, run_link=links.run_link,
                       cases_link=links.cases_link, trial_link=links.trial_link,
                       compare_link=links.compare_link, history_link=links.history_link,
                       compare_cases_link=links.compare_cases_link, epoch_label=epoch_label)
    return env


def when(iso: str | None) -> str:
    """`2025-01-31 10:04` from a stored ISO time (UTC as stored)."""
    return "-" if not iso else iso[:16].replace("T", " ")


def pretty(value: Any) -> str:
    """A stored value as indented JSON text (a string stays itself)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)
