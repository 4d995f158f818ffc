"""Sessions met in more than one file, counted once.

A log copied into the folder twice, or a rotated log that repeats the last
session of the one before, holds questions already read. A session is known
by its id (pi's header, Claude Code's `sessionId`); a question of a session
already read is known by its session, its time (else its place) and its text.
Chat logs carry no session id, so their files are always read as sessions of
their own. What is kept is one small hash per question of a session with an id.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay.traces.exchanges import Exchange
from assay.traces.sessions import Session
from assay.wording import plural


class RepeatedSessions:
    """Tells the questions already counted from another file, and notes where."""

    def __init__(self) -> None:
        self._first_file: dict[str, str] = {}
        self._asked: set[int] = set()

    def already_counted(self, exchange: Exchange, row: Session) -> bool:
        """True for a question of a session already read whose like was counted; it is
        then counted in `row.repeated`, and `row.also_in` names the file read first."""
        meta = exchange.session
        if not meta.id:
            return False
        first = self._first_file.setdefault(meta.id, meta.path)
        if first != meta.path and row.also_in is None:
            row.also_in = first
        key = hash((meta.id, exchange.started or f"#{exchange.index}", exchange.part,
                    exchange.question))
        if key in self._asked:
            row.repeated += 1
            return True
        self._asked.add(key)
        return False


def distinct_sessions(rows: Sequence[Session]) -> int:
    """Sessions read that held a question, a session met in several files (or twice in one)
    counted once."""
    held = [row for row in rows if row.held_questions]
    ids = {row.meta.id for row in held if row.meta.id}
    return len(ids) + sum(1 for row in held if not row.meta.id)


def repeat_notes(rows: Sequence[Session]) -> list[str]:
    """`session d703a1a9 appears in logs/a.jsonl and logs/b.jsonl: counted once (88
    questions in both)`, one per session read again from another file."""
    notes = []
    for row in rows:
        if row.also_in is None:
            continue
        both = f" ({plural(row.repeated, 'question')} in both)" if row.repeated else ""
        notes.append(f"session {row.meta.id} appears in {row.also_in} and {row.meta.path}: "
                     f"counted once{both}")
    return notes
