"""Endpoint URLs in a config: checked when it is read, not after five failed attempts.

`base_url: 'not a url'` would pass for a string, and each trial would then burn
its retries on a connection that can never be made.
"""

from __future__ import annotations

from urllib.parse import urlsplit


def http_url(value: str) -> str:
    """`value` if it is an http(s) URL with a host; a ValueError saying what is wrong if not.
    A `${VAR}` left unresolved is reported by interpolation, not here."""
    if "${" in value:
        return value
    try:
        parts = urlsplit(value.strip())
        _port = parts.port  # raises on a port that is not a number
    except ValueError as exc:
        raise ValueError(f"{value!r} is not a valid URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{value!r} is not an http:// or https:// URL with a host")
    return value
