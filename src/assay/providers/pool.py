"""The run's providers: found by model string, created on first use, closed once.

    pool = get_pool(services)
    provider, model = pool.resolve("anthropic/claude-sonnet-4-5")
    response = await provider.chat(ChatRequest(model=model, messages=[...]))

A model string is `<provider>/<model>`, named the LiteLLM way (see `routes`):
`anthropic/`, `openai/`, `vertex_ai/`, `bedrock/`, `azure/` and `gemini/`
work from the environment alone (see `endpoints` for the variables each
reads); a name under the config's `providers:` is served as declared (it
may also redefine a built-in name); any other prefix is LiteLLM's provider
of that name, when the `litellm` extra is installed. All providers of a
run share one ledger (calls, cache hits, tokens, cost and the
`run.max_cost_usd` budget), one response cache and the endpoint limits.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import os
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from assay.config.bounds import MAX_TEMPERATURE
from assay.errors import UserError
from assay.providers.base import Provider
from assay.providers.cache import ResponseCache
from assay.providers.config import (
    KIND_MAX_TEMPERATURE,
    PROVIDER_NAME,
    ProviderConfig,
    ProviderKind,
)
from assay.providers.endpoints import Endpoint, Environment, MissingSetting, resolve_endpoint
from assay.providers.ledger import Ledger, Stats
from assay.providers.limits import EndpointLimits
from assay.providers.pricing import DEFAULT_PRICES
from assay.providers.routes import BUILT_IN_ROUTES, route

NO_KEY = "assay-no-key-set"
"""What a provider's client holds in place of a key not set: never sent (see
`ProviderPool._answered_from_cache`)."""

TLS_VARIABLES = ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")
"""Variables the SDKs' HTTP clients (httpx, aiohttp) read their certificates from."""

if TYPE_CHECKING:
    from assay.services import Services

PROVIDER_CLASSES: dict[str, str] = {
    "anthropic": "assay.providers.anthropic:AnthropicProvider",
    "openai": "assay.providers.openai:OpenAIProvider",
    "openai_compatible": "assay.providers.openai:OpenAIProvider",
    "anthropic_vertex": "assay.providers.anthropic_cloud:AnthropicVertexProvider",
    "anthropic_bedrock": "assay.providers.anthropic_cloud:AnthropicBedrockProvider",
    "azure_openai": "assay.providers.azure:AzureOpenAIProvider",
    "gemini": "assay.providers.gemini:GeminiProvider",
    "gemini_vertex": "assay.providers.gemini:GeminiProvider",
    "litellm": "assay.providers.litellm:LiteLLMProvider",
}
"""The class serving each kind, imported when the kind is first used."""


