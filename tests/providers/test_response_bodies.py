"""What a provider reads from a 200 answer, and what it does when the body breaks the protocol.

Both adapters read the decoded JSON body themselves (not the SDK's models):
a body that lacks what the protocol promises is a malformed response,
retried and then reported as such, never an AttributeError from deep inside.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from types import SimpleNamespace

import pytest

from assay.providers import anthropic as anthropic_wire
from assay.providers import openai as openai_wire
from assay.providers.base import ChatRequest
from assay.providers.failures import CallFailure, ProviderError
from assay.testing import FakeLLM

PROTOCOLS = ["anthropic/claude-haiku-4-5", "openai/gpt-4.1"]


async def serve_fixed(body: bytes, content_type: str, requests: list[bytes]) -> asyncio.Server:
    """An HTTP server that answers every request 200 with `body`, one request per connection."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                       if line.lower().startswith(b"content-length:")), 0)
        requests.append(await reader.readexactly(length))
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: " + content_type.encode()
                     + b"\r\ncontent-length: " + str(len(body)).encode()
                     + b"\r\nconnection: close\r\n\r\n" + body)
        await writer.drain()
        writer.close()

    return await asyncio.start_server(answer, "127.0.0.1", 0)


def fail_on(make_pool: Callable, model_string: str, body: bytes,
            content_type: str = "application/json") -> tuple[ProviderError, int]:
    async def scenario() -> tuple[ProviderError, int]:
        requests: list[bytes] = []
        server = await serve_fixed(body, content_type, requests)
        port = server.sockets[0].getsockname()[1]
        async with server:
            pool = make_pool(SimpleNamespace(base_url=f"http://127.0.0.1:{port}"), max_retries=2)
            provider, model = pool.resolve(model_string)
            with pytest.raises(ProviderError) as caught:
                await provider.chat(ChatRequest(model=model, messages=[
                    {"role": "user", "content": "hello"}]))
            await pool.aclose()
        return caught.value, len(requests)

    return asyncio.run(scenario())


@pytest.mark.parametrize(("model_string", "missing"), [
    ("openai/gpt-4.1", "'choices'"), ("anthropic/claude-haiku-4-5", "'content'")])
def test_a_json_body_without_the_answer_is_malformed_and_retried(make_pool, model_string,
                                                                 missing):
    error, requests = fail_on(make_pool, model_string, b'{"id": "resp_1"}')
    assert error.kind == "malformed" and requests == 3
    assert f"malformed response body (no {missing}) (gave up after 3 attempts)" in str(error)


@pytest.mark.parametrize("model_string", PROTOCOLS)
def test_a_body_that_is_not_json_is_malformed(make_pool, model_string):
    error, _ = fail_on(make_pool, model_string, b"upstream says hello", "text/plain")
    assert error.kind == "malformed" and "not a JSON object" in str(error)


def test_an_empty_choices_list_says_so():
    with pytest.raises(CallFailure, match=r"malformed response body \(no choices\)"):
        openai_wire.from_wire({"choices": [], "model": "m"})


def test_a_tool_call_block_without_a_name_is_malformed():
    body = {"content": [{"type": "tool_use", "id": "t1", "input": {}}],
            "usage": {"input_tokens": 1, "output_tokens": 1}}
    with pytest.raises(CallFailure) as caught:
        anthropic_wire.from_wire(body, structured_by_tool=False)
    assert caught.value.kind == "malformed" and "no 'name'" in caught.value.reason


def test_anthropic_prompt_cache_tokens_count_as_input():
    body = {"content": [{"type": "text", "text": "Hi"}, {"type": "text", "text": " there"}],
            "model": "claude-haiku-4-5", "stop_reason": "end_turn",
            "usage": {"input_tokens": 10, "cache_creation_input_tokens": 5,
                      "cache_read_input_tokens": None, "output_tokens": 2}}
    response = anthropic_wire.from_wire(body, structured_by_tool=False)
    assert response.text == "Hi there" and response.stop_reason == "end_turn"
    assert (response.usage.input_tokens, response.usage.output_tokens) == (15, 2)


def test_openai_keeps_invalid_tool_arguments_visible_and_skips_non_function_calls():
    body = {"model": "gpt-4.1", "choices": [{"finish_reason": "tool_calls", "message": {
        "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "add", "arguments": "{oops"}},
            {"id": "c2", "type": "custom", "custom": {"name": "grep", "input": "x"}}]}}]}
    response = openai_wire.from_wire(body)
    assert response.text == "" and response.usage.input_tokens == 0
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [
        ("c1", "add", {"_invalid_json": "{oops"})]


def test_anthropic_temperature_wins_over_the_same_key_in_extra(make_pool):
    async def scenario():
        async with FakeLLM() as llm:
            pool = make_pool(llm)
            provider, model = pool.resolve("anthropic/claude-haiku-4-5")
            await provider.chat(ChatRequest(model=model, temperature=0.2,
                                            extra={"temperature": 0.9, "top_k": 5},
                                            messages=[{"role": "user", "content": "hi"}]))
            await pool.aclose()
            return llm.requests[0].body

    body = asyncio.run(scenario())
    assert body["temperature"] == 0.2 and body["top_k"] == 5


