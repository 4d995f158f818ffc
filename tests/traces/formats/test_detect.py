"""Choosing a reader, and accounting for lines that cannot be read."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from assay.errors import UserError
from assay.traces.formats import UnknownFormat, detect, reader_named
from assay.traces.sessions import load_session, load_sessions


def test_malformed_lines_are_counted_with_their_numbers(write_jsonl: Callable[..., Path]) -> None:
    rows = [{"role": "user", "content": "hi"}, "{not json", "[1, 2]",
            {"role": "assistant", "content": "hello"}]
    session, exchanges = load_session(write_jsonl("chat.jsonl", rows))
    assert session.meta.stats is not None
    assert [line for line, _ in session.meta.stats.malformed] == [2, 3]
    assert "not an object" in session.meta.stats.malformed[1][1]
    assert exchanges[0].answer == "hello"


def test_a_file_of_no_known_format_says_so(write_jsonl: Callable[..., Path]) -> None:
    path = write_jsonl("data.jsonl", [{"question": "q", "answer": "a"}])
    with pytest.raises(UnknownFormat, match="matches no session format.*answer, question"):
        detect(path)
    sessions, unreadable = load_sessions([path.parent])
    assert sessions == [] and unreadable[0].path == str(path)


def test_format_override_skips_detection(write_jsonl: Callable[..., Path]) -> None:
    # The first line alone looks like nothing known; forced, the chat reader reads it.
    rows = [{"note": "exported"}, {"role": "user", "content": "q"}]
    path = write_jsonl("chat.jsonl", rows)
    session, exchanges = load_session(path, format="openai-chat")
    assert [e.question for e in exchanges] == ["q"]
    assert session.meta.stats is not None and session.meta.stats.unknown_counts == {
        "line without role or messages": 1}


def test_unknown_format_name_is_a_user_error() -> None:
    with pytest.raises(UserError, match="unknown session format 'xml'"):
        reader_named("xml")


def test_a_log_that_starts_with_a_utf8_byte_order_mark_keeps_its_first_line(
        tmp_path: Path) -> None:
    """Regression: a log written with a UTF-8 byte order mark (as PowerShell and Notepad
    write UTF-8) lost its first line as 'invalid JSON: UTF-8 byte order mark (BOM) is not
    supported', and with it the first question; datasets and configs already allow one."""
    path = tmp_path / "chat.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"role": "user", "content": "hi"}\n'
                     b'{"role": "assistant", "content": "hello"}\n')
    session, exchanges = load_session(path)
    assert session.meta.stats is not None and session.meta.stats.malformed == []
    assert [(e.question, e.answer) for e in exchanges] == [("hi", "hello")]


def test_a_log_that_is_a_byte_order_mark_alone_is_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_bytes(b"\xef\xbb\xbf")
    with pytest.raises(UnknownFormat, match="empty file"):
        detect(path)
