"""The Store: every run, trial and score, and the LLM response cache, in SQL.

SQLite at `.assay/assay.db` by default (WAL, so readers never block the
writer); any SQLAlchemy URL (`postgresql+psycopg://...`) via `--store` or
`ASSAY_STORE`. Writes are batched: the runner hands over finished trials in
groups, each group one transaction (row by row when the database refuses a
row, see `batches`). Every value is made storable on the way in (see
`storable`), every database error comes out as a one-line `StoreError`
(see `failures`), and `run_lock` keeps a run to one process at a time.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Engine,
    and_,
    create_engine,
    delete,
    event,
    func,
    or_,
    select,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.sql.elements import ColumnElement

from assay.errors import StoreError, UserError
from assay.records import TRIAL_KINDS, ExportRecord, RunRecord, labelled_experiment
from assay.redaction import redact, redact_rows
from assay.store import schema
from assay.store.answer_wait import answering_within
from assay.store.batches import StoredBatch, write_batch
from assay.store.browsing import Browsing
from assay.store.calibrations import Calibrations
from assay.store.failures import (
    driver_message,
    store_name,
    translate_errors,
)
from assay.store.migrations import (
    SCHEMA_VERSION,
    current_version,
    migrate_store,
    refuse_newer,
    refuse_unreadable,
)
from assay.store.read_only import cannot_be_written, no_store_in, open_read_only
from assay.store.response_cache import CachedReplies
from assay.store.rows import loads, now_iso, run_record
from assay.store.run_lock import RunLock
from assay.store.scores import ScoreAccess
from assay.store.storable import Replacements, Storable
from assay.store.store_address import LOCK_WAIT_SECONDS, checked_url, engine_arguments
from assay.store.store_file import StoreFile
from assay.store.trial_reading import TrialReading
from assay.store.trial_rows import (
    SCORE_TEXT_COLUMNS,
    TRIAL_TEXT_COLUMNS,
    TrialRows,
    errored_rows,
    trial_rows,
)
from assay.trial import TrialKey, TrialResult

DEFAULT_STORE = ".assay/assay.db"


def store_url(url: str | None = None, *, create: bool = True) -> str:
    """The store to use: an explicit URL or path, else `ASSAY_STORE`, else `.assay/assay.db`.

    A SQLite path's folder is made unless `create` is False (a reader makes nothing); a
    path that is a folder, a FIFO or a device (`/dev/null`, which SQLite reported as a disk
    I/O error) or under a file (`/dev/full/x.db`) is a `UserError`, a folder that cannot be
    made otherwise (no permission, a full disk) a `StoreError`."""
    target = url or os.environ.get("ASSAY_STORE") or DEFAULT_STORE
    if "://" in target:
        return checked_url(target)
    path = Path(target).expanduser()
    if path.is_dir():
        raise UserError(f"the store {path} is a folder; name a file in it "
                        f"(e.g. {path / 'assay.db'})")
    if path.exists() and not path.is_file():
        raise UserError(f"the store {path} is not a file (a pipe, a socket or a device): "
                        "name a file, e.g. .assay/assay.db")
    if create:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):  # a file (or a device) on the way
            raise UserError(f"the store {path} cannot be made: {_not_a_folder(path)} is not a "
                            "folder; name a file in a folder, e.g. .assay/assay.db") from None
        except OSError as exc:
            raise StoreError(f"cannot create the folder of the store {path}: "
                             f"{exc.strerror or exc}") from None
    return checked_url(f"sqlite:///{path}")


def _not_a_folder(path: Path) -> Path:
    """The nearest folder of `path` that exists: the file that stops its folder being made."""
    return next((parent for parent in path.parents if parent.exists()), path.parent)


def no_store_at(url: str | None = None) -> str | None:
    """Why the SQLite file `url` names holds no store, when it is missing or empty (a reader
    must not create one: `assay runs --store team.bd` would make an empty store and say it
    holds no runs, and over a zero-byte file it wrote the tables in); None for a file that
    holds something, or another database's URL."""
    database = _sqlite_file(url)
    return None if database is None else no_store_in(Path(database))


