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
    """The store, read-only, as every reader opens it (`store.open_to_read`): upgraded
    first where it is older and can be written, refused with what to do where it cannot."""
    from assay.store.store import open_to_read

    return open_to_read(url)


def serve(store: Store, sock: socket.socket, *, host: str) -> None:
    """Run the app on a bound socket until interrupted."""
    import uvicorn

    from assay.view.app import create_app

    app = create_app(store, host=host)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])
