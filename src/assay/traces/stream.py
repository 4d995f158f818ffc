"""The exchanges of the chosen session files, streamed one at a time.

Files are found, sniffed, the subagent files of a session among them set
aside (`fold_subagents`: their activity is in the parent's file), filtered
(`--name`, `--since`, `--last`), then read one after another. A filter needs each session's facts before its
exchanges are used (a judge call cannot be taken back), so filtering reads
the files twice: a survey first, stopping at the header unless the name is
needed, then the real pass over the kept files.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from assay.errors import UserError
from assay.traces.exchanges import Exchange, SessionMeta
from assay.traces.knowledge import KnowledgeFolder
from assay.traces.options import TraceOptions
from assay.traces.repeats import RepeatedSessions
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
    out (`repeats`)."""

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
        self.files = self._chosen(files)
        self.sessions: list[Session] = []

    def _chosen(self, files: list[Path]) -> list[Path]:
        rules = self.options.filter
        if not rules.active:
            return files
        whole = rules.name is not None
        surveyed = [survey(path, self.options.format, whole) for path in files]
        kept = [Path(session.meta.path) for session in rules.apply(surveyed)]
        if not kept:  # an analysis of nothing would replace the report and guidelines
            raise UserError(f"none of the {plural(len(files), 'session')} found matches "
                            f"{rules.describe()}; nothing was analysed")
        return kept

    def __iter__(self) -> Iterator[Exchange]:
        repeats = RepeatedSessions()
        for path in self.files:
            session = Session(SessionMeta(str(path)))
            self.sessions.append(session)
            for exchange in iter_exchanges(path, self.options.format, session,
                                           self.sessions.append, repeats):
                if self.folder is not None:
                    self.folder.annotate(exchange)
                yield exchange
