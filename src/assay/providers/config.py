"""How a provider endpoint is configured: the `providers:` block of a config file.

Kept free of SDK imports so the config layer can import it cheaply.
Secrets are never values here: a provider names the environment variable
that holds its key (`api_key_env`), so the resolved config can be stored
and shown without leaking it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from assay.config.bounds import MAX_CONCURRENCY, MAX_RETRIES, MAX_SECONDS
from assay.config.config_model import ConfigModel
from assay.config.urls import http_url

ProviderKind = Literal["anthropic", "openai", "openai_compatible", "anthropic_vertex",
                       "anthropic_bedrock", "azure_openai", "gemini", "gemini_vertex", "litellm"]

KIND_MAX_TEMPERATURE: dict[str, float] = {
    "anthropic": 1.0, "anthropic_vertex": 1.0, "anthropic_bedrock": 1.0,
}
"""Kinds whose API refuses a temperature over 1 (Claude's range is 0 to 1, not 0 to 2): a
config asking more is refused by `assay validate` rather than by every call of the run."""

DEFAULT_KEY_ENV: dict[str, str | None] = {
    "anthropic": "ANTHROPIC_API_KEY",
    "openai": "OPENAI_API_KEY",
    "openai_compatible": None,
    "anthropic_vertex": "GOOGLE_OAUTH_ACCESS_TOKEN",
    "gemini_vertex": "GOOGLE_OAUTH_ACCESS_TOKEN",
    "anthropic_bedrock": None,
    "azure_openai": "AZURE_OPENAI_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "litellm": None,
}
"""The variable named when a key is missing or refused (see `endpoints` for every one read)."""


class Price(ConfigModel):
    """What one model costs, in US dollars per million tokens."""

    input_per_mtok: float = Field(ge=0, allow_inf_nan=False)
    """Dollars per million input (prompt) tokens."""
    output_per_mtok: float = Field(ge=0, allow_inf_nan=False)
    """Dollars per million output (completion) tokens."""


PROVIDER_NAME = r"^[A-Za-z0-9_.-]*$"
"""What a provider's name (a model string's prefix) may hold."""


class ProviderConfig(ConfigModel):
    """One LLM endpoint: which wire protocol, where, which key, how hard to push it."""

    name: str = Field(default="", pattern=PROVIDER_NAME)
    """The prefix of model strings served here: `<name>/<model>`. Under the config's
    `providers:` mapping it defaults to the entry's key."""
    kind: ProviderKind | None = None
    """Wire protocol and SDK: `anthropic` (Messages API), `openai` or `openai_compatible`
    (Chat Completions; Ollama, vLLM, llama.cpp server, LM Studio), `anthropic_vertex`,
    `anthropic_bedrock`, `azure_openai`, `gemini`, `gemini_vertex` or `litellm`. Left out,
    a built-in name (`vertex_ai`, `bedrock`, `azure`, `gemini`, ...) picks the kind by model,
    and any other name is `openai_compatible`."""
    base_url: str | None = None
    """Endpoint URL; defaults to the SDK's, or the environment variable it reads
    (`ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL`, `AZURE_OPENAI_ENDPOINT`, ...)."""
    api_key_env: str | None = None
    """Environment variable holding the API key (or access token); defaults to the one the
    kind's SDK reads, e.g. `ANTHROPIC_API_KEY`. An `openai_compatible` server may need none."""
    region: str | None = None
    """Cloud region: Vertex AI's location or Bedrock's AWS region (default: the environment's,
    e.g. `CLOUD_ML_REGION`, `VERTEXAI_LOCATION`, `AWS_REGION`)."""
    project: str | None = None
    """Google Cloud project for Vertex AI (default: `ANTHROPIC_VERTEX_PROJECT_ID`,
    `VERTEXAI_PROJECT` or `GOOGLE_CLOUD_PROJECT`)."""
    api_version: str | None = None
    """Azure OpenAI `api-version` (default: `OPENAI_API_VERSION`, else a recent GA version)."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Extra HTTP headers sent with every request (treated as secret in errors)."""
    max_connections: int = Field(default=32, ge=1, le=MAX_CONCURRENCY)
    """Most requests in flight to this endpoint at once, shared by targets and judges; at
    most 1024, as `run.concurrency`."""
    timeout: float = Field(default=120.0, gt=0, le=MAX_SECONDS)
    """Seconds before one attempt is abandoned (and retried); at most a week (the HTTP
    clients take no infinite timeout)."""
    max_retries: int = Field(default=4, ge=0, le=MAX_RETRIES)
    """Retries after the first attempt on 429, 5xx, timeouts and connection errors."""
    backoff: float = Field(default=1.0, ge=0, le=MAX_SECONDS, allow_inf_nan=False)
    """Base of the exponential backoff in seconds (jittered, doubled per retry), at most a
    week: `.inf` made the first retry wait for ever."""
    max_backoff: float = Field(default=60.0, ge=0, le=MAX_SECONDS, allow_inf_nan=False)
    """Longest single wait between attempts, also the cap on a server's Retry-After; at
    most a week."""
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
        return self.api_key_env or DEFAULT_KEY_ENV[self.kind or "openai_compatible"]
