"""What every page passes after the guard: the store's file is still the one the app opened.

Deleting or replacing `.assay/assay.db` while the viewer runs (`rm -rf
.assay` and a new run, a backup put in its place) is no error to SQLite: the
connections already open read on from the removed file, and each new one
opens whatever is at the path now, or fails. Pages would mix the old runs
with the new ones, or end in an error. Before each page the file at the path
is compared with the one opened (`StoreFile.changed`, one `stat`), and a
changed store is answered with a page saying what happened and what to do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.types import ASGIApp, Receive, Scope, Send

from assay.view.pages import error_page

if TYPE_CHECKING:
    from assay.store import Store

UNWATCHED = "/static/"
"""Paths served without the store (the error page's own stylesheet among them)."""


class StoreWatch:
    """ASGI middleware: a 503 page for every request once the store's file has changed."""

    def __init__(self, app: ASGIApp, store: Store) -> None:
        self.app = app
        self.store = store

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        what = (self.store.file.changed() if scope["type"] == "http" and self.store.file
                and not str(scope.get("path", "")).startswith(UNWATCHED) else None)
        if what is None:
            await self.app(scope, receive, send)
            return
        path = self.store.file.path if self.store.file else self.store.url
        await error_page(f"the store {path} was {what} while assay view showed it, so its "
                         "pages would show the old file's runs or fail: stop assay view "
                         "(Ctrl-C) and start it again to see the store now at that path",
                         status=503)(scope, receive, send)
