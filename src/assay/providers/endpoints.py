"""Where a provider is and how it proves who it is: its config first, then the environment.

Each kind reads the variables its own SDK reads, and the LiteLLM names
too, so a config written for LiteLLM (k-eval's) runs in the environment
its users already have:

| kind | endpoint | credentials | other |
| --- | --- | --- | --- |
| anthropic | ANTHROPIC_BASE_URL | ANTHROPIC_API_KEY | |
| openai | OPENAI_BASE_URL | OPENAI_API_KEY (none for a local server) | |
| anthropic_vertex | ANTHROPIC_VERTEX_BASE_URL | GOOGLE_OAUTH_ACCESS_TOKEN, else Application Default Credentials | region, project |
| gemini_vertex | GOOGLE_VERTEX_BASE_URL | as anthropic_vertex | region, project |
| anthropic_bedrock | ANTHROPIC_BEDROCK_BASE_URL | AWS_BEARER_TOKEN_BEDROCK, else AWS keys / profile (SigV4) | AWS region |
| azure_openai | AZURE_OPENAI_ENDPOINT, AZURE_API_BASE | AZURE_OPENAI_API_KEY, AZURE_API_KEY, AZURE_OPENAI_AD_TOKEN | OPENAI_API_VERSION, AZURE_API_VERSION |
| gemini | GOOGLE_GEMINI_BASE_URL | GEMINI_API_KEY, GOOGLE_API_KEY | |
| litellm | the config's base_url | whatever LiteLLM reads for that provider | |

A setting the environment lacks is a `MissingSetting`: `assay validate`
warns of it, a run stops on it (exit 2) before any call is made. A missing
API key alone is let pass in a run when the response cache holds replies of
that provider (a CI job re-running from a warm cache, without secrets): it
goes on with what the cache holds, and stops at the first call it does not
(see `ProviderPool`).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from assay.errors import Problem, UserError
from assay.providers.config import ProviderConfig
from assay.redaction import is_secret_name, register

VERTEX_REGION_ENVS = ("CLOUD_ML_REGION", "VERTEXAI_LOCATION", "VERTEX_LOCATION",
                      "GOOGLE_CLOUD_LOCATION")
VERTEX_PROJECT_ENVS = ("ANTHROPIC_VERTEX_PROJECT_ID", "VERTEXAI_PROJECT", "VERTEX_PROJECT",
                       "GOOGLE_CLOUD_PROJECT")
GOOGLE_TOKEN_ENV = "GOOGLE_OAUTH_ACCESS_TOKEN"
AWS_REGION_ENVS = ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_REGION_NAME")
AZURE_DEFAULT_API_VERSION = "2024-10-21"
"""The Azure OpenAI GA API version used when neither the config nor the environment names one."""


class MissingSetting(UserError):
    """The environment lacks something a provider needs to be called (a key, a region):
    `{needs}: {remedy}`, kept in parts so that a message about one call can say them
    otherwise (`... needs an API key to make it: set ...`)."""

    provider: str | None = None
    """The provider's name (the models' prefix, `openai`), once the pool knows it."""

    def __init__(self, needs: str, remedy: str, problems: list[Problem] | None = None, *,
                 keyless: Endpoint | None = None) -> None:
        super().__init__(f"{needs}: {remedy}", problems)
        self.needs = needs
        """What the provider needs: `provider 'anthropic' needs an API key`."""
        self.remedy = remedy
        """How to give it: `set the environment variable ANTHROPIC_API_KEY`."""
        self.keyless = keyless
        """When an API key is all that is missing, the endpoint the provider has but for it."""


@dataclass(slots=True)
class Endpoint:
    """A provider's resolved address and credentials, ready for its SDK client."""

    base_url: str | None
    api_key: str | None = None
    """The credential sent with each request (API key, access or bearer token), if any."""
    options: dict[str, Any] = field(default_factory=dict)
    """Keyword arguments only this kind's provider takes (region, project, AWS keys, ...)."""


