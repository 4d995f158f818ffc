"""Streaming the chosen sessions: one exchange at a time, nothing of it kept behind."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest

from assay.errors import UserError
from assay.traces.options import TraceOptions
from assay.traces.selection import SessionFilter
from assay.traces.sessions import survey
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


def _pi(day: int, questions: int, name: str | None = None, month: int = 2) -> list[dict]:
    """A pi session started on `day` of `month`; its name, if any, is set at the very end."""
    when = f"2026-{month:02}-{day:02}"
    rows: list[dict] = [{"type": "session", "version": 3, "id": f"s{month}-{day}",
                         "timestamp": f"{when}T08:00:00Z", "cwd": "/kb"}]
    parent = None
    for n in range(questions):
        for role, text in (("user", f"day {day} question {n}"), ("assistant", "answer")):
            entry = f"{role[0]}{n}"
            rows.append({"type": "message", "id": entry, "parentId": parent,
                         "timestamp": f"{when}T08:00:0{n % 10}Z",
                         "message": {"role": role, "content": text}})
            parent = entry
    if name:
        rows.append({"type": "session_info", "id": "i", "parentId": parent, "name": name,
                     "timestamp": f"{when}T09:00:00Z"})
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


def test_a_survey_has_a_row_for_each_session_a_file_holds(
        write_jsonl: Callable[..., Path]) -> None:
    path = write_jsonl("s.jsonl", _pi(4, 6) + _pi(5, 2, name="query: later"))
    rows = survey(path)
    assert [(row.meta.id, row.place, row.questions, row.meta.name) for row in rows] == [
        ("s2-4", 0, 6, None), ("s2-5", 1, 2, "query: later")]
    assert rows[1].started == datetime.fromisoformat("2026-02-05T08:00:00+00:00")


def _rotated(write_jsonl: Callable[..., Path]) -> Path:
    """A rotated log holding a January session, then two of March (the last one named);
    beside it a file of one February session."""
    write_jsonl("logs/rotated.jsonl",
                _pi(1, 2, month=1) + _pi(1, 2, month=3) + _pi(5, 2, "query: new", month=3))
    return write_jsonl("logs/other.jsonl", _pi(3, 1)).parent


def _asked(stream: ExchangeStream) -> list[str]:
    return [f"{e.session.id} {e.question}" for e in stream]


def test_since_keeps_the_later_sessions_of_a_log_whose_first_session_is_older(
        write_jsonl: Callable[..., Path]) -> None:
    """Regression: a rotated log was judged by its first session, so `--since 2026-03-01`
    dropped it whole: 'none of the 2 sessions found matches', nothing analysed."""
    stream = ExchangeStream([_rotated(write_jsonl)],
                            TraceOptions(filter=SessionFilter(since=datetime(2026, 3, 1))))
    assert _asked(stream) == ["s3-1 day 1 question 0", "s3-1 day 1 question 1",
                              "s3-5 day 5 question 0", "s3-5 day 5 question 1"]
    assert [(s.meta.id, s.questions) for s in stream.sessions] == [("s3-1", 2), ("s3-5", 2)]
    assert stream.selection is not None
    assert stream.selection.note() == "kept 2 of 4 sessions (--since 2026-03-01)"


def test_last_keeps_the_newest_session_not_the_whole_file_that_holds_it(
        write_jsonl: Callable[..., Path]) -> None:
    """Regression: `--last 1` ranked files by their first session: it kept the February
    file, and had it kept the rotated log, its January session would have come with it."""
    stream = ExchangeStream([_rotated(write_jsonl)],
                            TraceOptions(filter=SessionFilter(last=1)))
    assert _asked(stream) == ["s3-5 day 5 question 0", "s3-5 day 5 question 1"]
    assert [s.meta.id for s in stream.sessions] == ["s3-5"]


def test_name_matches_any_session_of_a_file_not_only_its_first(
        write_jsonl: Callable[..., Path]) -> None:
    stream = ExchangeStream([_rotated(write_jsonl)],
                            TraceOptions(filter=SessionFilter(name="query:*")))
    assert _asked(stream) == ["s3-5 day 5 question 0", "s3-5 day 5 question 1"]
    assert stream.selection is not None
    assert stream.selection.note() == "kept 1 of 4 sessions (--name query:*)"


def test_a_folder_of_unknown_files_is_a_user_error_naming_them(
        write_jsonl: Callable[..., Path]) -> None:
    path = write_jsonl("notes.jsonl", [{"question": "q"}])
    with pytest.raises(UserError, match=r"no session files found .*notes.jsonl: matches no"):
        ExchangeStream([path.parent], TraceOptions())


def test_a_filter_over_logs_that_hold_no_question_leaves_saying_so_to_the_analysis(
        write_jsonl: Callable[..., Path]) -> None:
    """With no question anywhere, 'none of the 0 sessions found matches --last 1' would
    hide why: the analysis says no question was found in the files read."""
    path = write_jsonl("bare.jsonl", _pi(4, 0))
    stream = ExchangeStream([path], TraceOptions(filter=SessionFilter(last=1)))
    assert list(stream) == [] and stream.selection is None
    assert [s.meta.id for s in stream.sessions] == ["s2-4"]


def test_a_log_copied_into_folders_of_one_name_gives_exchanges_ids_of_their_own(
        write_jsonl: Callable[..., Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The ids of a log and its copy in another folder of the same name were alike: only an
    exported dataset told them apart (`~2`), while the findings and the trace report named
    two questions by one id. The log's first line is taken as it is read, not read again."""
    from assay.traces import exchanges

    def read_again(path: Path) -> bytes:
        raise AssertionError(f"{path} read again for its first line")

    monkeypatch.setattr(exchanges, "_first_line", read_again, raising=False)
    for copy in ("c", "d"):
        folder = write_jsonl(f"logs/{copy}/chat/session.jsonl", _chat(2)).parents[2]
    ids = [exchange.id for exchange in ExchangeStream([folder], TraceOptions())]
    assert len(ids) == len(set(ids)) == 4
    assert ids[2:] == [f"{ids[0]}~2", f"{ids[1]}~2"]
