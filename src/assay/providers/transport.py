"""Why a request got no HTTP answer: a timeout, or no connection at all.

The SDKs wrap every transport error as `APITimeoutError` or
`APIConnectionError`, and their labels are not to be trusted: the aiohttp
transport maps any aiohttp connection error, a refused connection
included, to `httpx.ConnectTimeout`, so a server that is simply not
running would read as "timed out after 120s". The root cause, at the
bottom of the exception chain, is what decides.
"""

from __future__ import annotations

import socket
import sys
from urllib.parse import urlsplit, urlunsplit

from assay.providers.failures import CallFailure
from assay.redaction import redact

_MAX_CHAIN = 16
"""How deep the cause chain is followed (chains are short; this only bounds a cycle)."""


def transport_failure(exc: BaseException, *, endpoint: str, timeout: float,
                      sdk_says_timeout: bool, secrets: list[str | None]) -> CallFailure:
    """The retryable failure for a request that never got an HTTP answer."""
    for link in reversed(_chain(exc)):
        if isinstance(link, TimeoutError):  # also asyncio's and aiohttp's timeouts
            return _timed_out(timeout)
        reason = _connection_reason(link)
        if reason is not None:
            return connection_failure(endpoint, redact(reason, secrets))
    if sdk_says_timeout:
        return _timed_out(timeout)
    return connection_failure(endpoint, redact(str(exc.__cause__ or exc), secrets))


def connection_failure(endpoint: str, reason: str) -> CallFailure:
    return CallFailure(f"connection failed: {safe_endpoint(endpoint)}: {reason}", True,
                       kind="connection")


def safe_endpoint(url: str) -> str:
    """The URL without user info, query or fragment: those may carry credentials."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable endpoint URL>"
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def _timed_out(timeout: float) -> CallFailure:
    return CallFailure(f"timed out after {timeout:g}s", True, kind="timeout")


def _chain(exc: BaseException) -> list[BaseException]:
    """`exc` and its causes, outermost first."""
    links: list[BaseException] = []
    link: BaseException | None = exc
    while link is not None and len(links) < _MAX_CHAIN and link not in links:
        links.append(link)
        link = link.__cause__ or link.__context__
    return links


def _connection_reason(link: BaseException) -> str | None:
    """A short reason when `link` is a failure to connect or stay connected, else None."""
    if isinstance(link, ConnectionRefusedError):
        return "connection refused (is the server running, and is this its address?)"
    if isinstance(link, socket.gaierror):
        return f"host name not resolved ({link.strerror or link})"
    if isinstance(link, ConnectionResetError):
        return "connection reset by the server"
    if isinstance(link, OSError) and link.errno is not None:
        return link.strerror or str(link)
    aiohttp = sys.modules.get("aiohttp")  # loaded only when the aiohttp backend is in use
    if aiohttp is not None and isinstance(link, aiohttp.ServerDisconnectedError):
        return "the server closed the connection before answering"
    if aiohttp is not None and isinstance(link, aiohttp.ClientConnectionError):
        return str(link) or type(link).__name__
    return None
