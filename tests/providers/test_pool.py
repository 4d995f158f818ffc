"""Finding providers by model string, from the config and the environment."""

from __future__ import annotations

import asyncio

import pytest

from assay.errors import UserError
from assay.providers.base import ChatRequest
from assay.providers.config import ProviderConfig
from assay.providers.pool import ProviderPool, get_pool
from assay.services import Services
from assay.testing import FakeLLM
from assay.testing.config import eval_config


def test_built_in_providers_come_from_the_environment():
    async def scenario():
        async with FakeLLM(default="hi") as llm:
            pool = ProviderPool(environ={"ANTHROPIC_API_KEY": "k1",
                                         "ANTHROPIC_BASE_URL": llm.base_url})
            provider, model = pool.resolve("anthropic/claude-haiku-4-5")
            response = await provider.chat(ChatRequest(model=model, messages=[
                {"role": "user", "content": "hello"}]))
            same, _ = pool.resolve("anthropic/claude-opus-4-5")
            await pool.aclose()
            return response, provider is same, llm.requests[0].api_key

    response, shared, key_sent = asyncio.run(scenario())
    assert response.text == "hi" and shared and key_sent == "k1"


@pytest.mark.parametrize("model_string, message", [
    ("gpt-4.1", "must be written <provider>/<model>"),
    ("openai/", "must be written <provider>/<model>"),
    ("open ai/gpt-4.1", "the provider 'open ai' may hold only letters, digits"),
    ("anthr\\opic/claude-haiku-4-5", "the provider 'anthr\\opic' may hold only"),
    ("nosuch/large", "unknown provider 'nosuch'"),
    ("antropic/claude-haiku-4-5", "did you mean 'anthropic'?"),
    ("anthropic/claude-haiku-4-5", "set the environment variable ANTHROPIC_API_KEY"),
    ("openai/gpt-4.1", "set the environment variable OPENAI_API_KEY"),
])
def test_bad_model_strings_and_missing_keys_are_clear_errors(model_string, message):
    """Regression: a provider name with a space ('open ai/gpt-4.1') stopped `assay validate`
    with 'internal error: ValidationError: ... ProviderConfig', exit 3."""
    with pytest.raises(UserError) as caught:
        ProviderPool(environ={}).resolve(model_string)
    assert message in str(caught.value)


def test_openai_base_url_alone_serves_a_local_server_without_a_key():
    pool = ProviderPool(environ={"OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"})
    provider, model = pool.resolve("openai/llama3.1")
    assert model == "llama3.1" and provider.endpoint == "http://127.0.0.1:11434/v1"
    asyncio.run(pool.aclose())


def test_a_configured_provider_uses_its_own_key_variable():
    config = ProviderConfig(name="lab", kind="openai_compatible",
                            base_url="http://127.0.0.1:8000/v1", api_key_env="LAB_KEY")
    with pytest.raises(UserError, match="LAB_KEY"):
        ProviderPool({"lab": config}, environ={}).resolve("lab/qwen")
    pool = ProviderPool({"lab": config}, environ={"LAB_KEY": "x"})
    assert pool.resolve("lab/qwen")[1] == "qwen"
    asyncio.run(pool.aclose())


def test_get_pool_builds_once_per_run_from_the_config_block():
    config = eval_config(providers={"local": {"kind": "openai_compatible", "max_connections": 2,
                                              "base_url": "http://127.0.0.1:9/v1"}},
                         run={"max_cost_usd": 1.5})
    services = Services(config=config, use_cache=False)
    pool = get_pool(services)
    assert get_pool(services) is pool and services.providers is pool
    assert pool.configs["local"].name == "local" and pool.configs["local"].max_connections == 2
    assert pool.stats().max_cost_usd == 1.5 and pool.use_cache is False
    asyncio.run(services.aclose())


@pytest.mark.parametrize("model_string", ["openai/gpt-4.1", "anthropic/claude-haiku-4-5"])
def test_a_certificate_file_that_is_not_there_is_a_clear_error_naming_its_variable(
        model_string, tmp_path, monkeypatch):
    """Regression: SSL_CERT_FILE naming a missing file was 'internal error:
    FileNotFoundError ... this is a bug in assay' when the provider was made."""
    missing = str(tmp_path / "corporate-ca.pem")
    monkeypatch.setenv("SSL_CERT_FILE", missing)  # what the SDKs' HTTP clients read
    environ = {"SSL_CERT_FILE": missing, "OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"}
    with pytest.raises(UserError) as caught:
        ProviderPool(environ=environ).resolve(model_string)
    message = str(caught.value)
    assert "provider's HTTPS client" in message and f"check SSL_CERT_FILE={missing}" in message


