"""The fake model under test answers from what it is shown, and knows nothing else."""

from __future__ import annotations

from typing import Any

from assay.testing import FakeAnswerer
from assay.testing.answerer import split_question
from assay.testing.script import FakeRequest

PASSAGES = """Use the reference passages below to answer the question.

<passages>
[configuration.md#1] Storage settings
- `max_value_bytes`: the largest value accepted. The default is 1 MiB
  (1048576 bytes); larger writes fail with error `E-TOOBIG`.
- `sync_writes`: wait for `fsync` before acknowledging a write.

[replication.md#0] Replication
The leader listens on port 7411 unless `replication_port` says otherwise.
</passages>

Question:
What is the largest value Larkspur accepts by default?"""

SEARCH_TOOL = {"type": "function", "function": {
    "name": "search", "description": "Search the documents.",
    "parameters": {"type": "object", "required": ["query", "top_k"],
                   "properties": {"query": {"type": "string"},
                                  "top_k": {"type": "integer", "default": 5}}}}}
CLOCK_TOOL = {"type": "function", "function": {
    "name": "get_time", "description": "The current time in a timezone.",
    "parameters": {"type": "object", "properties": {"timezone": {"type": "string"}}}}}


def request(*messages: dict[str, Any], tools: list[dict[str, Any]] | None = None) -> FakeRequest:
    tools = tools or []
    return FakeRequest(protocol="openai", path="/v1/chat/completions", headers={},
                       body={"tools": tools}, model="m", system="Answer briefly.",
                       messages=list(messages),
                       tools=[tool["function"]["name"] for tool in tools])


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def test_the_question_is_what_follows_the_question_heading_and_the_passages_are_context():
    question, context = split_question(PASSAGES)
    assert question == "What is the largest value Larkspur accepts by default?"
    assert "Use the reference passages" not in context
    assert "[configuration.md#1]" not in context and "1048576" in context


def test_it_answers_with_the_best_sentence_and_the_one_that_completes_it():
    reply = FakeAnswerer()(request(user(PASSAGES)))
    assert reply.text.startswith("`max_value_bytes`: the largest value accepted.")
    assert "1 MiB" in reply.text and "7411" not in reply.text


def test_without_context_it_does_not_know():
    answerer = FakeAnswerer()
    assert answerer(request(user("What is the largest value Larkspur accepts?"))).text == (
        "I don't know.")
    assert FakeAnswerer(unknown="No idea.")(request(user("Why?"))).text == "No idea."


def test_offered_a_search_tool_it_searches_for_the_question_first():
    reply = FakeAnswerer()(request(user("Which port does the leader use?"),
                                   tools=[CLOCK_TOOL, SEARCH_TOOL]))
    assert reply.text == ""
    assert reply.tool_calls == [{"name": "search", "arguments": {
        "query": "Which port does the leader use?", "top_k": 5}}]


def test_after_the_tool_result_it_answers_from_it():
    result = "[replication.md#0] Replication (score 2.1)\nThe leader listens on port 7411."
    reply = FakeAnswerer()(request(user("Which port does the leader listen on?"),
                                   {"role": "assistant", "content": ""},
                                   {"role": "tool", "content": result}, tools=[SEARCH_TOOL]))
    assert reply.tool_calls == [] and reply.text == "The leader listens on port 7411."


def test_a_tool_that_fits_nothing_in_the_question_is_not_called():
    reply = FakeAnswerer()(request(user("Which port does the leader use?"), tools=[CLOCK_TOOL]))
    assert reply.tool_calls == [] and reply.text == "I don't know."


def test_scripted_answers_win_when_their_key_is_in_the_question():
    answerer = FakeAnswerer({"largest value": "1 MiB.", "value": "Some value."})
    assert answerer(request(user(PASSAGES))).text == "1 MiB."