def unwritable_file(url: str | None = None) -> bool:
    """Whether `url` names a SQLite file that is there and that this process cannot write
    (or write beside): see `read_only.cannot_be_written`."""
    database = _sqlite_file(url)
    return database is not None and Path(database).is_file() \
        and cannot_be_written(Path(database))


def open_as_it_is(url: str | None) -> Store:
    """A store this process cannot write (a read-only mount), opened to read without being
    upgraded: one a newer assay wrote, or an older one made without what the reading needs
    (a column), is refused with what to do (`refuse_newer`, `refuse_unreadable`)."""
    store, version = _read_only_with_version(url)
    if version < SCHEMA_VERSION:
        store.close()
        refuse_unreadable(version, store.url)
    return store


def open_to_read(url: str | None) -> Store:
    """The store, read-only; one made by an older assay is first upgraded in place, as any
    assay command that opens it would (the reader itself never writes), unless this process
    cannot write it (a read-only mount), where it is read as it is (`open_as_it_is`). Read
    as it was, an older store failed at the first column its migrations add ('no such
    column: runs.pack_hashes_json')."""
    if unwritable_file(url):
        return open_as_it_is(url)
    store, version = _read_only_with_version(url)
    if version < SCHEMA_VERSION:
        store.close()
        Store(url).close()
        store = Store(url, read_only=True)
    return store


def _read_only_with_version(url: str | None) -> tuple[Store, int]:
    """The store opened read-only, with its schema version; refused (and closed) when a
    newer assay wrote it."""
    store = Store(url, read_only=True)
    try:
        with store.engine.connect() as conn:
            version = current_version(conn)
        refuse_newer(version, store.url)
    except BaseException:
        store.close()
        raise
    return store, version


def _sqlite_file(url: str | None) -> str | None:
    parsed = make_url(store_url(url, create=False))
    database = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or database in ("", ":memory:"):
        return None
    return database


