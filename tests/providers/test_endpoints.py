"""Each kind finds its endpoint and credentials in the config, then in the variables its SDK
reads, then in LiteLLM's names for them; what is missing is named, as a warning or an error."""

from __future__ import annotations

import pytest

from assay.errors import UserError
from assay.providers.config import ProviderConfig
from assay.providers.endpoints import (
    AZURE_DEFAULT_API_VERSION,
    Endpoint,
    Environment,
    MissingSetting,
    resolve_endpoint,
)
from assay.providers.pool import ProviderPool
from assay.redaction import redact_known


def endpoint(kind: str, environ: dict[str, str], **config):
    return resolve_endpoint(ProviderConfig(name="p", kind=kind, **config), Environment(environ))


def test_vertex_reads_the_anthropic_sdks_variables_and_builds_the_regional_url():
    found = endpoint("anthropic_vertex", {"CLOUD_ML_REGION": "us-east5",
                                          "ANTHROPIC_VERTEX_PROJECT_ID": "proj",
                                          "GOOGLE_OAUTH_ACCESS_TOKEN": "ya29.t"})
    assert found.base_url == "https://us-east5-aiplatform.googleapis.com/v1"
    assert (found.api_key, found.options) == ("ya29.t", {"region": "us-east5", "project": "proj"})


def test_vertex_reads_litellms_variables_too_and_the_global_region_has_no_prefix():
    found = endpoint("anthropic_vertex", {"VERTEXAI_LOCATION": "global",
                                          "VERTEXAI_PROJECT": "proj",
                                          "GOOGLE_OAUTH_ACCESS_TOKEN": "ya29.t"})
    assert found.base_url == "https://aiplatform.googleapis.com/v1"
    assert found.options == {"region": "global", "project": "proj"}


def test_the_config_wins_over_the_environment():
    found = endpoint("anthropic_vertex", {"CLOUD_ML_REGION": "us-east5",
                                          "ANTHROPIC_VERTEX_BASE_URL": "http://env/v1",
                                          "GOOGLE_OAUTH_ACCESS_TOKEN": "t", "MY_TOKEN": "mine"},
                     region="europe-west1", project="mine", base_url="http://config/v1",
                     api_key_env="MY_TOKEN")
    assert found.base_url == "http://config/v1" and found.api_key == "mine"
    assert found.options == {"region": "europe-west1", "project": "mine"}


def test_gemini_on_vertex_shares_vertex_settings_with_its_own_base_url_variable():
    found = endpoint("gemini_vertex", {"CLOUD_ML_REGION": "us-central1",
                                       "GOOGLE_CLOUD_PROJECT": "proj",
                                       "GOOGLE_OAUTH_ACCESS_TOKEN": "t",
                                       "GOOGLE_VERTEX_BASE_URL": "http://fake/"})
    assert found.base_url == "http://fake/"
    assert found.options == {"vertex": True, "region": "us-central1", "project": "proj"}


def test_bedrock_prefers_a_bedrock_api_key_and_else_signs_with_aws_keys():
    bearer = endpoint("anthropic_bedrock", {"AWS_REGION": "eu-west-1",
                                            "AWS_BEARER_TOKEN_BEDROCK": "bk",
                                            "AWS_ACCESS_KEY_ID": "AKID"})
    assert bearer.api_key == "bk" and bearer.options == {"region": "eu-west-1"}
    assert bearer.base_url == "https://bedrock-runtime.eu-west-1.amazonaws.com"
    signed = endpoint("anthropic_bedrock", {"AWS_REGION_NAME": "us-west-2",
                                            "AWS_ACCESS_KEY_ID": "AKID",
                                            "AWS_SECRET_ACCESS_KEY": "secret"})
    assert signed.api_key is None
    assert signed.options == {"region": "us-west-2", "aws_access_key": "AKID",
                              "aws_secret_key": "secret", "aws_session_token": None,
                              "aws_profile": None}


def test_the_credentials_an_endpoint_sends_are_masked_whatever_variable_holds_them():
    # a key in `api_key_env: LLM_GATEWAY`, or in the environment a pool was given rather
    # than the process's, was unknown to the masking: echoed back, it was stored as it was
    gateway = endpoint("openai_compatible", {"LLM_GATEWAY": "gw-test-UNIT1234"},
                       base_url="http://gw/v1", api_key_env="LLM_GATEWAY")
    signed = endpoint("anthropic_bedrock", {"AWS_REGION": "us-west-2",
                                            "AWS_ACCESS_KEY_ID": "AKIDTEST5678",
                                            "AWS_SECRET_ACCESS_KEY": "aws-test-SECRET9012"})
    sent = f"{gateway.api_key} {signed.options['aws_access_key']} in us-west-2 " \
           f"{signed.options['aws_secret_key']}"
    assert redact_known(sent) == "*** *** in us-west-2 ***"


