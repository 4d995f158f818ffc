"""How a provider endpoint is configured: the `providers:` block of a config file.

Kept free of SDK imports so the config layer can import it cheaply.
Secrets are never values here: a provider names the environment variable
that holds its key (`api_key_env`), so the resolved config can be stored
and shown without leaking it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from assay.config.urls import http_url

ProviderKind = Literal["anthropic", "openai", "openai_compatible"]

DEFAULT_KEY_ENV: dict[str, str | None] = {
    "anthropic": "ANTHROPIC_API_KEY",
    "openai": "OPENAI_API_KEY",
    "openai_compatible": None,
}
DEFAULT_BASE_URL_ENV: dict[str, str | None] = {
    "anthropic": "ANTHROPIC_BASE_URL",
    "openai": "OPENAI_BASE_URL",
    "openai_compatible": None,
}


class Price(BaseModel):
    """What one model costs, in US dollars per million tokens."""

    model_config = ConfigDict(extra="forbid")

    input_per_mtok: float = Field(ge=0)
    """Dollars per million input (prompt) tokens."""
    output_per_mtok: float = Field(ge=0)
    """Dollars per million output (completion) tokens."""


class ProviderConfig(BaseModel):
    """One LLM endpoint: which wire protocol, where, which key, how hard to push it."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(default="", pattern=r"^[A-Za-z0-9_.-]*$")
    """The prefix of model strings served here: `<name>/<model>`. Under the config's
    `providers:` mapping it defaults to the entry's key."""
    kind: ProviderKind = "openai_compatible"
    """Wire protocol: `anthropic` (Messages API), `openai` or `openai_compatible`
    (Chat Completions; Ollama, vLLM, llama.cpp server, LM Studio)."""
    base_url: str | None = None
    """Endpoint URL; defaults to the SDK's (or `ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL`)."""
    api_key_env: str | None = None
    """Environment variable holding the API key; defaults to `ANTHROPIC_API_KEY` or
    `OPENAI_API_KEY` by kind. An `openai_compatible` server may need none."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Extra HTTP headers sent with every request (treated as secret in errors)."""
    max_connections: int = Field(default=32, ge=1)
    """Most requests in flight to this endpoint at once, shared by targets and judges."""
    timeout: float = Field(default=120.0, gt=0)
    """Seconds before one attempt is abandoned (and retried)."""
    max_retries: int = Field(default=4, ge=0, le=20)
    """Retries after the first attempt on 429, 5xx, timeouts and connection errors."""
    backoff: float = Field(default=1.0, ge=0)
    """Base of the exponential backoff in seconds (jittered, doubled per retry)."""
    max_backoff: float = Field(default=60.0, ge=0)
    """Longest single wait between attempts, also the cap on a server's Retry-After."""
    max_tokens_field: Literal["max_tokens", "max_completion_tokens"] | None = None
    """Chat Completions name of the output limit; default `max_completion_tokens` for
    OpenAI's own endpoint and `max_tokens` for compatible servers."""
    http_backend: Literal["aiohttp", "httpx"] = "aiohttp"
    """The SDK's HTTP client: aiohttp (cheaper per request at high concurrency) or httpx."""
    prices: dict[str, Price] = Field(default_factory=dict)
    """Price per model name (without the provider prefix); overrides the built-in defaults."""

    _base_url_is_http = field_validator("base_url")(
        lambda value: None if value is None else http_url(value))

    def key_env(self) -> str | None:
        return self.api_key_env or DEFAULT_KEY_ENV[self.kind]
