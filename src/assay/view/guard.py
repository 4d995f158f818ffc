"""What every request passes first: read-only methods, a known Host, and safe headers.

The app listens on a local port, which any web page the reader has open
could try to reach. Two things stop that: only GET and HEAD are served
(nothing can change), and the Host header must name the address the app
is bound to (or localhost), which defeats DNS rebinding, where a hostile
name is made to resolve to 127.0.0.1. Bound to every address (0.0.0.0), it
answers to any address too: a request to an address names no hostile name,
and other machines reach it by this machine's address. Every response carries a Content
Security Policy that allows only the app's own scripts and styles, so even
a payload that slipped past escaping would not run.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from typing import Any

from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

READ_METHODS = frozenset({"GET", "HEAD"})
LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")
ANY_ADDRESS = ("0.0.0.0", "::", "")
"""The addresses that bind every interface: an app bound to one answers to any address."""
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy",
     (b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
      b"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-resource-policy", b"same-origin"),
)


def allowed_hosts(host: str) -> list[str]:
    """The Host names an app bound to `host` answers to: the bound address, localhost, and
    this machine's names when bound to every address (`Guard` then answers to any address
    as well)."""
    names = [host, *LOCAL_NAMES]
    if host in ANY_ADDRESS:
        names += [socket.gethostname(), socket.getfqdn()]
    return list(dict.fromkeys(n for n in names if n))


def is_address(name: str) -> bool:
    """Whether a Host names an IP address (`192.0.2.7`, `::1`), not a name."""
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def host_name(header: str) -> str:
    """The name in a Host header, without its port: `[::1]:8000` -> `::1`."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class Guard:
    """ASGI middleware: refuse writes and unknown hosts, add the security headers."""

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str], *,
                 any_address: bool = False) -> None:
        """`any_address`: the app is bound to every address, so a Host that is an address
        is served too."""
        self.app = app
        self.allowed = frozenset(name.lower().strip("[]") for name in allowed_hosts)
        self.any_address = any_address

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        host = host_name(headers.get(b"host", b"").decode("latin-1"))
        refusal = None
        if host not in self.allowed and not (self.any_address and is_address(host)):
            also = " and any address" if self.any_address else ""
            refusal = PlainTextResponse(
                f"unknown host {host!r}: assay view answers to "
                f"{', '.join(sorted(self.allowed))}{also} only", status_code=421)
        elif scope["method"] not in READ_METHODS:
            refusal = PlainTextResponse("assay view is read-only", status_code=405,
                                        headers={"Allow": "GET, HEAD"})
        target: Any = refusal if refusal is not None else self.app

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message,
                           "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await send(message)

        await target(scope, receive, send_with_headers)
