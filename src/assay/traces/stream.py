"""The exchanges of the chosen sessions, streamed one at a time.

Files are found, sniffed, the subagent files of a session among them set
aside (`fold_subagents`: their activity is in the parent's file), then read
one after another. With a filter (`--name`, `--since`, `--last`), which judges
sessions, not files (a file may hold several), each session's facts are needed
before its exchanges are used (a judge call cannot be taken back), so the files
are read twice: a survey first, keeping one small row per session, then the
real pass, which passes over the exchanges of the sessions left out.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from assay.errors import UserError
from assay.traces.exchanges import Exchange, FileCopies, SessionMeta
from assay.traces.knowledge import KnowledgeFolder
from assay.traces.options import TraceOptions
from assay.traces.repeats import RepeatedSessions
from assay.traces.selection import Selection
from assay.traces.sessions import (
    Session,
    discover,
    fold_subagents,
    iter_exchanges,
    readable,
    survey,
)
from assay.wording import plural


class ExchangeStream:
    """Iterate once for the exchanges; `sessions` gains one row per session as it is read
    (a file may hold several), and a question already counted from another file is left
    out (`repeats`). `selection` says what the filters kept, None without filters."""

    def __init__(self, paths: Sequence[str | Path], options: TraceOptions) -> None:
        found, self.unreadable = readable(discover(paths), options.format)
        files, self.subagent_files = fold_subagents(found)
        if not files:
            detail = "; ".join(f"{u.path}: {u.reason}" for u in self.unreadable[:5])
            raise UserError(f"no session files found in {', '.join(map(str, paths))}"
                            + (f" ({detail})" if detail else ""))
        self.options = options
        self.folder = (KnowledgeFolder.scan(options.knowledge)
                       if options.knowledge is not None else None)
        self.files = files
        self.selection: Selection | None = None
        self._chosen: set[tuple[str, int]] | None = None
        if options.filter.active:
            self._choose()
        self.sessions: list[Session] = []

    def _choose(self) -> None:
        """Survey every file and keep the places (file, place in it) of the sessions chosen."""
        rules = self.options.filter
        rows = [row for path in self.files for row in survey(path, self.options.format)]
        if not any(row.questions for row in rows):
            return  # no question to choose from: said as without filters (require_questions)
        kept, self.selection = rules.choose(rows)
        if not kept:  # an analysis of nothing would replace the report and guidelines
            found = plural(self.selection.found, "session")
            raise UserError(f"none of the {found} found matches {rules.describe()}"
                            f"{self.selection.undated_said()}; nothing was written")
        self._chosen = {(row.meta.path, row.place) for row in kept}
        self.files = list(dict.fromkeys(Path(row.meta.path) for row in kept))

    def _keeps(self, session: Session) -> bool:
        return self._chosen is None or (session.meta.path, session.place) in self._chosen

    def __iter__(self) -> Iterator[Exchange]:
        repeats = RepeatedSessions()
        copies = FileCopies()
        for path in self.files:
            session = Session(SessionMeta(str(path)))
            if self._keeps(session):
                self.sessions.append(session)
            for exchange in iter_exchanges(path, self.options.format, session,
                                           self.sessions.append, repeats, self._keeps):
                copies.number(exchange.session)
                if self.folder is not None:
                    self.folder.annotate(exchange)
                yield exchange
