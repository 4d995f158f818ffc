"""The fake server answers each cloud platform's SDK on that platform's own paths."""

from __future__ import annotations

import asyncio

import anthropic
import openai
import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types
from google.oauth2.credentials import Credentials

from assay.testing import FakeLLM, Fault, Reply, Rule
from assay.testing.platforms import Route, route_of

QUESTION = {"model": "claude-opus-4-5", "max_tokens": 50,
            "messages": [{"role": "user", "content": "capital of France?"}]}


@pytest.mark.parametrize("path, route", [
    ("/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-opus-4-5:rawPredict",
     Route("anthropic", "vertex", "claude-opus-4-5")),
    ("/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke",
     Route("anthropic", "bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0")),
    ("/openai/deployments/gpt4/chat/completions", Route("openai", "azure", "gpt4")),
    ("/v1beta/models/gemini-2.5-pro:generateContent", Route("gemini", "gemini", "gemini-2.5-pro")),
    ("/v1beta1/projects/p/locations/l/publishers/google/models/gemini-2.5-pro:generateContent",
     Route("gemini", "vertex", "gemini-2.5-pro")),
    ("/v1/chat/completions", Route("openai", "openai")),
    ("/v1/messages", Route("anthropic", "anthropic")),
    ("/v1/projects/p/locations/l/publishers/anthropic/models/claude:streamRawPredict", None),
    ("/v1/models", None),
])
def test_a_path_names_its_protocol_platform_and_model(path, route):
    assert route_of(path) == route


def test_vertex_claude_is_served_on_raw_predict_with_the_model_from_the_path():
    async def scenario():
        async with FakeLLM([Rule(user="France", reply="Paris")], api_key="ya29.token") as llm:
            client = anthropic.AsyncAnthropicVertex(
                region="us-east5", project_id="proj", access_token="ya29.token",
                base_url=llm.base_url, max_retries=0)
            body = await client.post("/v1/messages", body=QUESTION, cast_to=object)
            await client.close()
            return body, llm.requests[0]

    body, seen = asyncio.run(scenario())
    assert body["content"] == [{"type": "text", "text": "Paris"}]
    assert (seen.platform, seen.protocol, seen.model) == ("vertex", "anthropic", "claude-opus-4-5")
    assert "/projects/proj/locations/us-east5/" in seen.path and "model" not in seen.body


def test_bedrock_claude_is_served_on_invoke_and_the_sigv4_key_id_is_the_credential():
    async def scenario():
        async with FakeLLM([Rule(user="France", reply="Paris")], api_key="AKIDTEST") as llm:
            answers = []
            for key in ("AKIDTEST", "AKIDWRONG"):
                client = anthropic.AsyncAnthropicBedrock(
                    aws_region="us-east-1", aws_access_key=key, aws_secret_key="not-checked",
                    base_url=llm.root_url, max_retries=0)
                try:
                    body = await client.post("/v1/messages", body={
                        **QUESTION, "model": "anthropic.claude-sonnet-4-5-20250929-v1:0"},
                        cast_to=object)
                    answers.append(body["content"][0]["text"])
                except anthropic.AuthenticationError as exc:
                    answers.append(exc.status_code)
                await client.close()
            return answers, llm.requests[0]

    answers, seen = asyncio.run(scenario())
    assert answers == ["Paris", 401]
    assert seen.platform == "bedrock" and seen.model == "anthropic.claude-sonnet-4-5-20250929-v1:0"
    assert seen.headers["authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKIDTEST/")


def test_azure_is_served_under_its_deployment_with_the_api_version_kept():
    async def scenario():
        async with FakeLLM([Rule(model="my-gpt", reply="hello")], api_key="az-key") as llm:
            client = openai.AsyncAzureOpenAI(azure_endpoint=llm.root_url, api_key="az-key",
                                             api_version="2024-10-21", max_retries=0)
            completion = await client.chat.completions.create(
                model="my-gpt", messages=[{"role": "user", "content": "hi"}])
            await client.close()
            return completion, llm.requests[0]

    completion, seen = asyncio.run(scenario())
    assert completion.choices[0].message.content == "hello"
    assert seen.platform == "azure" and seen.query == "api-version=2024-10-21"


def gemini_tools() -> list[types.Tool]:
    return [types.Tool(function_declarations=[types.FunctionDeclaration(
        name="lookup", description="Look it up.", parameters_json_schema={"type": "object"})])]


def test_gemini_gets_function_calls_then_answers_after_the_function_response():
    rules = [Rule(after_tool_result=True, reply="Paris, says the atlas."),
             Rule(has_tools=True, reply=Reply(tool_calls=[{"name": "lookup",
                                                           "arguments": {"q": "France"}}]))]

    async def scenario():
        async with FakeLLM(rules, api_key="gemini-key") as llm:
            client = genai.Client(api_key="gemini-key",
                                  http_options=types.HttpOptions(base_url=llm.root_url))
            config = types.GenerateContentConfig(system_instruction="Be brief.",
                                                 tools=gemini_tools())
            question = types.Content(role="user", parts=[types.Part(text="capital of France?")])
            first = await client.aio.models.generate_content(
                model="gemini-2.5-pro", contents=[question], config=config)
            call = first.function_calls[0]
            second = await client.aio.models.generate_content(
                model="gemini-2.5-pro", config=config, contents=[
                    question, first.candidates[0].content,
                    types.Content(role="user", parts=[types.Part.from_function_response(
                        name="lookup", response={"output": "Paris"})])])
            await client.aio.aclose()
            return first, call, second, llm.requests

    first, call, second, requests = asyncio.run(scenario())
    assert (call.name, call.args) == ("lookup", {"q": "France"})
    assert second.text == "Paris, says the atlas."
    assert first.usage_metadata.prompt_token_count > 0
    assert requests[0].system == "Be brief." and requests[0].tools == ["lookup"]
    assert requests[1].messages[-1] == {"role": "tool", "content": "Paris"}
    assert requests[1].messages[1]["role"] == "assistant"


def test_gemini_on_vertex_is_served_under_the_google_publisher():
    async def scenario():
        async with FakeLLM(default="hi", api_key="vertex-token") as llm:
            client = genai.Client(vertexai=True, project="proj", location="us-central1",
                                  credentials=Credentials(token="vertex-token"),
                                  http_options=types.HttpOptions(base_url=llm.root_url))
            response = await client.aio.models.generate_content(model="gemini-2.5-flash",
                                                                contents="hello")
            await client.aio.aclose()
            return response, llm.requests[0]

    response, seen = asyncio.run(scenario())
    assert response.text == "hi"
    assert (seen.platform, seen.model) == ("vertex", "gemini-2.5-flash")


def test_a_gemini_rate_limit_says_when_to_retry_in_retry_info():
    rules = [Rule(reply=Reply(fault=Fault("rate_limit", retry_after=2.5)))]

    async def scenario():
        async with FakeLLM(rules) as llm:
            client = genai.Client(api_key="k",
                                  http_options=types.HttpOptions(base_url=llm.root_url))
            with pytest.raises(genai_errors.ClientError) as caught:
                await client.aio.models.generate_content(model="gemini-2.5-pro", contents="q")
            await client.aio.aclose()
            return caught.value

    error = asyncio.run(scenario())
    assert error.code == 429 and error.status == "RESOURCE_EXHAUSTED"
    assert error.details["error"]["details"][0]["retryDelay"] == "2.5s"
