"""Serving the viewer: open the store for reading, run uvicorn on a bound socket
(`assay.listening`)."""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.store import Store

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8321


def open_for_viewing(url: str | None) -> Store:
    """The store, read-only; a store made by an older assay is first upgraded in place,
    as any assay command that opens it would (the viewer itself never writes), unless this
    process cannot write it (a read-only mount): that one is read as it is where it can be
    (`store.open_as_it_is`), as `assay runs` reads it."""
    from assay.store import Store
    from assay.store.migrations import SCHEMA_VERSION, current_version, refuse_newer
    from assay.store.store import open_as_it_is, unwritable_file

    if unwritable_file(url):
        return open_as_it_is(url)
    store = Store(url, read_only=True)
    with store.engine.connect() as conn:
        version = current_version(conn)
    try:
        refuse_newer(version, store.url)
    except BaseException:
        store.close()
        raise
    if version < SCHEMA_VERSION:
        store.close()
        Store(url).close()
        store = Store(url, read_only=True)
    return store


def serve(store: Store, sock: socket.socket, *, host: str) -> None:
    """Run the app on a bound socket until interrupted."""
    import uvicorn

    from assay.view.app import create_app

    app = create_app(store, host=host)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])
