"""Finding session files, streaming each into exchanges, and surveying the sessions they hold.

A session is kept as one small row (its facts and how many questions it
held), never with its exchanges: those stream past the metrics and the
judge and are gone, so memory does not grow with the size of the logs.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from assay.input_files import require_regular_file
from assay.traces.exchanges import Exchange, SessionMeta, build_exchanges, parse_time
from assay.traces.formats import ParseStats, UnknownFormat, detect, read_events, reader_named
from assay.traces.formats.detect import not_text
from assay.traces.log_files import (
    GZIP_DAMAGE,
    READ_FAILURES,
    damage_reason,
    is_log_name,
    log_stem,
    open_log,
)

if TYPE_CHECKING:
    from assay.traces.repeats import RepeatedSessions


@dataclass
class Session:
    """One session file, summarised as its exchanges stream past."""

    meta: SessionMeta
    questions: int = 0
    first_question: str | None = None
    """Raw timestamp of the first exchange: the start when the file has no header."""
    repeated: int = 0
    """Questions left out as already counted from another file (see `repeats`)."""
    also_in: str | None = None
    """The file this session was read from first, when it is read again here."""
    place: int = 0
    """Its place among the sessions of its file, from 0: a filter's choice names a session
    by its file and place, which a second read of the file finds again."""

    @property
    def started(self) -> datetime | None:
        return parse_time(self.meta.started) or parse_time(self.first_question)

    @property
    def held_questions(self) -> bool:
        """Whether a question was read here (or left out as already counted from another
        file). A session header with nothing after it is no session to analyse: it is
        counted, listed and chosen nowhere, wherever it stands in its file."""
        return self.questions > 0 or self.repeated > 0


@dataclass
class Unreadable:
    """A file that was found but matches no session format, and why."""

    path: str
    reason: str


def discover(paths: Sequence[str | Path]) -> list[Path]:
    """Every `.jsonl` (or gzipped `.jsonl.gz`) file named or found under the given paths, in a stable order, each once
    (a file named twice, or also found under a folder given, is one session, not two).
    Under a folder, entries that are not regular files (a link to nothing, a pipe) are
    found too, and folders that cannot be listed, for `readable` to say why they are not
    read."""
    found: dict[Path, Path] = {}
    for raw in paths:
        path = Path(raw)
        if os.path.isdir(path):  # never raises, unlike Path.is_dir on a name too long
            files = _found_under(path)
        else:
            require_regular_file(path, "session log")
            files = [path]
        for file in files:
            found.setdefault(real_path(file), file)
    return list(found.values())


def _found_under(folder: Path) -> list[Path]:
    """The `.jsonl` and `.jsonl.gz` entries under `folder` (links to folders not followed), and the folders
    under it that cannot be listed: `Path.rglob` passed over those without a word, so the
    logs in a folder of another user's were left out of the analysis unsaid."""
    found: list[Path] = []

    def unlisted(error: OSError) -> None:
        found.append(Path(error.filename) if error.filename else folder)

    for root, _, names in os.walk(folder, onerror=unlisted):
        found += [Path(root, name) for name in names if is_log_name(name)]
    return sorted(found)


def real_path(path: Path) -> Path:
    """The file `path` names, its links followed: a loop of links (`a.jsonl -> a.jsonl`)
    is its own name, for `readable` to say why it is not read (`Path.resolve` raises on
    Python 3.11)."""
    return Path(os.path.realpath(path))


def subagent_parent(path: Path, lines: int = 5) -> str | None:
    """The session id of the parent, when `path` is a Claude Code subagent file (2.x writes
    each subagent to a file of its own, every line `isSidechain: true` with the parent's
    `sessionId`); None for any other file."""
    try:
        with open_log(path) as handle:
            for _, raw in zip(range(lines), handle):
                try:
                    obj = json.loads(raw.decode("utf-8", errors="replace"))
                except (ValueError, RecursionError):
                    continue
                if isinstance(obj, dict) and "sessionId" in obj:
                    parent = obj.get("sessionId")
                    return parent if obj.get("isSidechain") is True and isinstance(
                        parent, str) and parent != log_stem(path) else None
    except READ_FAILURES:
        return None
    return None


def fold_subagents(files: Sequence[Path]) -> tuple[list[Path], list[Path]]:
    """Split `files` into sessions and the subagent files of a parent session among them.

    A subagent's lines are mirrored into its parent's file (`agent_progress`), so the
    parent already counts its reads and tool calls: the subagent file is counted with
    its parent, not as a session of its own. A subagent file whose parent is not among
    `files` is read as a session, since there is nothing else to count it with."""
    stems = {log_stem(path) for path in files}
    sessions: list[Path] = []
    folded: list[Path] = []
    for path in files:
        parent = subagent_parent(path)
        (folded if parent is not None and parent in stems else sessions).append(path)
    return sessions, folded


