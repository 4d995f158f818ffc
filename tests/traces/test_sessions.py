"""Choosing sessions: the last N, those since a date, those whose name matches."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
import os
from pathlib import Path

import pytest

from assay.errors import UserError
from assay.traces.sessions import SessionFilter, discover, load_sessions


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
    assert _days(SessionFilter(name="query:*").apply(sessions)) == [1, 3]


def test_last_keeps_the_most_recent(sessions: list) -> None:
    assert _days(SessionFilter(last=2).apply(sessions)) == [3, 9]
    assert SessionFilter(last=0).apply(sessions) == []


def test_since_keeps_sessions_started_on_or_after(sessions: list) -> None:
    assert _days(SessionFilter(since=datetime(2026, 2, 2)).apply(sessions)) == [2, 3, 9]


def test_filters_combine(sessions: list) -> None:
    assert _days(SessionFilter(name="query:*", last=1).apply(sessions)) == [3]


def test_a_missing_path_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="session log not found"):
        discover([tmp_path / "nope"])


def test_a_file_named_twice_or_with_its_folder_is_one_session(sessions_dir: Path) -> None:
    """Regression: `assay traces a.jsonl a.jsonl DIR` read a.jsonl three times: three sessions
    and three times its questions in the report, and its cases three times in an export."""
    short = next(sessions_dir.rglob("short.jsonl"))
    folder = short.parent
    found = discover([short, short, folder, Path(str(folder) + "/../" + folder.name)])
    assert found == [short, *(p for p in discover([folder]) if p != short)]
    assert len(found) == len(discover([folder]))


def test_a_session_path_that_is_a_fifo_is_refused_as_such_not_reported_missing(
        tmp_path: Path) -> None:
    """Regression: `assay traces PIPE` said "no such file or directory" of a FIFO that
    exists; and a name too long for the file system raised OSError (an internal error)."""
    fifo = tmp_path / "live.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(UserError, match="not a regular file"):
        discover([fifo])
    with pytest.raises(UserError, match="cannot open session log"):
        discover([tmp_path / ("x" * 300)])
