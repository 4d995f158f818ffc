"""The call path every SDK provider shares: cache, budget, limit, retry, cost.

    chat(request)
      -> cache hit?            return it (no HTTP, counted as a cache hit); an
                               identical request in flight is waited for, then hit
      -> budget left?          else RunFailed
      -> endpoint semaphore    at most max_connections in flight
      -> bounded retries       429 / 5xx / timeout / connection / malformed body
                               (a failed connection waits briefly: see RetryPolicy)
      -> price the usage       from the price table; unknown stays unknown
      -> cache the answer

Subclasses only translate between the neutral types and their SDK
(`_send`) and say which SDK exceptions are which (`_sdk`).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

from assay.errors import RunFailed
from assay.providers.base import ChatRequest, ChatResponse
from assay.providers.cache import ResponseCache, cache_key, is_cacheable
from assay.providers.config import Price, ProviderConfig
from assay.providers.cookies import look_for_cookies_only_when_set
from assay.providers.failures import (
    CallFailure,
    ProviderError,
    parse_retry_after,
    status_failure,
)
from assay.providers.ledger import Ledger
from assay.providers.limits import EndpointLimits
from assay.providers.pricing import cost_usd, find_price
from assay.providers.retry import RetryPolicy, call_with_retries
from assay.providers.transport import transport_failure
from assay.redaction import redact
from assay.wording import plural


class SDKProvider:
    """A provider endpoint on an official SDK. See the module docstring for the path."""

    default_endpoint = ""

    def __init__(
        self,
        config: ProviderConfig,
        *,
        api_key: str | None,
        base_url: str | None,
        limits: EndpointLimits,
        cache: ResponseCache,
        ledger: Ledger,
        prices: Mapping[str, Price],
        use_cache: bool = True,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self.name = config.name
        self.config = config
        self.endpoint = base_url or self.default_endpoint
        self.cache = cache
        self.ledger = ledger
        self.prices = prices
        self.use_cache = use_cache
        self.policy = RetryPolicy(config.max_retries, config.backoff, config.max_backoff)
        self._limit = limits.for_endpoint(self.endpoint, config.max_connections)
        self._secrets = [api_key, *config.headers.values()]
        self._warn = warn or (lambda message: None)
        self._unpriced: set[str] = set()
        self._unreported: set[str] = set()
        self._price_of: dict[str, Price | None] = {}
        """`find_price` per model name, looked up once: it scans the table by prefix."""
        self._rng = random.Random()
        self.missing_key: str | None = None
        """Why no call can be made (the API key is not set), when only cached replies can
        be given: a call the cache does not hold stops the run, saying so."""

    # -- for subclasses ------------------------------------------------------

    _sdk: ModuleType
    """The SDK module whose exception classes `_classify` recognises."""

    async def _send(self, request: ChatRequest) -> ChatResponse:
        raise NotImplementedError

    async def aclose(self) -> None:
        raise NotImplementedError

    def _client_settings(self, aiohttp: Callable[[], Any],
                         httpx: Callable[[], Any]) -> dict[str, Any]:
        """What every SDK client is built with: the timeout, no retries of the SDK's (ours
        are the only ones, and bounded), the configured headers, and an HTTP client of the
        configured backend (the SDK's `aiohttp` or `httpx` one) whose cookie jar looks only
        at the responses that set a cookie."""
        http_client = aiohttp() if self.config.http_backend == "aiohttp" else httpx()
        look_for_cookies_only_when_set(http_client)
        return {"timeout": self.config.timeout, "max_retries": 0,
                "default_headers": self.config.headers or None, "http_client": http_client}

    # -- the call path -------------------------------------------------------

    async def chat(self, request: ChatRequest, *, use_cache: bool = True) -> ChatResponse:
        label = f"{self.name}/{request.model}"
        if not (use_cache and self.use_cache and is_cacheable(request)):
            return await self._call(label, request, None)
        key = cache_key(self.name, self.endpoint, request)
        async with self.cache.single_flight(key) as hit:
            if hit is not None:  # not `cached`: a call an earlier process of the run paid for
                self.ledger.record(label, hit.usage, paid_before=not hit.cached)
                return hit
            return await self._call(label, request, key)

    async def _call(self, label: str, request: ChatRequest, key: str | None) -> ChatResponse:
        """Budget, retries, pricing, and the answer cached under `key` (None: not cached)."""
        if self.missing_key is not None:
            self.ledger.record_failure(label)
            raise RunFailed(f"{label}: the response cache holds no reply to this call, and "
                            f"{self.missing_key}; the run is stopped")
        self.ledger.check_budget()
        try:
            response = await call_with_retries(
                lambda: self._attempt(request), self.policy, label=label,
                on_retry=lambda failure: self.ledger.record_retry(label), rng=self._rng,
            )
        except CallFailure as failure:
            self.ledger.record_failure(label)
            raise self._final_error(label, failure) from None
        self._price(label, request.model, response)
        self.ledger.record(label, response.usage)
        if key is not None:
            self.cache.put(key, response, provider=self.name, model=request.model)
        return response

    async def _attempt(self, request: ChatRequest) -> ChatResponse:
        async with self._limit:
            started = time.perf_counter()
            try:
                response = await self._send(request)
            except (self._sdk.APIError, json.JSONDecodeError, UnicodeDecodeError,
                    RecursionError) as exc:  # the last three: a body that is not JSON
                raise self._classify(exc) from None
            response.latency_ms = (time.perf_counter() - started) * 1000
            return response

    def _classify(self, exc: Exception) -> CallFailure:
        sdk = self._sdk
        if isinstance(exc, sdk.APIStatusError):
            detail = redact(_error_detail(exc), self._secrets)
            return status_failure(exc.status_code, detail, parse_retry_after(exc.response.headers))
        if isinstance(exc, sdk.APIConnectionError):  # APITimeoutError is one too
            return transport_failure(exc, endpoint=self.endpoint, timeout=self.config.timeout,
                                     sdk_says_timeout=isinstance(exc, sdk.APITimeoutError),
                                     secrets=self._secrets)
        if isinstance(exc, json.JSONDecodeError | UnicodeDecodeError | RecursionError
                      | sdk.APIResponseValidationError):
            return CallFailure("malformed response body (not the JSON the API promises)", True,
                               kind="malformed")
        return CallFailure(redact(f"{type(exc).__name__}: {exc}", self._secrets), False)

    def _final_error(self, label: str, failure: CallFailure) -> Exception:
        if failure.status == 401:
            env = self.config.key_env()
            where = f"the key in ${env}" if env else "the provider's credentials"
            return RunFailed(f"{label}: {failure.reason}. Check {where}; the run is stopped.")
        attempts = self.policy.max_retries + 1
        tail = f" (gave up after {plural(attempts, 'attempt')})" if failure.retryable else ""
        return ProviderError(f"{label}: {failure.reason}{tail}", status=failure.status,
                             kind=failure.kind)

    def _price(self, label: str, model: str, response: ChatResponse) -> None:
        usage = response.usage
        usage.calls = 1
        if model not in self._price_of:
            self._price_of[model] = find_price(model, self.prices)
        price = self._price_of[model]
        if not response.usage_reported:  # no tokens to price: unknown, never $0
            usage.cost_usd = None
            if label not in self._unreported:
                self._unreported.add(label)
                self._warn(f"{label} sent no token usage: its tokens and cost are unknown "
                           "and not counted toward run.max_cost_usd")
            return
        usage.cost_usd = cost_usd(price, usage.input_tokens, usage.output_tokens)
        if price is None and label not in self._unpriced:
            self._unpriced.add(label)
            self._warn(f"no price known for {label}: its cost is unknown and not counted "
                       f"toward run.max_cost_usd; add it under the provider's `prices:`")


def _error_detail(exc: Any) -> str:
    """The API's own error message when the body has one, else the SDK's text."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
    return str(getattr(exc, "message", "") or exc)
