"""The run's providers: found by model string, created on first use, closed once.

    pool = get_pool(services)
    provider, model = pool.resolve("anthropic/claude-sonnet-4-5")
    response = await provider.chat(ChatRequest(model=model, messages=[...]))

A model string is `<provider>/<model>`. `anthropic` and `openai` work from
the environment alone (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`,
`OPENAI_API_KEY`, `OPENAI_BASE_URL`); any other prefix must be a name under
the config's `providers:` (which may also redefine `anthropic` or `openai`).
All providers of a run share one ledger (calls, cache hits, tokens, cost and
the `run.max_cost_usd` budget), one response cache and the endpoint limits.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from assay.errors import UserError
from assay.providers.base import Provider
from assay.providers.cache import ResponseCache
from assay.providers.config import DEFAULT_BASE_URL_ENV, ProviderConfig
from assay.providers.ledger import Ledger, Stats
from assay.providers.limits import EndpointLimits
from assay.providers.pricing import DEFAULT_PRICES

if TYPE_CHECKING:
    from assay.services import Services

BUILT_IN_KINDS = {"anthropic": "anthropic", "openai": "openai"}


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
    ) -> None:
        self.configs = dict(configs or {})
        self.use_cache = use_cache
        self.environ = os.environ if environ is None else environ
        self.ledger = Ledger(max_cost_usd)
        self.cache = ResponseCache(store)
        self.limits = EndpointLimits()
        self._warn = warn
        self._providers: dict[str, Provider] = {}

    # -- finding providers -----------------------------------------------------

    def resolve(self, model_string: str) -> tuple[Provider, str]:
        """The provider for `<provider>/<model>` and the model name it knows."""
        name, sep, model = model_string.partition("/")
        if not sep or not name or not model:
            raise UserError(
                f"model '{model_string}' must be written <provider>/<model>, "
                "e.g. anthropic/claude-sonnet-4-5 or openai/gpt-4.1"
            )
        return self.provider(name), model

    def check(self, model_string: str) -> str | None:
        """Check a model string without opening anything: an unknown provider or a malformed
        string raises `UserError`; a missing API key is returned as a warning (a run needs it,
        a check does not)."""
        name, sep, model = model_string.partition("/")
        if not sep or not name or not model:
            self.resolve(model_string)  # raises the same message a run would
        config = self._config(name)
        try:
            self._api_key(config)
        except UserError as exc:
            return f"{model_string}: {exc}"
        return None

    def provider(self, name: str) -> Provider:
        if name not in self._providers:
            self._providers[name] = self._create(self._config(name))
        return self._providers[name]

    def _config(self, name: str) -> ProviderConfig:
        if name in self.configs:
            return self.configs[name]
        if name in BUILT_IN_KINDS:
            return ProviderConfig(name=name, kind=BUILT_IN_KINDS[name])  # type: ignore[arg-type]
        known = ", ".join(sorted({*BUILT_IN_KINDS, *self.configs}))
        raise UserError(
            f"unknown provider '{name}': use one of {known}, or declare it under `providers:`"
        )

    def _create(self, config: ProviderConfig) -> Provider:
        api_key = self._api_key(config)
        base_url = config.base_url or self._env(DEFAULT_BASE_URL_ENV[config.kind])
        if config.kind == "openai_compatible" and not base_url:
            raise UserError(f"provider '{config.name}' (openai_compatible) needs a base_url")
        prices = {**DEFAULT_PRICES, **config.prices}
        common: dict[str, Any] = dict(
            api_key=api_key, base_url=base_url, limits=self.limits, cache=self.cache,
            ledger=self.ledger, prices=prices, use_cache=self.use_cache, warn=self._warn,
        )
        if config.kind == "anthropic":
            from assay.providers.anthropic import AnthropicProvider

            return AnthropicProvider(config, **common)
        from assay.providers.openai import OpenAIProvider

        return OpenAIProvider(config, **common)

    def _api_key(self, config: ProviderConfig) -> str | None:
        env = config.key_env()
        key = self._env(env)
        if key:
            return key
        custom_endpoint = config.base_url or self._env(DEFAULT_BASE_URL_ENV[config.kind])
        if config.kind == "openai_compatible" and config.api_key_env is None:
            return None
        if config.kind == "openai" and custom_endpoint and config.api_key_env is None:
            return None  # a local OpenAI-compatible server named by OPENAI_BASE_URL
        raise UserError(
            f"provider '{config.name}' needs an API key: set the environment variable {env}"
        )

    def _env(self, name: str | None) -> str | None:
        return (self.environ.get(name) or None) if name else None

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

    async def aclose(self) -> None:
        providers, self._providers = list(self._providers.values()), {}
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
