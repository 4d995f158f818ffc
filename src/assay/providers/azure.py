"""Azure OpenAI, through the `openai` SDK's `AsyncAzureOpenAI` client.

The model of `azure/<name>` is the deployment's name: the SDK sends the
Chat Completions body to `/openai/deployments/<name>/chat/completions` with
the `api-version` query and the `api-key` header (or, with an Entra ID
token, `Authorization: Bearer`). Everything else is the OpenAI provider's.
Azure deployments are named by their owners, so a deployment whose name is
not a model's needs its price under the provider's `prices:`.
"""

from __future__ import annotations

from typing import Any

import openai

from assay.providers.openai import OpenAIProvider


class AzureOpenAIProvider(OpenAIProvider):
    default_endpoint = "https://<resource>.openai.azure.com"

    def __init__(self, config: Any, *, api_version: str, ad_token: bool = False,
                 **kwargs: Any) -> None:
        self.api_version = api_version
        self.ad_token = ad_token
        super().__init__(config, **kwargs)
        # Azure's current models (o-series, gpt-5) refuse `max_tokens`; every model takes this.
        self.max_tokens_field = config.max_tokens_field or "max_completion_tokens"

    def _client(self, api_key: str | None, base_url: str | None,
                common: dict[str, Any]) -> openai.AsyncOpenAI:
        credential: dict[str, Any] = ({"azure_ad_token": api_key} if self.ad_token
                                      else {"api_key": api_key})
        return openai.AsyncAzureOpenAI(azure_endpoint=base_url or "", api_version=self.api_version,
                                       **credential, **common)

    def _chat_path(self) -> str:
        """Azure's client routes a call to its deployment by the path's text."""
        return "/chat/completions"
