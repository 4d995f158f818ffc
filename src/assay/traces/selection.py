"""Choosing sessions (`--name`, `--since`, `--last`), not files.

A file may hold several sessions (a rotated log, a Claude Code file that goes
on with another `sessionId`, a pi file with a second header), and a session
may be met in several files. The filters judge each session on its own: its
name, its start, read from every row it has. A session met in two files is
kept or left out whole, so it counts once as the analysis counts it.

A session with no start time (a chat log, whose lines carry no time) cannot be
placed by date: `--since` leaves it out and `--last` ranks it the oldest, and
the selection says how many were so treated.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from assay.traces.sessions import Session
from assay.wording import plural


@dataclass(frozen=True)
class Selection:
    """How many sessions the filters kept out of those found, as the terminal, eval-report.md
    and the stored run all say it."""

    found: int
    kept: int
    filters: str
    undated: int = 0
    """Sessions with no start time that met `--since` or `--last`."""
    undated_rule: str = ""
    """What was done with them: left out (`--since`) or ranked the oldest (`--last`)."""

    def note(self) -> str:
        """`kept 3 of 7 sessions (--since 2026-03-01)`, and `; 2 sessions with no start time
        left out (--since needs one)` when the time filters met such sessions."""
        said = f"kept {self.kept:,} of {plural(self.found, 'session')} ({self.filters})"
        return said + self.undated_said()

    def undated_said(self) -> str:
        """`; 2 sessions with no start time left out (--since needs one)`, or nothing."""
        if not self.undated:
            return ""
        return f"; {plural(self.undated, 'session')} with no start time {self.undated_rule}"

    def to_dict(self) -> dict[str, Any]:
        return {"found": self.found, "kept": self.kept, "filters": self.filters,
                "undated": self.undated, "note": self.note()}


@dataclass
class SessionFilter:
    """Which sessions to keep: the last N, those since a date, those whose name matches."""

    last: int | None = None
    since: datetime | None = None
    """Naive times are UTC, as are a session's start times written without an offset."""
    name: str | None = None
    """A glob matched case-insensitively against the session name, e.g. `query:*`."""

    @property
    def active(self) -> bool:
        return self.last is not None or self.since is not None or self.name is not None

    def describe(self) -> str:
        """The filters as given on the command line: `--name 'query:*' --since 2026-01-01`."""
        parts = [f"--name {self.name}" if self.name is not None else "",
                 f"--since {_moment(self.since)}" if self.since is not None else "",
                 f"--last {self.last}" if self.last is not None else ""]
        return " ".join(part for part in parts if part)

    def choose(self, rows: Sequence[Session]) -> tuple[list[Session], Selection]:
        """The rows of the sessions kept (every row of a session met in several files or
        places), and how many sessions were found and kept. Only sessions that hold a
        question are found: a header with nothing after it is no session to analyse, and
        `--last 1` choosing it would analyse nothing."""
        found = [group for group in _by_session(rows) if any(row.held_questions for row in group)]
        kept = found
        if self.name is not None:
            pattern = self.name.lower()
            kept = [group for group in kept if any(
                row.meta.name and fnmatch.fnmatchcase(row.meta.name.lower(), pattern)
                for row in group)]
        undated = sum(1 for group in kept if _started(group) is None) \
            if self.since is not None or self.last is not None else 0
        if self.since is not None:
            since = self.since if self.since.tzinfo else self.since.replace(tzinfo=UTC)
            kept = [group for group in kept
                    if (start := _started(group)) is not None and start >= since]
        if self.last is not None:
            oldest = datetime.min.replace(tzinfo=UTC)
            kept = sorted(kept, key=lambda group: _started(group) or oldest)[-self.last:] \
                if self.last else []
        rule = "left out (--since needs one)" if self.since is not None else \
            "ranked the oldest (--last)"
        chosen = {id(row) for group in kept for row in group}
        return ([row for row in rows if id(row) in chosen],
                Selection(len(found), len(kept), self.describe(), undated, rule))


def _by_session(rows: Sequence[Session]) -> list[list[Session]]:
    """Rows grouped by session: by id, and each row of a log with no id as its own."""
    groups: dict[object, list[Session]] = {}
    for row in rows:
        groups.setdefault(row.meta.id or id(row), []).append(row)
    return list(groups.values())


def _started(group: Sequence[Session]) -> datetime | None:
    """When a session started: the earliest start any of its rows knows."""
    return min((row.started for row in group if row.started is not None), default=None)


def _moment(when: datetime) -> str:
    """A date as `2026-03-01`, a time as ISO-8601 (`2026-03-01T09:00:00+02:00`)."""
    midnight = when.hour == when.minute == when.second == when.microsecond == 0
    return when.date().isoformat() if midnight and when.tzinfo is None else when.isoformat()
