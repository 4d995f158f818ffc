"""A page reads the store in one moment: its numbers agree with each other.

A page asks the store several things (a run, its trial count, the count under
each condition, the runs on a list and how many there are). Over a run still
being written, each query used to see another moment, so one screen could say
'5/40 trials' above conditions holding 3 and 4. Each page is read in one moment
(`store.snapshot.one_moment`), in the thread that serves it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import Response

from assay.store.snapshot import one_moment

Page = Callable[[Request], Response]


def in_one_moment(page: Page) -> Page:
    """`page`, reading the app's store in one moment."""

    @functools.wraps(page)
    def read_at_once(request: Request) -> Response:
        with one_moment(request.app.state.store):
            return page(request)

    return read_at_once
