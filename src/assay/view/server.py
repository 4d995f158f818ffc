"""Serving the viewer: open the store for reading, bind a local address, run uvicorn."""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING

from assay.view.guard import LOCAL_NAMES

if TYPE_CHECKING:
    from assay.store import Store

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8321
ANY_ADDRESS = ("0.0.0.0", "::", "")


def open_for_viewing(url: str | None) -> Store:
    """The store, read-only; a store made by an older assay is first upgraded in place,
    as any assay command that opens it would (the viewer itself never writes)."""
    from assay.store import Store
    from assay.store.migrations import SCHEMA_VERSION, current_version

    store = Store(url, read_only=True)
    with store.engine.connect() as conn:
        behind = current_version(conn) < SCHEMA_VERSION
    if behind:
        store.close()
        Store(url).close()
        store = Store(url, read_only=True)
    return store


def allowed_hosts(host: str) -> list[str]:
    """The Host names the app answers to: the bound address, localhost, and this machine's
    names when bound to every address."""
    names = [host, *LOCAL_NAMES]
    if host in ANY_ADDRESS:
        names += [socket.gethostname(), socket.getfqdn()]
    return list(dict.fromkeys(n for n in names if n))


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0 picks a free one); a clear error if taken."""
    from assay.errors import UserError

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named, so asyncio turns Nagle off on each connection (TCP_NODELAY); a
    # protocol of 0 leaves it on and every response on a kept-alive connection waits 40 ms.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise UserError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(128)
    return sock


def address(sock: socket.socket) -> str:
    """`http://127.0.0.1:8321/` for a bound socket."""
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def serve(store: Store, sock: socket.socket, *, host: str) -> None:
    """Run the app on a bound socket until interrupted."""
    import uvicorn

    from assay.view.app import create_app

    app = create_app(store, allowed_hosts=allowed_hosts(host))
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])
