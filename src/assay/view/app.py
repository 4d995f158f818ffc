"""The app: its routes, the guard and the store watch in front of them, and what they share
(store, reviews)."""

from __future__ import annotations

from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from assay.errors import AssayError, UserError
from assay.view.cases_page import compare_cases_page, run_cases_page
from assay.view.compare_page import compare_page, diff_part
from assay.view.guard import ANY_ADDRESS, Guard, allowed_hosts
from assay.view.history_page import history_page
from assay.view.one_page import in_one_moment
from assay.view.pages import error_page
from assay.view.params import BadRequest
from assay.view.reviews import Reviews
from assay.view.run_page import review_part, run_page
from assay.view.runs_page import progress, runs_page
from assay.view.store_watch import StoreWatch
from assay.view.trial_page import trial_page

if TYPE_CHECKING:
    from assay.store import Store

STATIC = Path(__file__).parent / "static"
REVIEW_WAIT_S = 0.15


def create_app(store: Store, *, host: str = "127.0.0.1",
               review_wait_s: float = REVIEW_WAIT_S) -> Starlette:
    """The viewer over `store` (opened read-only by the caller), bound to `host`: it answers
    to the names of that address (`allowed_hosts`), and to any address when bound to every
    address.

    A page waits up to `review_wait_s` for a review computed in the background before it
    shows the review as on its way (and fetches it when it is ready)."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> Any:
        yield
        app.state.reviews.close()

    routes = [
        Route("/", in_one_moment(runs_page), name="runs"),
        Route("/api/progress", in_one_moment(progress), name="progress"),
        Route("/runs/{run_id}", in_one_moment(run_page), name="run"),
        Route("/runs/{run_id}/review", in_one_moment(review_part), name="review"),
        Route("/runs/{run_id}/cases", in_one_moment(run_cases_page), name="cases"),
        Route("/runs/{run_id}/trial", in_one_moment(trial_page), name="trial"),
        Route("/compare", in_one_moment(compare_page), name="compare"),
        Route("/compare/review", in_one_moment(diff_part), name="diff"),
        Route("/compare/cases", in_one_moment(compare_cases_page), name="compare_cases"),
        Route("/history", in_one_moment(history_page), name="history"),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan,
                    middleware=[Middleware(Guard, allowed_hosts=allowed_hosts(host),
                                           any_address=host in ANY_ADDRESS),
                                Middleware(StoreWatch, store=store)],
                    exception_handlers={BadRequest: _bad_request, UserError: _bad_request,
                                        AssayError: _assay_error, HTTPException: _http_error,
                                        Exception: _server_error})
    app.state.store = store
    app.state.reviews = Reviews(store)
    app.state.review_wait_s = review_wait_s
    return app


async def _bad_request(request: Request, exc: Exception) -> Response:
    return error_page(str(exc), status=400)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return error_page(exc.detail, status=exc.status_code)


async def _assay_error(request: Request, exc: Exception) -> Response:
    """An error assay words for people (a store it cannot read, a review process that
    died): in its own words, 503, with no traceback."""
    return error_page(str(exc), status=503)


async def _server_error(request: Request, exc: Exception) -> Response:
    """A fault of the viewer itself: a page that names it, never a bare 'Internal Server
    Error' (the server's log keeps the traceback for a bug report)."""
    return error_page(f"assay view failed on this page: {type(exc).__name__}: {exc}. "
                      "This is a bug in assay; the terminal running assay view has the "
                      "details.", status=500)