class Environment:
    """The variables a pool reads, with the first-set-wins lookup every kind needs."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self.environ = environ

    def first(self, *names: str | None) -> str | None:
        for name in names:
            if name and self.environ.get(name):
                return self.environ[name]
        return None


Resolver = Callable[[ProviderConfig, Environment], Endpoint]


def resolve_endpoint(config: ProviderConfig, env: Environment) -> Endpoint:
    """The endpoint of `config` (whose kind is decided); `MissingSetting` when one is lacking.

    Its credentials become known secrets (`assay.redaction`), whatever the variable holding
    them is called (`api_key_env: LLM_GATEWAY`): a gateway or a model that echoes the key
    has it masked in the store and every report, as `ANTHROPIC_API_KEY` is."""
    assert config.kind is not None
    endpoint = RESOLVERS[config.kind](config, env)
    register(endpoint.api_key, *(value for name, value in endpoint.options.items()
                                 if isinstance(value, str) and is_secret_name(name)))
    return endpoint


def _anthropic(config: ProviderConfig, env: Environment) -> Endpoint:
    key_env = config.key_env()
    key = env.first(key_env)
    base_url = config.base_url or env.first("ANTHROPIC_BASE_URL")
    if not key:
        raise _missing_key(config, f"set the environment variable {key_env}", base_url)
    return Endpoint(base_url, key)


def _openai(config: ProviderConfig, env: Environment) -> Endpoint:
    base_url = config.base_url or env.first("OPENAI_BASE_URL")
    key_env = config.key_env()
    key = env.first(key_env)
    if not key and not (base_url and config.api_key_env is None):
        # a local OpenAI-compatible server named by OPENAI_BASE_URL needs no key
        raise _missing_key(config, f"set the environment variable {key_env}", base_url)
    return Endpoint(base_url, key)


def _openai_compatible(config: ProviderConfig, env: Environment) -> Endpoint:
    if not config.base_url:
        raise UserError(f"provider '{config.name}' (openai_compatible) needs a base_url")
    key = env.first(config.api_key_env)
    if config.api_key_env and not key:
        raise _missing_key(config, f"set the environment variable {config.api_key_env}",
                           config.base_url)
    return Endpoint(config.base_url, key)


def _google_cloud(config: ProviderConfig, env: Environment) -> tuple[str, str | None, str | None]:
    """Region, project and access token for a Vertex AI kind."""
    region = config.region or env.first(*VERTEX_REGION_ENVS)
    if not region:
        raise MissingSetting(f"provider '{config.name}' ({config.kind}) needs a region",
                             f"set `region:` or one of {', '.join(VERTEX_REGION_ENVS)}")
    project = config.project or env.first(*VERTEX_PROJECT_ENVS)
    token = env.first(config.api_key_env or GOOGLE_TOKEN_ENV)
    if token is None and not _importable("google.auth"):
        raise MissingSetting(
            f"provider '{config.name}' ({config.kind}) needs Google credentials",
            f"set {config.api_key_env or GOOGLE_TOKEN_ENV} to an access token, or install "
            "'assay-eval[vertex]' to use Application Default Credentials")
    if token is not None and not project:
        raise MissingSetting(f"provider '{config.name}' ({config.kind}) needs a project",
                             f"set `project:` or one of {', '.join(VERTEX_PROJECT_ENVS)}")
    return region, project, token


def _vertex_url(region: str, suffix: str) -> str:
    """Vertex AI's address for a region, as the SDKs build it."""
    host = {"global": "aiplatform.googleapis.com", "us": "aiplatform.us.rep.googleapis.com",
            "eu": "aiplatform.eu.rep.googleapis.com"}.get(region,
                                                         f"{region}-aiplatform.googleapis.com")
    return f"https://{host}{suffix}"


def _anthropic_vertex(config: ProviderConfig, env: Environment) -> Endpoint:
    region, project, token = _google_cloud(config, env)
    base_url = (config.base_url or env.first("ANTHROPIC_VERTEX_BASE_URL")
                or _vertex_url(region, "/v1"))
    return Endpoint(base_url, token, {"region": region, "project": project})


def _gemini_vertex(config: ProviderConfig, env: Environment) -> Endpoint:
    _require_module("google.genai", "gemini", config)
    region, project, token = _google_cloud(config, env)
    base_url = config.base_url or env.first("GOOGLE_VERTEX_BASE_URL") or _vertex_url(region, "/")
    return Endpoint(base_url, token, {"vertex": True, "region": region, "project": project})