class ProviderPool:
    def __init__(
        self,
        configs: Mapping[str, ProviderConfig] | None = None,
        *,
        store: Any = None,
        use_cache: bool = True,
        max_cost_usd: float | None = None,
        environ: Mapping[str, str] | None = None,
        warn: Any = None,
        keyless_from_cache: bool = False,
    ) -> None:
        self.configs = dict(configs or {})
        self.use_cache = use_cache
        self.keyless_from_cache = keyless_from_cache
        """Whether a provider missing its key may answer from the cache (`Services`)."""
        self.environ = os.environ if environ is None else environ
        self.ledger = Ledger(max_cost_usd)
        self.cache = ResponseCache(store, warn)
        self.limits = EndpointLimits()
        self._warn = warn
        self._providers: dict[tuple[str, str | None], Provider] = {}
        """By (name, kind): `vertex_ai/claude-...` and `vertex_ai/gemini-...` differ in kind."""

    # -- finding providers -----------------------------------------------------

    def resolve(self, model_string: str) -> tuple[Provider, str]:
        """The provider for `<provider>/<model>` and the model name it knows."""
        config, model = self._route(model_string)
        key = (config.name, config.kind)
        if key not in self._providers:
            self._providers[key] = self._create(config)
        return self._providers[key], model

    def configure(self, model_string: str, **settings: Any) -> None:
        """Serve `model_string`'s provider with these `providers:` settings (`timeout=10.0`)
        over its own, as a config's entry for its prefix would; call it before the first use.

        A prefix with no entry keeps the kind it is routed to (a built-in name by model, any
        other LiteLLM's), which an entry of its own would otherwise change."""
        routed, _ = self._route(model_string)
        name = model_string.partition("/")[0]
        declared = self.configs.get(name)
        kind = declared.kind if declared else (None if name in BUILT_IN_ROUTES else routed.kind)
        base = declared.model_dump() if declared else {"name": name}
        self.configs[name] = ProviderConfig.model_validate({**base, **settings, "kind": kind})

    def validate_model(self, model_string: str) -> str | None:
        """Check a model string without calling anything: an unknown provider, a malformed
        string or a missing extra raises `UserError`; a setting the environment lacks (a key,
        a region) is returned as a warning (a run needs it, a check does not)."""
        config, model = self._route(model_string)
        try:
            resolve_endpoint(config, Environment(self.environ))
        except MissingSetting as exc:
            if self._cache_answers(config, exc):
                return (f"{model_string}: {exc}; the response cache holds replies of "
                        f"'{config.name}', so a run goes on with them, and stops at the first "
                        "call it does not hold")
            return f"{model_string}: {exc}"
        if config.kind == "litellm" and not config.api_key_env:
            return _litellm_missing_keys(config, model_string, model)
        return None

    def max_temperature(self, model_string: str) -> float:
        """The highest temperature the API serving `model_string` accepts."""
        config, _ = self._route(model_string)
        return KIND_MAX_TEMPERATURE.get(config.kind or "", MAX_TEMPERATURE)

    def _route(self, model_string: str) -> tuple[ProviderConfig, str]:
        """The config (its kind decided) serving a model string, and the model name it knows."""
        name, sep, model = model_string.partition("/")
        if not sep or not name or not model:
            raise UserError(
                f"model '{model_string}' must be written <provider>/<model>, "
                "e.g. anthropic/claude-sonnet-4-5 or openai/gpt-4.1"
            )
        if not re.fullmatch(PROVIDER_NAME, name):
            raise UserError(
                f"model '{model_string}': the provider '{name}' may hold only letters, "
                "digits, '_', '.' and '-', e.g. anthropic/claude-sonnet-4-5 or openai/gpt-4.1")
        config = self.configs.get(name) or ProviderConfig(name=name)
        if config.kind is not None:
            return config, model
        kind: ProviderKind
        routed = route(name, model)
        if routed is not None:
            kind, model = routed
        elif name in self.configs:
            kind = "openai_compatible"
        else:
            kind = "litellm"
            self._require_litellm_provider(name)
        return config.model_copy(update={"kind": kind}), model

    def _require_litellm_provider(self, name: str) -> None:
        """Any other prefix is LiteLLM's provider of that name, when LiteLLM knows it."""
        known = sorted({*BUILT_IN_ROUTES, *self.configs})
        hint = difflib.get_close_matches(name, known, n=1)
        unknown = (f"unknown provider '{name}'" + (f" (did you mean '{hint[0]}'?)" if hint else "")
                   + f": use one of {', '.join(known)}, or declare it under `providers:`")
        if importlib.util.find_spec("litellm") is None:
            raise UserError(f"{unknown}; LiteLLM's providers need "
                            "pip install 'assay-eval[litellm]'")
        from assay.providers.litellm import load_litellm

        if name not in load_litellm().provider_list:
            raise UserError(f"{unknown}; LiteLLM knows no provider of that name either")

    def _create(self, config: ProviderConfig) -> Provider:
        assert config.kind is not None
        missing_key = None
        try:
            endpoint = resolve_endpoint(config, Environment(self.environ))
        except MissingSetting as exc:
            exc.provider = config.name
            if not self._cache_answers(config, exc):
                raise
            endpoint, missing_key = _answered_from_cache(exc)
        module, _, class_name = PROVIDER_CLASSES[config.kind].partition(":")
        provider_class = getattr(importlib.import_module(module), class_name)
        try:
            provider: Provider = provider_class(
                config, api_key=endpoint.api_key, base_url=endpoint.base_url,
                limits=self.limits, cache=self.cache, ledger=self.ledger,
                prices={**DEFAULT_PRICES, **config.prices}, use_cache=self.use_cache,
                warn=self._warn, **endpoint.options)
        except OSError as exc:  # the SDK's HTTP client reads the certificates named here
            raise UserError(self._tls_problem(config, exc)) from None
        if missing_key is not None:
            provider.missing_key = missing_key  # type: ignore[attr-defined]
        return provider

    def _cache_answers(self, config: ProviderConfig, exc: MissingSetting) -> bool:
        """Whether a provider lacking `exc`'s setting may still be used: an API key is all it
        lacks, and the response cache holds replies of it."""
        return (self.keyless_from_cache and exc.keyless is not None and self.use_cache
                and self.cache.holds(config.name))

    def _tls_problem(self, config: ProviderConfig, exc: OSError) -> str:
        """Why the client could not be set up, naming the certificate variable at fault."""
        reason = exc.strerror or str(exc) or type(exc).__name__
        settings = {name: self.environ[name] for name in TLS_VARIABLES if self.environ.get(name)}
        missing = {name: path for name, path in settings.items() if not os.path.exists(path)}
        named = [f"{name}={path}" for name, path in (missing or settings).items()]
        where = (f"check {', '.join(named)}" if named
                 else "the system's certificates could not be read")
        return f"cannot set up the {config.kind} provider's HTTPS client: {reason}; {where}"

    # -- what the run spent ----------------------------------------------------

    def stats(self) -> Stats:
        """Calls, cache hits, tokens, cost, retries and failures so far, total and per model."""
        return self.ledger.snapshot()

    def spent_usd(self) -> float:
        """Dollars spent on priced calls so far in this run (cache hits cost nothing)."""
        return self.ledger.spent_usd

    def set_budget(self, max_cost_usd: float | None) -> None:
        """Refuse new paid calls (RunFailed) once the spend reaches `max_cost_usd`."""
        self.ledger.max_cost_usd = max_cost_usd

    def count_spent_before(self, dollars: float) -> None:
        """A resumed run's stored spend counts toward its budget (the run's, not the
        process's)."""
        self.ledger.spent_before = dollars

    async def aclose(self) -> None:
        """Store the replies the cache still holds, then close every provider's client."""
        providers, self._providers = list(self._providers.values()), {}
        try:
            self.cache.close()
        finally:
            for provider in providers:
                await provider.aclose()


