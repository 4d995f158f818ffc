"""A line whose known field has the wrong JSON type is malformed: counted with its reason,
and the reading goes on (it used to end the whole analysis with an internal error)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from assay.traces.sessions import load_session

PI_HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": "2024-05-01T10:00:00Z"}
PI_QUESTION = {"type": "message", "timestamp": "2024-05-01T10:00:01Z",
               "message": {"role": "user", "content": "what is up?"}}
PI_ANSWER = {"type": "message", "message": {"role": "assistant",
                                            "content": [{"type": "text", "text": "all good"}]}}
CC_QUESTION = {"type": "user", "sessionId": "c1", "timestamp": "2024-05-01T10:00:00Z",
               "message": {"role": "user", "content": "what is up?"}}
CC_ANSWER = {"type": "assistant", "sessionId": "c1", "timestamp": "2024-05-01T10:00:02Z",
             "message": {"id": "m1", "role": "assistant",
                         "content": [{"type": "text", "text": "all good"}]}}


@pytest.mark.parametrize(("rows", "bad", "reason"), [
    ([PI_HEADER, PI_QUESTION, {"type": "message", "message": "hello"}, PI_ANSWER],
     3, "`message` is text, not an object"),
    ([PI_HEADER, PI_QUESTION, {**PI_ANSWER, "timestamp": ["2024"]}, PI_ANSWER],
     3, "`timestamp` is a list"),
    ([PI_HEADER, {"type": ["user"], "message": {}}, PI_QUESTION, PI_ANSWER],
     2, "`type` is a list, not text"),
    ([PI_HEADER, PI_QUESTION, {"type": "message", "message": {
        "role": "assistant", "content": [{"type": ["text"], "text": "x"}]}}, PI_ANSWER],
     3, "`message.content[].type` is a list"),
    ([CC_QUESTION, {"type": "progress", "sessionId": "c1", "data": "oops"}, CC_ANSWER],
     2, "`data` is text, not an object"),
    ([CC_QUESTION, {**CC_ANSWER, "message": {"id": "m2", "usage": "lots",
                                             "content": []}}, CC_ANSWER],
     2, "`message.usage` is text"),
    ([CC_QUESTION, {"type": "progress", "sessionId": "c1", "data": {
        "type": "agent_progress", "message": {"type": "assistant", "message": {
            "content": 7}}}}, CC_ANSWER],
     2, "`message.content` is a number"),
    ([{"role": "user", "content": "what is up?"}, {"role": "assistant", "content": "ok",
                                                    "tool_calls": "none"},
      {"role": "assistant", "content": "all good"}],
     2, "`tool_calls` is text, not a list"),
])
def test_a_wrongly_typed_field_is_a_malformed_line_and_reading_goes_on(
        write_jsonl: Callable[..., Path], rows: list[dict[str, object]], bad: int,
        reason: str) -> None:
    session, exchanges = load_session(write_jsonl("s.jsonl", rows))
    stats = session.meta.stats
    assert stats is not None and stats.malformed_count == 1
    [(line, said)] = stats.malformed
    assert line == bad and reason in said, said
    assert [e.question for e in exchanges] == ["what is up?"]
    assert exchanges[0].answer == "all good"


def test_the_reason_names_the_field_and_both_types(write_jsonl: Callable[..., Path]) -> None:
    path = write_jsonl("s.jsonl", [PI_HEADER, PI_QUESTION,
                                   {"type": "message", "message": {"role": 5}}, PI_ANSWER])
    session, _ = load_session(path)
    assert session.meta.stats is not None
    assert session.meta.stats.malformed == [(3, "`message.role` is a number, not text")]
    json.dumps(session.meta.stats.to_dict())