class Store(Browsing, ScoreAccess, TrialReading, CachedReplies):
    """Runs, trials, scores, calibrations and cached responses behind one SQLAlchemy engine.

    `read_only=True` opens an existing store for reading only (`assay view`): the
    database refuses every write, and nothing is created or migrated.
    """

    def __init__(self, url: str | None = None, *, read_only: bool = False) -> None:
        self.url = store_url(url, create=not read_only)
        self.read_only = read_only
        self._lock = threading.Lock()
        if read_only:
            self.engine: Engine = open_read_only(self.url)
        else:
            try:
                address, arguments = engine_arguments(self.url)
                self.engine = create_engine(address, future=True, connect_args=arguments)
                answering_within(self.engine)
            except ArgumentError as exc:  # the driver is checked with the URL (`checked_url`)
                raise StoreError(f"cannot use the store {store_name(self.url)}: "
                                 f"{driver_message(exc)}") from None
        translate_errors(self.engine, self.url)
        self.calibrations = Calibrations(self.engine, self._lock)
        sqlite = self.engine.dialect.name == "sqlite"
        self.storable = Storable(nul_allowed=sqlite)
        """PostgreSQL's text columns refuse NUL; SQLite's keep it."""
        self.file: StoreFile | None = StoreFile.opened(self.url) if sqlite else None
        """The SQLite file opened, checked before each batch of trials (see `store_file`)
        and by `assay view` before each page."""
        if read_only:
            return
        if sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)
        try:
            migrate_store(self.engine)
        except BaseException:
            self.engine.dispose()
            raise
        if sqlite and self.file is None:  # a store just created
            self.file = StoreFile.opened(self.url)

    def close(self) -> None:
        self.engine.dispose()

    @property
    def across_a_network(self) -> bool:
        """Whether each statement is a round trip to a server (PostgreSQL), not a read or a
        write of a file of this machine (SQLite)."""
        return self.engine.dialect.name != "sqlite"

    # -- runs -----------------------------------------------------------------

    def create_run(self, **fields: Any) -> None:
        row = dict(fields)
        row.setdefault("started_at", now_iso())
        row.setdefault("kind", "eval")
        row.setdefault("status", "running")
        for name in ("config", "summary", "options"):
            row.setdefault(name, None)
        with self.engine.begin() as conn:
            conn.execute(schema.runs.insert().values(**self._run_values(row)))

    def update_run(self, run_id: str, **fields: Any) -> None:
        values = self._run_values(fields)
        with self.engine.begin() as conn:
            conn.execute(update(schema.runs).where(schema.runs.c.id == run_id).values(**values))

    def _run_values(self, fields: dict[str, Any]) -> dict[str, Any]:
        """A run's columns made storable: `config`, `summary`, `options`, `review` and
        `pack_hashes` as JSON, texts (a path from a file system that is not UTF-8, an
        error) without what cannot be stored, known secrets masked (a traces analysis's findings quote the
        sessions, which may quote a key). A config is masked where it is loaded
        (`redaction.redact_structure`), or was stored so by the run it is copied from."""
        notes = Replacements()  # a run has no trial to carry a note; its values are ours
        values: dict[str, Any] = {}
        for name, value in fields.items():
            if name in ("config", "summary", "options", "review", "pack_hashes"):
                values[f"{name}_json"] = self.storable.json(value, name, notes)
            elif isinstance(value, str):
                values[name] = self.storable.text(value, name, notes)
            else:
                values[name] = value
        redact_rows([values], [name for name, value in values.items()
                               if isinstance(value, str) and name != "config_json"])
        return values

    def run_lock(self) -> RunLock:
        """A lock to hold a run with (`acquire(run_id)`), one process per run at a time."""
        return RunLock(self.engine)

    def get_run(self, run_id: str) -> RunRecord | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(schema.runs).where(schema.runs.c.id == run_id)).first()
        return run_record(row) if row else None

    def list_runs(self, experiment: str | None = None, *,
                  kind: str | tuple[str, ...] | None = None,
                  status: str | None = None, limit: int | None = 50) -> list[RunRecord]:
        """Runs newest first, optionally of one experiment, kind (or kinds) or status. The
        experiment may be named as `assay runs` prints it (`m (rejudge)`: m's rejudges), so
        every command takes back the name another printed; a run of an experiment literally
        named so comes first."""
        runs = self._list_runs(experiment, kind=kind, status=status, limit=limit)
        labelled = labelled_experiment(experiment) if experiment and not runs else None
        if labelled is None or not _kind_allowed(labelled[1], kind):
            return runs
        return self._list_runs(labelled[0], kind=labelled[1], status=status, limit=limit)

    def _list_runs(self, experiment: str | None, *, kind: str | tuple[str, ...] | None,
                   status: str | None, limit: int | None) -> list[RunRecord]:
        query = select(schema.runs).order_by(schema.runs.c.started_at.desc(),
                                             schema.runs.c.id.desc())
        if experiment:
            query = query.where(schema.runs.c.experiment == experiment)
        if isinstance(kind, tuple):
            query = query.where(schema.runs.c.kind.in_(kind))
        elif kind:
            query = query.where(schema.runs.c.kind == kind)
        if status:
            query = query.where(schema.runs.c.status == status)
        if limit:
            query = query.limit(limit)
        with self.engine.connect() as conn:
            return [run_record(row) for row in conn.execute(query)]

    def resolve_run(self, ref: str, experiment: str | None = None, *,
                    kinds: tuple[str, ...] | None = TRIAL_KINDS,
                    status: str | None = None) -> RunRecord:
        """A run by id, unique id prefix, `latest` or `latest~N` (of an experiment, if given).
        `latest` counts the runs of `kinds`, by default those with trials, which every
        command naming a run by `latest` works on: `assay report` after `assay traces`
        means the latest eval run (`kinds=None` counts every run), and only those of
        `status` when given. An empty `ref` is the prefix of every id: it is refused, not
        read as the only run."""
        if not ref.strip():
            raise UserError("the run id is empty (an unset shell variable?): give a run id, "
                            "an id prefix, latest or latest~N")
        back = latest_steps(ref)
        if back is not None:
            runs = self.list_runs(experiment, kind=kinds, status=status, limit=back + 1)
            if len(runs) <= back:
                scope = f" of experiment '{experiment}'" if experiment else ""
                which = "".join(f"{words} " for words in (status, " or ".join(kinds or ()))
                                if words)
                raise UserError(f"no {which}run '{ref}'{scope}: only {len(runs)} stored")
            return runs[back]
        run = self.get_run(ref)
        if run:
            return run
        with self.engine.connect() as conn:
            ids = conn.execute(  # autoescape: a '_' or '%' in `ref` is that character
                select(schema.runs.c.id).where(schema.runs.c.id.startswith(ref, autoescape=True))
                .order_by(schema.runs.c.id).limit(4)
            ).scalars().all()
        if len(ids) == 1:
            return self.get_run(ids[0])  # type: ignore[return-value]
        if len(ids) > 1:
            more = ", ..." if len(ids) > 3 else ""
            raise UserError(f"run id '{ref}' is ambiguous: {', '.join(ids[:3])}{more}")
        raise UserError(f"no run '{ref}' in {store_name(self.url)}")

    def previous_run(self, run: RunRecord) -> RunRecord | None:
        """The last completed run of the same experiment that started before `run`."""
        query = (
            select(schema.runs)
            .where(and_(schema.runs.c.experiment == run.experiment,
                        schema.runs.c.kind == run.kind,
                        schema.runs.c.status == "completed",
                        schema.runs.c.id != run.id,
                        schema.runs.c.started_at <= run.started_at))
            .order_by(schema.runs.c.started_at.desc(), schema.runs.c.id.desc())
            .limit(1)
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return run_record(row) if row else None

    # -- trials ---------------------------------------------------------------

    def write_trials(self, run_id: str, results: Iterable[TrialResult]) -> StoredBatch:
        """Commit a batch of finished trials and their scores, in one transaction when the
        database takes every row; a trial whose row it refuses is stored as an errored trial
        saying why (`StoredBatch.refused`), and the others as they are. Known secrets a
        target echoed, a scorer quoted or a case held are masked first (`redaction.redact_rows`)."""
        finished = now_iso()
        batch: list[TrialRows] = []
        refused: dict[TrialKey, str] = {}
        for result in results:
            try:
                batch.append(trial_rows(run_id, result, finished, self.storable))
            except Exception as exc:  # noqa: BLE001 - a value whose str() fails: the trial says why
                reason = redact(f"its values could not be stored: {type(exc).__name__}: "
                                f"{str(exc)[:300]}")
                refused[result.key] = reason
                batch.append(self._errored(run_id, result.key, reason, finished))
        if not batch:
            return StoredBatch()
        if self.file is not None:
            self.file.check()
        redact_rows([rows.trial for rows in batch], TRIAL_TEXT_COLUMNS)
        redact_rows([row for rows in batch for row in rows.scores], SCORE_TEXT_COLUMNS)
        with self._lock:
            stored = write_batch(self.engine, batch, lambda key, why: self._errored(
                run_id, key, why, finished))
        stored.refused = {**refused, **stored.refused}
        return stored

    def _errored(self, run_id: str, key: TrialKey, reason: str, finished: str) -> TrialRows:
        return errored_rows(run_id, key, reason, finished, self.storable)

    def done_keys(self, run_id: str) -> set[TrialKey]:
        """Keys of the trials already stored for a run (what `--resume` skips)."""
        query = select(schema.trials.c.case_id, schema.trials.c.condition,
                       schema.trials.c.epoch).where(schema.trials.c.run_id == run_id)
        with self.engine.connect() as conn:
            return {(row[0], row[1], row[2]) for row in conn.execute(query)}

    def delete_errored_trials(self, run_id: str, *, score_errors: bool = False) -> int:
        """Forget trials that ended in an error, so a resumed run tries them again; with
        `score_errors`, also those a scorer failed on (a resumed rejudge judges them again)."""
        t, s = schema.trials, schema.scores
        errored: ColumnElement[bool] = t.c.error.is_not(None)
        if score_errors:
            errored = or_(errored, schema.trial_has_score(s.c.error.is_not(None)))
        with self.engine.begin() as conn:
            keys = conn.execute(select(t.c.case_id, t.c.condition, t.c.epoch).where(
                and_(t.c.run_id == run_id, errored))).all()
            for case_id, condition, epoch in keys:
                for table in (s, t):
                    conn.execute(delete(table).where(and_(
                        table.c.run_id == run_id, table.c.case_id == case_id,
                        table.c.condition == condition, table.c.epoch == epoch)))
        return len(keys)

    def epochs(self, run_id: str) -> int:
        """How many epochs the run's stored trials span (1 for a run without repeats)."""
        query = select(func.max(schema.trials.c.epoch)).where(schema.trials.c.run_id == run_id)
        with self.engine.connect() as conn:
            highest = conn.execute(query).scalar()
        return 1 if highest is None else int(highest) + 1

    def count_trials(self, run_id: str) -> tuple[int, int]:
        """(trials stored, trials with an error) for a run."""
        query = select(func.count(), func.count(schema.trials.c.error)).where(
            schema.trials.c.run_id == run_id)
        with self.engine.connect() as conn:
            total, errors = conn.execute(query).one()
        return int(total), int(errors)

    def last_trial_at(self, run_id: str) -> str | None:
        """When the run's newest trial was stored (ISO, UTC); None before the first."""
        query = select(func.max(schema.trials.c.finished_at)).where(
            schema.trials.c.run_id == run_id)
        with self.engine.connect() as conn:
            return conn.execute(query).scalar()

    # -- exports --------------------------------------------------------------

    def record_export(self, run_id: str, format: str, location: str,
                      files: list[str]) -> ExportRecord:
        """Remember that `run_id` was written as `format` under `location`."""
        record = ExportRecord(format, location, list(files), now_iso())
        notes = Replacements()  # paths the file system gave; nothing to note them on
        with self._lock, self.engine.begin() as conn:
            conn.execute(schema.exports.insert().values(
                run_id=run_id, format=format,
                location=self.storable.text(location, "location", notes),
                files_json=self.storable.json(files, "files", notes),
                created_at=record.created_at))
        return record

    def exports(self, run_id: str) -> list[ExportRecord]:
        """Where the run was exported, oldest first."""
        e = schema.exports
        query = select(e).where(e.c.run_id == run_id).order_by(e.c.created_at)
        with self.engine.connect() as conn:
            return [ExportRecord(row.format, row.location, list(loads(row.files_json)),
                                 row.created_at) for row in conn.execute(query)]


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cursor = dbapi_conn.cursor()
    cursor.execute(f"PRAGMA busy_timeout={int(LOCK_WAIT_SECONDS * 1000)}")
    _switch_to_wal(cursor)
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _switch_to_wal(cursor: Any) -> None:
    """Switch the file to WAL, waiting while another process holds its lock.

    SQLite answers "database is locked" to a journal-mode change at once, without
    consulting busy_timeout, so processes opening the same new store together
    (pytest-xdist workers, parallel `assay run`s) retry here instead of failing.
    """
    import sqlite3
    import time

    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    pause = 0.005
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.25)


def latest_steps(ref: str) -> int | None:
    """N of a run named `latest~N` (0 for `latest`); None for a run id or prefix. A malformed
    N (`latest~x`) is a UserError saying how to write it."""
    if ref != "latest" and not ref.startswith("latest~"):
        return None
    steps = ref.partition("~")[2] or "0"
    if not steps.isdigit():
        raise UserError(f"run '{ref}': write latest~N with a whole number N, "
                        "e.g. latest~1 for the run before the latest")
    return int(steps)


def _kind_allowed(kind: str, asked: str | tuple[str, ...] | None) -> bool:
    """Whether a run of `kind` is among those `list_runs` was asked for (None: any)."""
    return asked is None or kind == asked or (isinstance(asked, tuple) and kind in asked)
