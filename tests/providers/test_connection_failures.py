"""An endpoint that cannot be reached says so, quickly, and is never called a timeout.

Regression: on the aiohttp backend a refused connection read
"timed out after 120s (gave up after 5 attempts)", because the transport
labels every aiohttp connection error a ConnectTimeout.
"""

from __future__ import annotations

import asyncio
import random
import socket
import time
from collections.abc import Iterator

import pytest

from assay.providers.base import ChatRequest
from assay.providers.config import ProviderConfig
from assay.providers.failures import CallFailure, ProviderError
from assay.providers.pool import ProviderPool
from assay.providers.retry import RetryPolicy
from assay.providers.transport import safe_endpoint
from assay.testing import FakeLLM, Fault, Reply, Rule

KINDS = ["anthropic", "openai"]
BACKENDS = ["aiohttp", "httpx"]
KEY = "sk-test-connection-0123456789"


@pytest.fixture
def refusing_port() -> Iterator[int]:
    """A port that is bound but not listening: every connection to it is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def fail_once(kind: str, base_url: str, **settings: object) -> tuple[ProviderError, float, int]:
    """The error of one chat call against `base_url`, the seconds it took, and the retries."""
    settings = {"backoff": 0.001, "max_backoff": 1.0, "max_retries": 2, **settings}
    config = ProviderConfig(name=kind, kind=kind, base_url=base_url, **settings)  # type: ignore[arg-type]

    async def scenario() -> tuple[ProviderError, float, int]:
        pool = ProviderPool({kind: config},
                            environ={"ANTHROPIC_API_KEY": KEY, "OPENAI_API_KEY": KEY})
        provider, model = pool.resolve(f"{kind}/some-model")
        started = time.perf_counter()
        with pytest.raises(ProviderError) as caught:
            await provider.chat(ChatRequest(model=model, messages=[
                {"role": "user", "content": "hello"}]))
        elapsed = time.perf_counter() - started
        await pool.aclose()
        return caught.value, elapsed, pool.stats().total.retries

    return asyncio.run(scenario())


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", KINDS)
def test_a_refused_connection_is_a_connection_failure_not_a_timeout(kind, backend,
                                                                    refusing_port):
    endpoint = f"http://127.0.0.1:{refusing_port}/v1"
    error, _, retries = fail_once(kind, endpoint, http_backend=backend)
    assert error.kind == "connection" and error.status is None
    assert f"connection failed: {endpoint}: connection refused" in str(error)
    assert "timed out" not in str(error)
    assert retries == 2 and "gave up after 3 attempts" in str(error)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_unresolvable_host_is_a_connection_failure(backend):
    error, _, _ = fail_once("openai", "http://no-such-host.invalid/v1", http_backend=backend,
                            max_retries=0)
    assert error.kind == "connection"
    assert "connection failed: http://no-such-host.invalid/v1: host name not resolved" in str(error)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", KINDS)
def test_a_server_that_hangs_up_is_a_connection_failure(kind, backend):
    async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1)
        writer.close()

    async def serve_and_fail() -> ProviderError:
        server = await asyncio.start_server(hang_up, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            return await asyncio.to_thread(
                lambda: fail_once(kind, f"http://127.0.0.1:{port}", http_backend=backend,
                                  max_retries=0)[0])

    error = asyncio.run(serve_and_fail())
    assert error.kind == "connection"
    assert "connection failed: http://127.0.0.1:" in str(error) and "timed out" not in str(error)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_real_timeout_is_still_a_timeout(backend):
    rules = [Rule(reply=Reply(fault=Fault("timeout", hang_seconds=30)))]

    async def scenario() -> ProviderError:
        async with FakeLLM(rules) as llm:
            return await asyncio.to_thread(
                lambda: fail_once("openai", llm.base_url, http_backend=backend, timeout=0.2,
                                  max_retries=0)[0])

    error = asyncio.run(scenario())
    assert error.kind == "timeout" and "timed out after 0.2s" in str(error)


def test_other_failures_say_their_kind():
    rules = [Rule(user="hello", reply=Reply(fault=Fault("server_error")))]

    async def scenario() -> ProviderError:
        async with FakeLLM(rules) as llm:
            return await asyncio.to_thread(lambda: fail_once("openai", llm.base_url)[0])

    error = asyncio.run(scenario())
    assert error.kind == "status" and error.status == 500


def test_a_refused_connection_does_not_wait_out_a_long_backoff(refusing_port):
    # With backoff 4s the waits before retries 1 and 2 would be 2-4s and 4-8s;
    # a connection failure waits at most a second each time.
    error, elapsed, retries = fail_once("openai", f"http://127.0.0.1:{refusing_port}/v1",
                                        backoff=4.0, max_backoff=60.0, max_retries=2)
    assert error.kind == "connection" and retries == 2
    assert elapsed < 2 * RetryPolicy().connection_backoff + 0.5


def test_connection_waits_are_capped_while_other_waits_grow():
    policy = RetryPolicy(max_retries=10, backoff=1.0, max_backoff=60.0)
    rng = random.Random(0)
    refused = CallFailure("connection failed", True, kind="connection")
    busy = CallFailure("HTTP 503", True, status=503)
    assert all(policy.delay(retry, refused, rng) <= policy.connection_backoff
               for retry in range(1, 11))
    assert policy.delay(6, busy, rng) >= 16.0  # 2**5 halved by the jitter, at least


def test_the_endpoint_in_a_message_carries_no_credentials():
    assert (safe_endpoint("https://user:sk-secret-9999@llm.example:8443/v1?key=abc#x")
            == "https://llm.example:8443/v1")
    assert safe_endpoint("http://127.0.0.1:9/v1") == "http://127.0.0.1:9/v1"


def test_a_connection_error_names_no_secret_from_the_url(refusing_port):
    url = f"http://team:{KEY}@127.0.0.1:{refusing_port}/v1"
    error, _, _ = fail_once("openai", url, max_retries=0)
    assert KEY not in str(error) and "team" not in str(error)
    assert f"http://127.0.0.1:{refusing_port}/v1" in str(error)
