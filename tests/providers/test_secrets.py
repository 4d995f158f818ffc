"""An API key appears in no log line and no exception text, even when a server echoes it."""

from __future__ import annotations

import asyncio
import logging
import traceback

import pytest

from assay.errors import RunFailed
from assay.providers.base import ChatRequest
from assay.providers.failures import ProviderError
from assay.redaction import redact
from assay.testing import FakeLLM, Fault, Reply, Rule


@pytest.mark.parametrize("model_string", ["anthropic/claude-haiku-4-5", "openai/gpt-4.1"])
def test_the_key_is_in_no_log_line_or_error(make_pool, api_keys, model_string, caplog):
    rules = [
        Rule(user="echo", reply=Reply(fault=Fault("unauthorized"))),  # body quotes the key
        Rule(user="fail", reply=Reply(fault=Fault("server_error"))),
        Rule(user="busy", times=1, reply=Reply(fault=Fault("rate_limit", retry_after=0.001))),
    ]
    caplog.set_level(logging.DEBUG)

    async def scenario():
        errors: list[BaseException] = []
        async with FakeLLM(rules) as llm:
            pool = make_pool(llm, max_retries=1, headers={"x-team-token": "team-secret-42"})
            provider, model = pool.resolve(model_string)
            await provider.chat(ChatRequest(model=model, messages=[
                {"role": "user", "content": "busy"}]))
            for text in ("echo", "fail"):
                try:
                    await provider.chat(ChatRequest(model=model, messages=[
                        {"role": "user", "content": text}]))
                except (RunFailed, ProviderError) as exc:
                    errors.append(exc)
            await pool.aclose()
            return errors, llm.requests

    errors, requests = asyncio.run(scenario())
    assert len(errors) == 2
    assert requests[0].api_key in api_keys  # the key was really sent
    texts = [record.getMessage() for record in caplog.records]
    texts += ["".join(traceback.format_exception(error)) for error in errors]
    assert any("retry" in text for text in texts)  # the logs did say something
    for text in texts:
        for secret in (*api_keys, "team-secret-42"):
            assert secret not in text


def test_redact_hides_known_secrets_and_key_shaped_text():
    text = "Invalid key sk-live-abcdef123456; Authorization: Bearer tok_9f8e7d; api_key=zzz999"
    cleaned = redact(text, ["zzz999"])
    assert "sk-live-abcdef123456" not in cleaned
    assert "tok_9f8e7d" not in cleaned and "zzz999" not in cleaned
    assert cleaned.startswith("Invalid key ***")
