"""Claude on Google Vertex AI and on Amazon Bedrock, through the `anthropic` SDK's own clients.

Both platforms take the Messages API body as it is; the SDK's clients move
the model into the URL (`...:rawPredict` on Vertex AI, `/model/{id}/invoke`
on Bedrock) and sign the request (a Google access token; AWS SigV4 or a
Bedrock API key). Everything else, translation included, is the Anthropic
provider's.

Credentials: Vertex AI takes an access token (`GOOGLE_OAUTH_ACCESS_TOKEN`),
else the SDK loads Application Default Credentials through `google-auth`
(the `vertex` extra). Bedrock takes a Bedrock API key
(`AWS_BEARER_TOKEN_BEDROCK`), else signs with the AWS keys or profile
through `botocore` (the `bedrock` extra).
"""

from __future__ import annotations

from typing import Any

import anthropic

from assay.providers.anthropic import AnthropicProvider


class AnthropicVertexProvider(AnthropicProvider):
    default_endpoint = "https://aiplatform.googleapis.com/v1"

    def __init__(self, config: Any, *, region: str, project: str | None, **kwargs: Any) -> None:
        self.region = region
        self.project = project
        super().__init__(config, **kwargs)

    def _client(self, api_key: str | None, base_url: str | None,
                common: dict[str, Any]) -> anthropic.AsyncAnthropic:
        settings: dict[str, Any] = {"project_id": self.project} if self.project else {}
        client = anthropic.AsyncAnthropicVertex(
            region=self.region, access_token=api_key, base_url=base_url, **settings, **common)
        return client  # type: ignore[return-value]  # the same post() and close()


class AnthropicBedrockProvider(AnthropicProvider):
    default_endpoint = "https://bedrock-runtime.us-east-1.amazonaws.com"

    def __init__(self, config: Any, *, region: str, aws_access_key: str | None = None,
                 aws_secret_key: str | None = None, aws_session_token: str | None = None,
                 aws_profile: str | None = None, **kwargs: Any) -> None:
        self.aws: dict[str, Any] = {"aws_region": region, "aws_access_key": aws_access_key,
                    "aws_secret_key": aws_secret_key, "aws_session_token": aws_session_token,
                    "aws_profile": aws_profile}
        super().__init__(config, **kwargs)
        self._secrets.extend([aws_secret_key, aws_session_token])

    def _client(self, api_key: str | None, base_url: str | None,
                common: dict[str, Any]) -> anthropic.AsyncAnthropic:
        settings: dict[str, Any] = (
            {"aws_region": self.aws["aws_region"], "api_key": api_key} if api_key
            else {name: value for name, value in self.aws.items() if value is not None})
        client = anthropic.AsyncAnthropicBedrock(base_url=base_url, **settings, **common)
        return client  # type: ignore[return-value]  # the same post() and close()
