"""`assay view` in a background thread, for tests and benchmarks that drive it over HTTP.

    with ViewerThread(store) as url:
        httpx.get(url + "runs/...")

or, over a store given by its URL, `with serving(store_url) as url:`.

It serves the same app `assay view` does, on a free port of 127.0.0.1.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import uvicorn

    from assay.store import Store

START_TIMEOUT_S = 20.0


class ViewerThread:
    """The viewer over `store` on 127.0.0.1, started on enter and stopped on exit."""

    def __init__(self, store: Store, *, host: str = "127.0.0.1",
                 review_wait_s: float | None = None) -> None:
        self.store = store
        self.host = host
        self.review_wait_s = review_wait_s
        self.url = ""
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> str:
        import uvicorn

        from assay.listening import address, bind
        from assay.view.app import create_app

        sock = bind(self.host, 0)
        self.url = address(sock)
        app = create_app(self.store, host=self.host,
                         **({} if self.review_wait_s is None
                            else {"review_wait_s": self.review_wait_s}))
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]},
                                        name="assay-viewer", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the viewer did not start")
            time.sleep(0.01)
        return self.url

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)


@contextmanager
def serving(store_url: str) -> Iterator[str]:
    """The viewer over the store at `store_url`, opened as `assay view` opens it (read-only),
    and closed after: the base URL while it serves."""
    from assay.view.server import open_for_viewing

    store = open_for_viewing(store_url)
    try:
        with ViewerThread(store) as url:
            yield url
    finally:
        store.close()