def get_pool(services: Services) -> ProviderPool:
    """The run's pool, created on first use from the config and the environment."""
    if services.providers is None:
        config = services.config
        services.providers = ProviderPool(
            _provider_configs(config.providers if config is not None else None),
            store=services.store,
            use_cache=services.use_cache,
            max_cost_usd=config.run.max_cost_usd if config is not None else None,
            warn=services.warn,
            keyless_from_cache=services.keyless_from_cache,
        )
    return services.providers


def _provider_configs(block: Any) -> dict[str, ProviderConfig]:
    """The config's `providers:` mapping as name -> ProviderConfig (the key names it)."""
    configs: dict[str, ProviderConfig] = {}
    for key, item in (block or {}).items():
        config = item if isinstance(item, ProviderConfig) else ProviderConfig.model_validate(
            dict(item or {}))
        configs[key] = config.model_copy(update={"name": config.name or key})
    return configs


def _answered_from_cache(exc: MissingSetting) -> tuple[Endpoint, str]:
    """The endpoint of a provider whose API key is not set, though the response cache holds
    its replies (a CI job re-running from a warm cache, without secrets), and why it can
    make no call: its client gets a stand-in that no request ever carries, since a call the
    cache does not hold stops the run before it is sent."""
    assert exc.keyless is not None
    endpoint = replace(exc.keyless, api_key=NO_KEY)
    return endpoint, f"{exc.needs} to make it: {exc.remedy}"


def _litellm_missing_keys(config: ProviderConfig, model_string: str, model: str) -> str | None:
    """A warning naming the variables LiteLLM will look for and not find, if any."""
    from assay.providers.litellm import load_litellm

    name = model if config.name == "litellm" else f"{config.name}/{model}"
    missing = load_litellm().validate_environment(model=name).get("missing_keys") or []
    if not missing:
        return None
    return f"{model_string}: LiteLLM needs the environment variable(s) {', '.join(missing)}"