def test_configure_sets_one_models_timeout_and_keeps_how_its_prefix_is_routed():
    pool = ProviderPool({"lab": ProviderConfig(name="lab", base_url="http://127.0.0.1:8000/v1",
                                               max_retries=1)},
                        environ={"OPENAI_API_KEY": "k", "GOOGLE_OAUTH_ACCESS_TOKEN": "t",
                                 "VERTEXAI_PROJECT": "p", "VERTEXAI_LOCATION": "us-east5"})
    for model_string in ("openai/gpt-4.1", "lab/qwen", "vertex_ai/claude-opus-4-5"):
        pool.configure(model_string, timeout=7.5)
        provider, _ = pool.resolve(model_string)
        assert provider.config.timeout == 7.5
    assert pool.configs["lab"].max_retries == 1  # its own settings kept
    assert pool._route("vertex_ai/gemini-2.5-pro")[0].kind == "gemini_vertex"  # still by model
    with pytest.raises(UserError, match="unknown provider 'nosuch'"):
        pool.configure("nosuch/large", timeout=1.0)
    asyncio.run(pool.aclose())


def test_a_provider_without_its_key_answers_what_the_cache_holds_and_stops_at_the_rest(
        tmp_path):
    """Regression: a run whose every call the response cache held (a CI job re-running from
    a warm cache, without secrets) refused to start: 'provider 'anthropic' needs an API
    key'. It now runs from the cache; a call the cache does not hold stops the run, saying
    why, before any request leaves."""
    from assay.errors import RunFailed
    from assay.store import Store

    def request(text):
        return ChatRequest(model="claude-haiku-4-5", messages=[{"role": "user", "content": text}])

    async def scenario(llm, environ, fresh):
        """The warning, the reply to a question, and why the question `fresh` was refused."""
        store = Store(str(tmp_path / "assay.db"))
        pool = ProviderPool(store=store, environ={"ANTHROPIC_BASE_URL": llm.base_url,
                                                  **environ}, keyless_from_cache=True)
        try:
            warning = pool.validate_model("anthropic/claude-haiku-4-5")
            provider, _ = pool.resolve("anthropic/claude-haiku-4-5")
            answer = await provider.chat(request("q"))
            try:
                await provider.chat(request(fresh))
                refused = None
            except RunFailed as exc:
                refused = str(exc)
            return warning, answer, refused
        finally:
            await pool.aclose()
            store.close()

    async def runs():
        async with FakeLLM(default="hi") as llm:
            with pytest.raises(UserError, match="needs an API key"):  # nothing cached yet
                await scenario(llm, {}, "r")
            await scenario(llm, {"ANTHROPIC_API_KEY": "sk-ant-real-0123456789"}, "r")
            sent = len(llm.requests)
            return await scenario(llm, {}, "never asked"), sent, len(llm.requests)

    (warning, answer, refused), sent, sent_after = asyncio.run(runs())
    assert (answer.text, answer.cached) == ("hi", True)
    assert sent == sent_after == 2  # the run without the key sent nothing
    assert warning == ("anthropic/claude-haiku-4-5: provider 'anthropic' needs an API key: set "
                       "the environment variable ANTHROPIC_API_KEY; the response cache holds "
                       "replies of 'anthropic', so a run goes on with them, and stops at the "
                       "first call it does not hold")
    assert refused == ("anthropic/claude-haiku-4-5: the response cache holds no reply to this "
                       "call, and provider 'anthropic' needs an API key to make it: set the "
                       "environment variable ANTHROPIC_API_KEY; the run is stopped")
    assert b"sk-ant-real" not in (tmp_path / "assay.db").read_bytes()


def test_a_provider_without_its_key_goes_on_from_replies_cached_since_it_was_refused(
        tmp_path):
    """Regression: whether the cache held a provider's replies was asked of the store once
    and kept: found keyless while the cache held none of its replies, the provider stayed
    refused after a run with the key had cached them in the same store."""
    from assay.records import CachedReply
    from assay.store import Store

    store = Store(str(tmp_path / "assay.db"))
    pool = ProviderPool(store=store, environ={}, keyless_from_cache=True)
    try:
        assert pool.validate_model("anthropic/claude-haiku-4-5") == (
            "anthropic/claude-haiku-4-5: provider 'anthropic' needs an API key: set the "
            "environment variable ANTHROPIC_API_KEY")
        store.cache_put({"k": CachedReply({"text": "hi"}, "anthropic", "claude-haiku-4-5")})
        assert ("the response cache holds replies of 'anthropic'"
                in pool.validate_model("anthropic/claude-haiku-4-5"))
        provider, _ = pool.resolve("anthropic/claude-haiku-4-5")  # not refused
        assert provider.missing_key
    finally:
        asyncio.run(pool.aclose())
        store.close()
