"""Cookies looked for only in the responses that set one.

httpx (and httpx2, the anthropic SDK's fork of it) hands every response to
the client's cookie jar, which first copies the request's and the
response's headers into urllib's compatibility objects, then finds no
`Set-Cookie` header: about 6% of the CPU of a judged run, for LLM APIs whose
answers seldom set a cookie. The SDKs' clients get a jar of the same class
that does that work only when a response has a `Set-Cookie` header, so a
cookie a server sets is kept and sent back exactly as before.
"""

from __future__ import annotations

from typing import Any


def look_for_cookies_only_when_set(client: Any) -> None:
    """Give `client` (an SDK's httpx or httpx2 `AsyncClient`) such a jar, its cookies kept."""
    # both keep the jar in `_cookies`; their public setter would copy it into a plain one
    jar = type(client.cookies)
    if jar not in _WHEN_SET:
        _WHEN_SET[jar] = _when_set(jar)
    client._cookies = _WHEN_SET[jar](client.cookies)


_WHEN_SET: dict[type, type] = {}
"""The jar class made for each client's jar class (httpx's, httpx2's)."""


def _when_set(jar: type) -> type:
    """A subclass of `jar` skipping the responses that set no cookie."""

    class CookiesWhenSet(jar):  # type: ignore[misc]
        def extract_cookies(self, response: Any) -> None:
            if "set-cookie" in response.headers:
                super().extract_cookies(response)

    return CookiesWhenSet
