"""Streaming the chosen sessions: one exchange at a time, nothing of it kept behind."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest

from assay.errors import UserError
from assay.traces.options import TraceOptions
from assay.traces.sessions import SessionFilter, survey
from assay.traces.stream import ExchangeStream


def _chat(questions: int, unanswered_call: bool = False) -> list[dict]:
    """A chat session: each question reads a file and is answered; optionally one call
    never gets its result (the kind of loose end that could pin an exchange in memory)."""
    rows: list[dict] = []
    for n in range(questions):
        rows.append({"role": "user", "content": f"question {n}"})
        rows.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{n}", "name": "read_file", "arguments": {"path": f"docs/{n}.md"}}]})
        if not (unanswered_call and n == 1):
            rows.append({"role": "tool", "tool_call_id": f"c{n}", "content": f"body {n}"})
        rows.append({"role": "assistant", "content": f"answer {n}"})
    return rows


def _pi(day: int, questions: int, name: str | None = None) -> list[dict]:
    """A pi session started on `day`; its name, if any, is set at the very end."""
    rows: list[dict] = [{"type": "session", "version": 3, "id": f"s{day}",
                         "timestamp": f"2026-02-{day:02}T08:00:00Z", "cwd": "/kb"}]
    parent = None
    for n in range(questions):
        for role, text in (("user", f"day {day} question {n}"), ("assistant", "answer")):
            entry = f"{role[0]}{n}"
            rows.append({"type": "message", "id": entry, "parentId": parent,
                         "timestamp": f"2026-02-{day:02}T08:00:0{n % 10}Z",
                         "message": {"role": role, "content": text}})
            parent = entry
    if name:
        rows.append({"type": "session_info", "id": "i", "parentId": parent, "name": name,
                     "timestamp": f"2026-02-{day:02}T09:00:00Z"})
    return rows


def test_no_exchange_outlives_its_turn(write_jsonl: Callable[..., Path]) -> None:
    write_jsonl("logs/a.jsonl", _chat(5, unanswered_call=True))
    folder = write_jsonl("logs/b.jsonl", _chat(4)).parent
    stream = ExchangeStream([folder], TraceOptions())
    seen: list[weakref.ref] = []
    for exchange in stream:
        seen.append(weakref.ref(exchange))
        del exchange
        assert [ref() is None for ref in seen[:-1]] == [True] * (len(seen) - 1)
    assert len(seen) == 9
    assert [(Path(s.meta.path).name, s.questions) for s in stream.sessions] == [
        ("a.jsonl", 5), ("b.jsonl", 4)]


def test_filters_choose_the_files_before_any_exchange_streams(
        write_jsonl: Callable[..., Path]) -> None:
    for day in (1, 2, 3):
        folder = write_jsonl(f"logs/day{day}.jsonl", _pi(day, 2)).parent
    last = ExchangeStream([folder], TraceOptions(filter=SessionFilter(last=1)))
    assert [e.question for e in last] == ["day 3 question 0", "day 3 question 1"]
    since = ExchangeStream([folder], TraceOptions(filter=SessionFilter(since=datetime(2026, 2, 2))))
    assert [Path(p).name for p in since.files] == ["day2.jsonl", "day3.jsonl"]


def test_a_name_given_at_the_end_of_a_file_is_honoured(write_jsonl: Callable[..., Path]) -> None:
    write_jsonl("logs/named.jsonl", _pi(1, 3, name="query: leases"))
    folder = write_jsonl("logs/plain.jsonl", _pi(2, 3)).parent
    stream = ExchangeStream([folder], TraceOptions(filter=SessionFilter(name="query:*")))
    assert [Path(p).name for p in stream.files] == ["named.jsonl"]


def test_a_survey_for_the_start_stops_after_the_header(write_jsonl: Callable[..., Path]) -> None:
    path = write_jsonl("s.jsonl", _pi(4, 6))
    early = survey(path, whole=False)
    whole = survey(path)
    assert early.started == whole.started == datetime.fromisoformat("2026-02-04T08:00:00+00:00")
    assert early.meta.stats is not None and whole.meta.stats is not None
    assert early.meta.stats.lines < whole.meta.stats.lines == 13


def test_a_folder_of_unknown_files_is_a_user_error_naming_them(
        write_jsonl: Callable[..., Path]) -> None:
    path = write_jsonl("notes.jsonl", [{"question": "q"}])
    with pytest.raises(UserError, match=r"no session files found .*notes.jsonl: matches no"):
        ExchangeStream([path.parent], TraceOptions())
