"""LiteLLM serves the other providers: never imported before such a model is named, priced from
its bundled list when assay's table lacks the model, its missing keys named by `validate`."""

from __future__ import annotations

import subprocess
import sys

import pytest

from assay.providers.config import Price
from assay.providers.litellm import LiteLLMPrices
from assay.providers.pool import ProviderPool
from assay.providers.pricing import find_price

IMPORT_PROBE = """
import sys
from assay.providers.pool import ProviderPool
pool = ProviderPool(environ={"ANTHROPIC_API_KEY": "k", "GEMINI_API_KEY": "k",
                            "GOOGLE_OAUTH_ACCESS_TOKEN": "t", "CLOUD_ML_REGION": "us-east5",
                            "ANTHROPIC_VERTEX_PROJECT_ID": "p"})
for model in ("anthropic/claude-haiku-4-5", "vertex_ai/claude-opus-4-5", "gemini/gemini-2.5-pro"):
    pool.resolve(model)
print("litellm" in sys.modules)
pool.resolve("mistral/mistral-small-latest")
print("litellm" in sys.modules)
"""


def test_litellm_is_imported_only_once_a_model_needs_it():
    probe = subprocess.run([sys.executable, "-c", IMPORT_PROBE], capture_output=True, text=True,
                           timeout=300, check=False, env={"PATH": "/usr/bin:/bin",
                                             "MISTRAL_API_KEY": "k"})
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.split() == ["False", "True"]


def test_prices_come_from_the_table_first_then_from_litellms_list():
    cost = {"mistral/mistral-small-latest": {"input_cost_per_token": 1.5e-07,
                                             "output_cost_per_token": 6e-07}}
    mine = Price(input_per_mtok=1.0, output_per_mtok=2.0)
    prices = LiteLLMPrices({"custom": mine}, cost, "mistral")
    assert find_price("custom", prices) == mine
    assert find_price("mistral-small-latest", prices) == Price(input_per_mtok=0.15,
                                                               output_per_mtok=0.6)
    assert find_price("unknown-model", prices) is None


def test_validate_names_the_key_litellm_will_look_for(monkeypatch):
    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)
    warning = ProviderPool(environ={}).validate_model("mistral/mistral-small-latest")
    assert warning == ("mistral/mistral-small-latest: LiteLLM needs the environment variable(s) "
                       "MISTRAL_API_KEY")


@pytest.mark.parametrize("model_string", ["litellm/groq/llama-3.1-8b-instant",
                                          "bedrock/meta.llama3-1-70b-instruct-v1:0"])
def test_what_no_sdk_of_ours_serves_goes_to_litellm_under_its_full_name(model_string):
    pool = ProviderPool(environ={})
    provider, model = pool.resolve(model_string)
    assert type(provider).__name__ == "LiteLLMProvider"
    assert provider.litellm_model(model) == model_string.removeprefix("litellm/")
