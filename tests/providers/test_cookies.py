"""A cookie jar that reads only the responses that set a cookie, for both SDKs' clients."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import httpx2
import pytest

from assay.providers.cookies import look_for_cookies_only_when_set

CLIENTS = [httpx, httpx2]  # the openai SDK's, and the anthropic SDK's fork


def client_with(module: Any, handler: Any) -> Any:
    client = module.AsyncClient(transport=module.MockTransport(handler))
    look_for_cookies_only_when_set(client)
    return client


@pytest.mark.parametrize("module", CLIENTS, ids=lambda m: m.__name__)
def test_a_cookie_the_server_sets_is_sent_back(module: Any) -> None:
    sent: list[str | None] = []

    def handler(request: Any) -> Any:
        sent.append(request.headers.get("cookie"))
        return module.Response(200, headers={"set-cookie": "session=abc; Path=/"}, json={})

    async def scenario() -> None:
        async with client_with(module, handler) as client:
            await client.get("http://api.example/v1/one")
            await client.get("http://api.example/v1/two")

    asyncio.run(scenario())
    assert sent == [None, "session=abc"]


@pytest.mark.parametrize("module", CLIENTS, ids=lambda m: m.__name__)
def test_a_response_that_sets_no_cookie_is_not_copied_for_the_jar(
        module: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The copy of every request's headers into urllib's objects was 6% of a judged run."""

    def copied(*_args: Any) -> None:
        raise AssertionError("the headers were copied for the cookie jar")

    monkeypatch.setattr(module.Cookies, "_CookieCompatRequest", copied)

    async def scenario() -> int:
        async with client_with(module, lambda request: module.Response(200, json={})) as client:
            return (await client.get("http://api.example/v1/one")).status_code

    assert asyncio.run(scenario()) == 200


def test_both_providers_sdk_clients_get_the_jar(make_pool: Any) -> None:
    from assay.testing import FakeLLM

    async def scenario() -> list[str]:
        async with FakeLLM(default="4") as llm:
            pool = make_pool(llm)
            jars = [type(pool.resolve(model)[0].client._client.cookies).__name__
                    for model in ("openai/gpt-4.1", "anthropic/claude-haiku-4-5")]
            await pool.aclose()
            return jars

    assert asyncio.run(scenario()) == ["CookiesWhenSet", "CookiesWhenSet"]
