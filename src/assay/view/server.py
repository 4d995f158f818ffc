"""Serving the viewer: open the store for reading, run uvicorn on a bound socket
(`assay.listening`)."""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING

from assay.view.guard import LOCAL_NAMES

if TYPE_CHECKING:
    from assay.store import Store

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8321
ANY_ADDRESS = ("0.0.0.0", "::", "")
"""The addresses that bind every interface: an app bound to one answers to any address."""


def open_for_viewing(url: str | None) -> Store:
    """The store, read-only; a store made by an older assay is first upgraded in place,
    as any assay command that opens it would (the viewer itself never writes)."""
    from assay.store import Store
    from assay.store.migrations import SCHEMA_VERSION, current_version, refuse_newer

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


def allowed_hosts(host: str) -> list[str]:
    """The Host names the app answers to: the bound address, localhost, and this machine's
    names when bound to every address (`Guard` then answers to any address as well)."""
    names = [host, *LOCAL_NAMES]
    if host in ANY_ADDRESS:
        names += [socket.gethostname(), socket.getfqdn()]
    return list(dict.fromkeys(n for n in names if n))


def serve(store: Store, sock: socket.socket, *, host: str) -> None:
    """Run the app on a bound socket until interrupted."""
    import uvicorn

    from assay.view.app import create_app

    app = create_app(store, allowed_hosts=allowed_hosts(host),
                     any_address=host in ANY_ADDRESS)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])