def readable(files: Sequence[Path], format: str | None = None
             ) -> tuple[list[Path], list[Unreadable]]:
    """Split files into those a reader fits and those that cannot be read, are not text, or
    that no reader fits (from their first lines), each with the reason."""
    if format is not None:
        reader_named(format)
    good: list[Path] = []
    bad: list[Unreadable] = []
    for path in files:
        problem = unopenable(path)
        if problem is None:
            try:
                problem = not_text(path) or (None if format else _undetected(path))
            except GZIP_DAMAGE as exc:  # before OSError: a bad gzip header is one
                problem = damage_reason(exc)
            except OSError as exc:
                problem = f"cannot read it: {exc.strerror or exc}"
        if problem is None:
            good.append(path)
        else:
            bad.append(Unreadable(str(path), problem))
    return good, bad


def _undetected(path: Path) -> str | None:
    """Why no reader fits `path`, or None when one does."""
    try:
        detect(path)
    except UnknownFormat as exc:
        return str(exc)
    return None


def unopenable(path: Path) -> str | None:
    """Why a file found under a folder (or the folder) cannot be read as a log, or None
    when it can."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return (f"a link to {os.readlink(path)}, which does not exist" if os.path.islink(path)
                else "gone before it was read")
    except OSError as exc:  # a loop of links, a name the file system refuses
        return f"cannot open it: {exc.strerror or exc}"
    if stat.S_ISDIR(mode):  # found by `discover` only when it could not be listed
        try:
            os.listdir(path)
        except OSError as exc:
            return f"a folder that cannot be listed, so no log in it was read: {exc.strerror or exc}"
        return "a folder, not a session log"
    if not stat.S_ISREG(mode):
        return "not a regular file (a pipe or a device): reading it could block forever"
    if not os.access(path, os.R_OK):
        return "cannot read it: permission denied"
    return None


def iter_exchanges(path: Path, format: str | None = None, session: Session | None = None,
                   opened: Callable[[Session], None] | None = None,
                   repeats: RepeatedSessions | None = None,
                   chosen: Callable[[Session], bool] | None = None
                   ) -> Generator[Exchange, None, None]:
    """Stream one file's exchanges, filling in `session` as they pass.

    A file that goes on with another session gets a row of its own, handed to `opened`;
    with `chosen`, the exchanges of a session it refuses are passed over (and its row is
    not handed on); with `repeats`, a question already counted from another file is left
    out. Raises UnknownFormat at once (not on the first `next`) when no reader fits.
    """
    reader = reader_named(format) if format else detect(path)
    session = session or Session(SessionMeta(str(path)))
    stats = ParseStats(str(path))
    session.meta.stats = stats
    session.meta.format = reader.name
    return _counted(build_exchanges(read_events(path, reader, stats), session.meta, stats),
                    session, opened, repeats, chosen)


def _counted(exchanges: Iterator[Exchange], session: Session,
             opened: Callable[[Session], None] | None, repeats: RepeatedSessions | None,
             chosen: Callable[[Session], bool] | None
             ) -> Generator[Exchange, None, None]:
    kept = chosen is None or chosen(session)
    for exchange in exchanges:
        if exchange.session is not session.meta:  # the next session the file holds
            session = Session(exchange.session, place=session.place + 1)
            kept = chosen is None or chosen(session)
            if kept and opened is not None:
                opened(session)
        if not kept:
            continue
        if repeats is not None and repeats.already_counted(exchange, session):
            continue
        session.questions += 1
        if session.questions == 1:
            session.first_question = exchange.started
        yield exchange


def file_stats(sessions: Iterable[Session]) -> list[ParseStats]:
    """The line statistics of the files read, each once (sessions of one file share them)."""
    unique: dict[int, ParseStats] = {}
    for session in sessions:
        if session.meta.stats is not None:
            unique.setdefault(id(session.meta.stats), session.meta.stats)
    return list(unique.values())


def load_session(path: Path, format: str | None = None) -> tuple[Session, list[Exchange]]:
    """One file's row and all its exchanges in memory: for a single small file, not a folder."""
    session = Session(SessionMeta(str(path)))
    return session, list(iter_exchanges(path, format, session))


def survey(path: Path, format: str | None = None) -> list[Session]:
    """A file's rows, one per session it holds, its exchanges dropped as read. The whole
    file is read: a later session's start and any session's name can be anywhere in it."""
    rows = [Session(SessionMeta(str(path)))]
    exchanges = iter_exchanges(path, format, rows[0], rows.append)
    try:
        for _ in exchanges:
            pass
    finally:
        exchanges.close()
    return rows


def load_sessions(paths: Sequence[str | Path], format: str | None = None
                  ) -> tuple[list[Session], list[Unreadable]]:
    """Every session's row under `paths` (a file may hold several); files of no known
    format are listed, not fatal."""
    files, unreadable = readable(discover(paths), format)
    return [row for path in files for row in survey(path, format)], unreadable