def test_azure_reads_its_sdks_and_litellms_names_with_a_default_api_version():
    sdk = endpoint("azure_openai", {"AZURE_OPENAI_ENDPOINT": "https://r.example",
                                    "AZURE_OPENAI_API_KEY": "k"})
    assert (sdk.base_url, sdk.api_key) == ("https://r.example", "k")
    assert sdk.options == {"api_version": AZURE_DEFAULT_API_VERSION, "ad_token": False}
    litellm_names = endpoint("azure_openai", {"AZURE_API_BASE": "https://l.example",
                                              "AZURE_API_KEY": "lk",
                                              "AZURE_API_VERSION": "2025-01-01-preview"})
    assert (litellm_names.base_url, litellm_names.api_key) == ("https://l.example", "lk")
    assert litellm_names.options["api_version"] == "2025-01-01-preview"
    entra = endpoint("azure_openai", {"AZURE_OPENAI_ENDPOINT": "https://r.example",
                                      "AZURE_OPENAI_AD_TOKEN": "entra"})
    assert entra.api_key == "entra" and entra.options["ad_token"] is True


def test_gemini_takes_either_google_key_variable():
    assert endpoint("gemini", {"GOOGLE_API_KEY": "g"}).api_key == "g"
    assert endpoint("gemini", {"GEMINI_API_KEY": "a", "GOOGLE_API_KEY": "b"}).api_key == "a"


@pytest.mark.parametrize("kind, environ, words", [
    ("anthropic_vertex", {"GOOGLE_OAUTH_ACCESS_TOKEN": "t"},
     "needs a region: set `region:` or one of CLOUD_ML_REGION, VERTEXAI_LOCATION"),
    ("anthropic_vertex", {"CLOUD_ML_REGION": "us-east5", "GOOGLE_OAUTH_ACCESS_TOKEN": "t"},
     "needs a project"),
    ("anthropic_bedrock", {}, "needs an AWS region"),
    ("azure_openai", {"AZURE_OPENAI_API_KEY": "k"}, "set `base_url:` or AZURE_OPENAI_ENDPOINT"),
    ("azure_openai", {"AZURE_OPENAI_ENDPOINT": "https://r"}, "AZURE_OPENAI_API_KEY"),
    ("gemini", {}, "set GEMINI_API_KEY or GOOGLE_API_KEY"),
])
def test_a_missing_setting_names_where_to_give_it(kind, environ, words):
    with pytest.raises(MissingSetting) as caught:
        endpoint(kind, environ)
    assert words in str(caught.value)


@pytest.mark.parametrize(("kind", "key_env", "environ", "config"), [
    ("anthropic", "ANTHROPIC_API_KEY", {"ANTHROPIC_BASE_URL": "http://a"}, {}),
    ("openai", "OPENAI_API_KEY", {}, {}),
    ("openai_compatible", "K", {}, {"base_url": "http://c", "api_key_env": "K"}),
    ("azure_openai", "AZURE_OPENAI_API_KEY", {"AZURE_OPENAI_ENDPOINT": "https://r",
                                              "OPENAI_API_VERSION": "2025-01-01"}, {}),
])
def test_a_missing_key_comes_with_the_endpoint_the_provider_has_but_for_it(
        kind: str, key_env: str, environ: dict[str, str], config: dict[str, str]) -> None:
    """A run answered from the cache without a key resolved the endpoint a third time, with
    a stand-in key in its environment, to learn what the first resolving already knew."""
    with pytest.raises(MissingSetting) as caught:
        endpoint(kind, environ, **config)
    with_key = endpoint(kind, {**environ, key_env: "k"}, **config)
    assert caught.value.keyless == Endpoint(with_key.base_url, None, with_key.options)
    assert str(caught.value) == f"{caught.value.needs}: {caught.value.remedy}"
    assert caught.value.needs.endswith("needs an API key")


def test_a_missing_region_is_no_missing_key() -> None:
    with pytest.raises(MissingSetting) as caught:
        endpoint("anthropic_bedrock", {})
    assert caught.value.keyless is None


def test_validate_warns_of_a_missing_setting_and_a_run_stops_on_it():
    pool = ProviderPool(environ={"GOOGLE_OAUTH_ACCESS_TOKEN": "t"})
    warning = pool.validate_model("vertex_ai/claude-opus-4-5")
    assert warning is not None and warning.startswith("vertex_ai/claude-opus-4-5: ")
    assert "needs a region" in warning
    with pytest.raises(UserError, match="needs a region"):
        pool.resolve("vertex_ai/claude-opus-4-5")
