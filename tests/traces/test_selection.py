"""Choosing sessions: the last N, those since a date, those whose name matches."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest

from assay.traces.selection import SessionFilter
from assay.traces.sessions import load_sessions


def _pi(day: int, name: str | None) -> list[dict]:
    rows: list[dict] = [{"type": "session", "version": 3, "id": f"s{day}",
                         "timestamp": f"2026-02-{day:02}T08:00:00Z", "cwd": "/kb"}]
    if name:
        rows.append({"type": "session_info", "id": "i", "parentId": None, "name": name,
                     "timestamp": f"2026-02-{day:02}T08:00:00Z"})
    rows.append({"type": "message", "id": "m", "parentId": "i", "message":
                 {"role": "user", "content": f"question of day {day}"},
                 "timestamp": f"2026-02-{day:02}T08:00:01Z"})
    return rows


@pytest.fixture
def sessions(write_jsonl: Callable[..., Path]) -> list:
    write_jsonl("a.jsonl", _pi(3, "query: leases"))
    write_jsonl("b.jsonl", _pi(1, "Query: fuel"))
    write_jsonl("nested/c.jsonl", _pi(2, None))
    found, unreadable = load_sessions([write_jsonl("x.jsonl", _pi(9, None)).parent])
    assert unreadable == []
    return found


def _days(kept: list) -> list[int]:
    return sorted(int(s.meta.id[1:]) for s in kept)


def test_name_filter_is_a_case_insensitive_glob(sessions: list) -> None:
    assert _days(SessionFilter(name="query:*").choose(sessions)[0]) == [1, 3]


def test_last_keeps_the_most_recent(sessions: list) -> None:
    assert _days(SessionFilter(last=2).choose(sessions)[0]) == [3, 9]
    assert SessionFilter(last=0).choose(sessions)[0] == []


def test_since_keeps_sessions_started_on_or_after(sessions: list) -> None:
    assert _days(SessionFilter(since=datetime(2026, 2, 2)).choose(sessions)[0]) == [2, 3, 9]


def test_filters_combine(sessions: list) -> None:
    assert _days(SessionFilter(name="query:*", last=1).choose(sessions)[0]) == [3]




def test_a_session_met_in_two_files_is_chosen_whole_and_counted_once(
        write_jsonl: Callable[..., Path]) -> None:
    write_jsonl("logs/a.jsonl", _pi(5, None))
    write_jsonl("logs/copy.jsonl", _pi(5, None))
    rows, _ = load_sessions([write_jsonl("logs/b.jsonl", _pi(1, None)).parent])
    kept, selection = SessionFilter(last=1).choose(rows)
    assert sorted(Path(row.meta.path).name for row in kept) == ["a.jsonl", "copy.jsonl"]
    assert selection.note() == "kept 1 of 2 sessions (--last 1)"


def _chat(question: str) -> list[dict]:
    """A chat log: its lines carry no time, so its session has no start time."""
    return [{"role": "user", "content": question}, {"role": "assistant", "content": "yes"}]


def test_since_leaves_out_a_session_with_no_start_time_and_says_so(
        write_jsonl: Callable[..., Path]) -> None:
    write_jsonl("logs/chat.jsonl", _chat("when?"))
    rows, _ = load_sessions([write_jsonl("logs/pi.jsonl", _pi(3, None)).parent])
    kept, selection = SessionFilter(since=datetime(2026, 2, 1)).choose(rows)
    assert [Path(row.meta.path).name for row in kept] == ["pi.jsonl"]
    assert selection.note() == ("kept 1 of 2 sessions (--since 2026-02-01); 1 session with "
                                "no start time left out (--since needs one)")


def test_last_ranks_a_session_with_no_start_time_the_oldest_and_says_so(
        write_jsonl: Callable[..., Path]) -> None:
    write_jsonl("logs/chat.jsonl", _chat("when?"))
    rows, _ = load_sessions([write_jsonl("logs/pi.jsonl", _pi(3, None)).parent])
    kept, selection = SessionFilter(last=1).choose(rows)
    assert [Path(row.meta.path).name for row in kept] == ["pi.jsonl"]
    assert selection.note().endswith("; 1 session with no start time ranked the oldest (--last)")


def test_since_with_a_time_and_an_offset_is_applied_and_described_as_given(
        sessions: list) -> None:
    """Regression: `--since 2026-02-03T09:00+02:00` was described as `--since 2026-02-03`."""
    since = datetime.fromisoformat("2026-02-03T09:00:00+02:00")  # 07:00 UTC, day 3 at 08:00
    kept, selection = SessionFilter(since=since).choose(sessions)
    assert _days(kept) == [3, 9]
    assert selection.filters == "--since 2026-02-03T09:00:00+02:00"
    later = datetime.fromisoformat("2026-02-03T11:00:00+02:00")  # 09:00 UTC
    assert _days(SessionFilter(since=later).choose(sessions)[0]) == [9]


def test_last_passes_over_a_session_that_holds_no_question(
        write_jsonl: Callable[..., Path]) -> None:
    """Regression: a log opening with a newer session's bare header had `--last 1` choose
    that header, and the analysis stopped with 'no question found in the 1 session file
    read', though the file held questions."""
    header = _pi(9, None)[:1]
    rows, _ = load_sessions([write_jsonl("logs/a.jsonl", header + _pi(3, None) + _pi(4, None))])
    kept, selection = SessionFilter(last=1).choose(rows)
    assert [row.meta.id for row in kept] == ["s4"]
    assert selection.note() == "kept 1 of 2 sessions (--last 1)"


def test_a_since_before_year_1000_is_said_as_typed() -> None:
    """`--since 0001-01-01` was echoed in the report as `--since 1-01-01`."""
    assert SessionFilter(since=datetime(1, 1, 1)).describe() == "--since 0001-01-01"
    assert SessionFilter(since=datetime(2026, 3, 1)).describe() == "--since 2026-03-01"