def _anthropic_bedrock(config: ProviderConfig, env: Environment) -> Endpoint:
    region = config.region or env.first(*AWS_REGION_ENVS)
    if not region:
        raise MissingSetting(f"provider '{config.name}' (anthropic_bedrock) needs an AWS region",
                             f"set `region:` or one of {', '.join(AWS_REGION_ENVS)}")
    base_url = (config.base_url or env.first("ANTHROPIC_BEDROCK_BASE_URL")
                or f"https://bedrock-runtime.{region}.amazonaws.com")
    token = env.first(config.api_key_env or "AWS_BEARER_TOKEN_BEDROCK")
    if token:
        return Endpoint(base_url, token, {"region": region})
    if not _importable("botocore"):
        raise MissingSetting(
            f"provider '{config.name}' (anthropic_bedrock) signs requests with AWS credentials",
            "install 'assay-eval[bedrock]', or set AWS_BEARER_TOKEN_BEDROCK to a Bedrock API key")
    aws = {"aws_access_key": env.first("AWS_ACCESS_KEY_ID"),
           "aws_secret_key": env.first("AWS_SECRET_ACCESS_KEY"),
           "aws_session_token": env.first("AWS_SESSION_TOKEN"),
           "aws_profile": env.first("AWS_PROFILE")}
    return Endpoint(base_url, None, {"region": region, **aws})


def _azure_openai(config: ProviderConfig, env: Environment) -> Endpoint:
    base_url = config.base_url or env.first("AZURE_OPENAI_ENDPOINT", "AZURE_API_BASE")
    if not base_url:
        raise MissingSetting(f"provider '{config.name}' (azure_openai) needs the resource's "
                             "endpoint", "set `base_url:` or AZURE_OPENAI_ENDPOINT")
    key_envs = (config.api_key_env,) if config.api_key_env else (
        "AZURE_OPENAI_API_KEY", "AZURE_API_KEY")
    key = env.first(*key_envs)
    ad_token = None if key else env.first("AZURE_OPENAI_AD_TOKEN")
    version = (config.api_version or env.first("OPENAI_API_VERSION", "AZURE_API_VERSION")
               or AZURE_DEFAULT_API_VERSION)
    if not key and not ad_token:
        raise _missing_key(config, f"set {' or '.join(key_envs)} (or AZURE_OPENAI_AD_TOKEN)",
                           base_url, {"api_version": version, "ad_token": False})
    return Endpoint(base_url, key or ad_token,
                    {"api_version": version, "ad_token": ad_token is not None})


def _gemini(config: ProviderConfig, env: Environment) -> Endpoint:
    _require_module("google.genai", "gemini", config)
    key_envs = (config.api_key_env,) if config.api_key_env else ("GEMINI_API_KEY",
                                                                 "GOOGLE_API_KEY")
    key = env.first(*key_envs)
    base_url = (config.base_url or env.first("GOOGLE_GEMINI_BASE_URL")
                or "https://generativelanguage.googleapis.com/")
    if not key:
        raise _missing_key(config, f"set {' or '.join(key_envs)}", base_url, {"vertex": False})
    return Endpoint(base_url, key, {"vertex": False})


def _litellm(config: ProviderConfig, env: Environment) -> Endpoint:
    _require_module("litellm", "litellm", config)
    return Endpoint(config.base_url, env.first(config.api_key_env))


RESOLVERS: dict[str, Resolver] = {
    "anthropic": _anthropic,
    "openai": _openai,
    "openai_compatible": _openai_compatible,
    "anthropic_vertex": _anthropic_vertex,
    "gemini_vertex": _gemini_vertex,
    "anthropic_bedrock": _anthropic_bedrock,
    "azure_openai": _azure_openai,
    "gemini": _gemini,
    "litellm": _litellm,
}


def _missing_key(config: ProviderConfig, remedy: str, base_url: str | None,
                 options: dict[str, Any] | None = None) -> MissingSetting:
    """An API key is all the provider lacks: `keyless` is its endpoint but for the key."""
    kind = f" ({config.kind})" if config.kind in ("azure_openai", "gemini") else ""
    return MissingSetting(f"provider '{config.name}'{kind} needs an API key", remedy,
                          keyless=Endpoint(base_url, None, options or {}))


def _require_module(module: str, extra: str, config: ProviderConfig) -> None:
    """A `UserError` naming the extra to install when the kind's SDK is missing."""
    if not _importable(module):
        raise UserError(f"provider '{config.name}' ({config.kind}) needs the `{module}` "
                        f"package: pip install 'assay-eval[{extra}]'")


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False
