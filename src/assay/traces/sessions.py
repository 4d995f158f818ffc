"""Finding session files, reading each into exchanges, and choosing which sessions count."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from assay.errors import UserError
from assay.traces.exchanges import Exchange, SessionMeta, build_exchanges, parse_time
from assay.traces.formats import ParseStats, UnknownFormat, detect, read_events, reader_named


@dataclass
class Session:
    meta: SessionMeta
    exchanges: list[Exchange] = field(default_factory=list)

    @property
    def started(self) -> datetime | None:
        first = self.exchanges[0].started if self.exchanges else None
        return parse_time(self.meta.started) or parse_time(first)


@dataclass
class Unreadable:
    """A file that was found but matches no session format, and why."""

    path: str
    reason: str


def discover(paths: Sequence[str | Path]) -> list[Path]:
    """Every `.jsonl` file named or found under the given paths, in a stable order."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*.jsonl") if p.is_file()))
        elif path.is_file():
            found.append(path)
        else:
            raise UserError(f"{path}: no such file or directory")
    return found


def iter_exchanges(path: Path, format: str | None = None,
                   meta: SessionMeta | None = None) -> Iterator[Exchange]:
    """Stream one file's exchanges; raises UnknownFormat when no reader fits."""
    reader = reader_named(format) if format else detect(path)
    stats = ParseStats(str(path))
    meta = meta or SessionMeta(str(path))
    meta.stats = stats
    meta.format = reader.name
    return build_exchanges(read_events(path, reader, stats), meta, stats)


def load_session(path: Path, format: str | None = None) -> Session:
    meta = SessionMeta(str(path))
    exchanges = list(iter_exchanges(path, format, meta))
    return Session(meta, exchanges)


def load_sessions(paths: Sequence[str | Path], format: str | None = None
                  ) -> tuple[list[Session], list[Unreadable]]:
    """Read every session file under `paths`; files of no known format are listed, not fatal."""
    sessions: list[Session] = []
    unreadable: list[Unreadable] = []
    for path in discover(paths):
        try:
            sessions.append(load_session(path, format))
        except UnknownFormat as exc:
            unreadable.append(Unreadable(str(path), str(exc)))
    return sessions, unreadable


@dataclass
class SessionFilter:
    """Which sessions to keep: the last N, those since a date, those whose name matches."""

    last: int | None = None
    since: datetime | None = None
    name: str | None = None
    """A glob matched case-insensitively against the session name, e.g. `query:*`."""

    def apply(self, sessions: list[Session]) -> list[Session]:
        kept = sessions
        if self.name is not None:
            pattern = self.name.lower()
            kept = [s for s in kept
                    if s.meta.name and fnmatch.fnmatchcase(s.meta.name.lower(), pattern)]
        if self.since is not None:
            since = self.since if self.since.tzinfo else self.since.replace(tzinfo=UTC)
            kept = [s for s in kept if s.started is not None and s.started >= since]
        if self.last is not None:
            epoch = datetime.min.replace(tzinfo=UTC)
            kept = sorted(kept, key=lambda s: s.started or epoch)[-self.last:] if self.last else []
        return kept