def test_an_openai_refusal_is_the_answer_and_its_stop_reason_says_so():
    """Regression: a refusal comes with no content and the model's words under `refusal`;
    the answer was empty, so every scorer and judge saw nothing where the model had said why
    it would not answer."""
    body = {"model": "gpt-4.1", "choices": [{"finish_reason": "stop", "message": {
        "role": "assistant", "content": None,
        "refusal": "I can't help with that request."}}],
        "usage": {"prompt_tokens": 9, "completion_tokens": 7}}
    response = openai_wire.from_wire(body)
    assert response.text == "I can't help with that request."
    assert response.stop_reason == "refusal"


def test_an_answer_text_that_is_not_text_is_malformed_naming_its_field():
    """Regression: `"content": 1.5` came through as the answer (a float where text
    belongs), and scorers then saw a number."""
    body = {"model": "gpt-4.1", "choices": [{"finish_reason": "stop",
                                             "message": {"content": 1.5}}]}
    with pytest.raises(CallFailure) as caught:
        openai_wire.from_wire(body)
    assert caught.value.kind == "malformed" and caught.value.retryable
    assert "message.content: float, not text" in caught.value.reason


@pytest.mark.parametrize("tokens", [-1, "12", [3], 2.5, True])
def test_a_token_count_that_is_not_a_count_is_malformed_not_a_cost(tokens):
    """Regression: a usage count of -1 or "12" came through, giving a negative cost or a
    TypeError (an internal error) when the call was priced."""
    body = {"content": [{"type": "text", "text": "Hi"}], "model": "claude-haiku-4-5",
            "usage": {"input_tokens": tokens, "output_tokens": 2}}
    with pytest.raises(CallFailure, match=r"usage\.input_tokens: \w+, not a count"):
        anthropic_wire.from_wire(body, structured_by_tool=False)


def test_a_token_count_past_any_real_count_is_malformed_not_an_overflow():
    """Regression: a usage count of 10**400 (JSON's integers have no bound) stopped the run
    with 'OverflowError: int too large to convert to float' when the call was priced."""
    body = {"content": [{"type": "text", "text": "Hi"}], "model": "claude-haiku-4-5",
            "usage": {"input_tokens": 10**400, "output_tokens": 2}}
    with pytest.raises(CallFailure, match=r"usage\.input_tokens: a number past 10\*\*12"):
        anthropic_wire.from_wire(body, structured_by_tool=False)
    usage = {"prompt_tokens": 3, "completion_tokens": 10**12 + 1}
    body = {"choices": [{"message": {"role": "assistant", "content": "Hi"},
                         "finish_reason": "stop"}], "model": "gpt-4.1", "usage": usage}
    with pytest.raises(CallFailure, match=r"usage\.completion_tokens: a number past 10\*\*12"):
        openai_wire.from_wire(body)
    usage["completion_tokens"] = 10**12  # the most a count may be
    assert openai_wire.from_wire(body).usage.output_tokens == 10**12


def test_tool_input_that_is_not_an_object_is_malformed_not_a_value_error():
    """Regression: `"input": "ab"` raised ValueError from `dict()` out of the provider."""
    body = {"content": [{"type": "tool_use", "id": "t1", "name": "lookup", "input": "ab"}],
            "usage": {"input_tokens": 1, "output_tokens": 1}}
    with pytest.raises(CallFailure, match=r"content\.0\.input: str, not an object"):
        anthropic_wire.from_wire(body, structured_by_tool=False)


@pytest.mark.parametrize("model_string", PROTOCOLS)
def test_a_body_that_is_not_utf8_is_malformed_not_an_internal_error(make_pool, model_string):
    """Regression: a 200 whose JSON held a byte that is not UTF-8 raised UnicodeDecodeError
    out of the SDK's decoding, past the retry loop."""
    error, requests = fail_on(make_pool, model_string, b'{"id": "\xc3(", "choices": []}')
    assert error.kind == "malformed" and requests == 3


@pytest.mark.parametrize("model_string", PROTOCOLS)
@pytest.mark.parametrize("fault", ["html", "cut"])
def test_an_html_page_or_a_body_cut_half_way_is_retried_then_a_provider_error(
        make_pool, model_string, fault):
    from assay.testing.script import Fault, Reply

    async def scenario() -> tuple[ProviderError, int]:
        async with FakeLLM(default=Reply(fault=Fault(fault))) as llm:
            pool = make_pool(llm, max_retries=1)
            provider, model = pool.resolve(model_string)
            with pytest.raises(ProviderError) as caught:
                await provider.chat(ChatRequest(model=model, messages=[
                    {"role": "user", "content": "hello"}]))
            await pool.aclose()
            return caught.value, llm.received

    error, received = asyncio.run(scenario())
    assert received == 2 and "gave up after 2 attempts" in str(error)
    assert error.kind in ("malformed", "connection")
