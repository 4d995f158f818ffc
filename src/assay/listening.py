"""A listening socket bound before a server starts, for `assay view` and `assay pack serve`.

Binding first turns a port that is taken (or not ours to use) into one clear
line before anything slow happens, and the server then serves on that very
socket: checking a port and letting the server bind it again later would leave
a moment in which another process could take it.
"""

from __future__ import annotations

import socket


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
