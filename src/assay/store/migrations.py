"""Numbered schema migrations, applied in order and recorded in `schema_migrations`.

A migration is a function of a connection. Add new ones at the end of
`MIGRATIONS`; never edit one that has shipped. `migrate_store` runs them
with the database's write lock held (SQLite's `BEGIN IMMEDIATE`, a
PostgreSQL advisory lock), so two processes opening a new store at once do
not both create its tables.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from sqlalchemy import Connection, Engine, inspect, select, text
from sqlalchemy.schema import CreateTable

from assay.store import schema


def _m001_initial(conn: Connection) -> None:
    from assay.store import initial_schema

    initial_schema.metadata.create_all(conn, checkfirst=True)


def _m002_scorer_usage(conn: Connection) -> None:
    columns = {c["name"] for c in inspect(conn).get_columns("scores")}
    for name, kind in (("input_tokens", "INTEGER"), ("output_tokens", "INTEGER"),
                       ("cost_usd", "FLOAT")):
        if name not in columns:  # a database made before migrations were frozen has them
            conn.execute(text(f"ALTER TABLE scores ADD COLUMN {name} {kind}"))


def _m003_run_options(conn: Connection) -> None:
    columns = {c["name"] for c in inspect(conn).get_columns("runs")}
    if "options_json" not in columns:
        conn.execute(text("ALTER TABLE runs ADD COLUMN options_json TEXT"))


def _m004_exports(conn: Connection) -> None:
    schema.exports.create(conn, checkfirst=True)
    for index in schema.exports.indexes:
        index.create(conn, checkfirst=True)


def _m005_browsing_indexes(conn: Connection) -> None:
    inspector = inspect(conn)
    tables = set(inspector.get_table_names())
    for index in schema.browsing_indexes(conn.dialect.name):
        table = index.table
        if table is None or table.name not in tables:
            continue
        present = {c["name"] for c in inspector.get_columns(table.name)}
        if {c.name for c in index.columns} <= present:  # a hand-made old table may lack some
            index.create(conn, checkfirst=True)


def _m006_calibrations(conn: Connection) -> None:
    schema.calibrations.create(conn, checkfirst=True)
    for index in schema.calibrations.indexes:
        index.create(conn, checkfirst=True)


def _m007_run_locks(conn: Connection) -> None:
    schema.run_locks.create(conn, checkfirst=True)


def _m008_report_dir(conn: Connection) -> None:
    columns = {c["name"] for c in inspect(conn).get_columns("runs")}
    if "report_dir" not in columns:
        conn.execute(text("ALTER TABLE runs ADD COLUMN report_dir TEXT"))


def _m009_recorded_review(conn: Connection) -> None:
    columns = {c["name"] for c in inspect(conn).get_columns("runs")}
    if "review_json" not in columns:
        conn.execute(text("ALTER TABLE runs ADD COLUMN review_json TEXT"))


def _m010_pack_hashes(conn: Connection) -> None:
    columns = {c["name"] for c in inspect(conn).get_columns("runs")}
    if "pack_hashes_json" not in columns:
        conn.execute(text("ALTER TABLE runs ADD COLUMN pack_hashes_json TEXT"))


def _m011_cache_by_provider(conn: Connection) -> None:
    if not inspect(conn).has_table("response_cache"):
        return  # a store made by hand without the table: nothing to index
    for index in schema.response_cache.indexes:
        index.create(conn, checkfirst=True)


def _m012_scorer_cache_hits(conn: Connection) -> None:
    columns = {c["name"] for c in inspect(conn).get_columns("scores")}
    if "cache_hits" not in columns:
        conn.execute(text("ALTER TABLE scores ADD COLUMN cache_hits INTEGER"))


def _m013_scorer_shared_cost(conn: Connection) -> None:
    columns = {c["name"] for c in inspect(conn).get_columns("scores")}
    if "shared_cost_usd" not in columns:
        conn.execute(text("ALTER TABLE scores ADD COLUMN shared_cost_usd FLOAT"))


MIGRATIONS: list[tuple[str, Callable[[Connection], None]]] = [
    ("initial tables: runs, trials, scores, response_cache", _m001_initial),
    ("scores: tokens and cost spent by the scorer (LLM judges)", _m002_scorer_usage),
    ("runs: the options a run was started with (sample, epochs, conditions)", _m003_run_options),
    ("exports: where a run was written in other formats (assay export)", _m004_exports),
    ("indexes for browsing a run's cases by tag, error and verdict", _m005_browsing_indexes),
    ("calibrations: judges measured against people's labels", _m006_calibrations),
    ("run_locks: one process per run at a time", _m007_run_locks),
    ("runs: the folder its report files were written to", _m008_report_dir),
    ("runs: the gates, warnings and usage its review concluded", _m009_recorded_review),
    ("runs: the content hash of each knowledge pack it reads", _m010_pack_hashes),
    ("response_cache: an index of replies by provider (a run without its API key asks)",
     _m011_cache_by_provider),
    ("scores: a judge's calls answered from the response cache", _m012_scorer_cache_hits),
    ("scores: what those cached calls cost when first paid for", _m013_scorer_shared_cost),
]

SCHEMA_VERSION = len(MIGRATIONS)


MIGRATION_LOCK = 0x61737361  # "assa": the PostgreSQL advisory lock key of migrations


def migrate_store(engine: Engine) -> int:
    """Bring the store up to `SCHEMA_VERSION`, one process at a time; how many migrations ran."""
    with engine.connect() as conn:
        version = current_version(conn)
    refuse_newer(version, str(engine.url))
    if version == SCHEMA_VERSION:
        return 0  # the common case: no write lock taken
    with engine.begin() as conn:
        dialect = engine.dialect.name
        if dialect == "sqlite":
            conn.exec_driver_sql("BEGIN IMMEDIATE")  # waits for other writers (busy_timeout)
        elif dialect == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        return migrate(conn)


def migrate(conn: Connection) -> int:
    """Bring the database up to `SCHEMA_VERSION`; returns how many migrations ran."""
    if conn.dialect.name == "sqlite" and not inspect(conn).get_table_names():
        return create_current(conn)
    schema.schema_migrations.create(conn, checkfirst=True)
    applied = set(conn.execute(select(schema.schema_migrations.c.version)).scalars())
    ran = 0
    for version, (name, step) in enumerate(MIGRATIONS, start=1):
        if version in applied:
            continue
        step(conn)
        conn.execute(
            schema.schema_migrations.insert().values(
                version=version, name=name, applied_at=datetime.now(UTC).isoformat()
            )
        )
        ran += 1
    return ran


def create_current(conn: Connection) -> int:
    """An empty database gets today's tables and indexes in one step, as the migrations would
    leave them, with every migration recorded: a new store is made at every first run, and
    this takes a quarter of the statements (no table is looked up before it is made)."""
    for table in schema.metadata.sorted_tables:
        conn.execute(CreateTable(table))  # the table alone: its indexes are listed below
    for index in (*schema.DECLARED_INDEXES, *schema.browsing_indexes(conn.dialect.name)):
        index.create(conn)
    applied_at = datetime.now(UTC).isoformat()
    conn.execute(schema.schema_migrations.insert(),
                 [{"version": version, "name": name, "applied_at": applied_at}
                  for version, (name, _) in enumerate(MIGRATIONS, start=1)])
    return len(MIGRATIONS)


def refuse_newer(version: int, url: str) -> None:
    """A store a newer assay has migrated may hold what this one would misread or overwrite
    (a column renamed, a table it does not know): a clear error before anything runs, not
    a database error after the first trials were paid for."""
    if version > SCHEMA_VERSION:
        from assay._version import __version__
        from assay.errors import UserError
        from assay.store.failures import store_name

        raise UserError(f"the store {store_name(url)} was written by a newer assay (schema "
                        f"version {version}; assay {__version__} knows up to {SCHEMA_VERSION}):"
                        " upgrade assay (pip install -U assay-eval), or name another store "
                        "with --store")


def refuse_unreadable(version: int, url: str) -> None:
    """A store an older assay made, read where it cannot be upgraded (a read-only mount):
    the columns its migrations add are read by every command, so a clear error saying how
    to upgrade it, not `no such column` at the first query that reads one."""
    if version < SCHEMA_VERSION:
        from assay.errors import UserError
        from assay.store.failures import store_name

        raise UserError(f"the store {store_name(url)} was made by an older assay (schema "
                        f"version {version}; this one reads {SCHEMA_VERSION}) and cannot be "
                        "upgraded here: this process cannot write it. Open it once where it can be written (any "
                        "assay command upgrades it), or copy it somewhere writable and name "
                        "the copy with --store")


def current_version(conn: Connection) -> int:
    if not inspect(conn).has_table("schema_migrations"):
        return 0
    versions = conn.execute(select(schema.schema_migrations.c.version)).scalars().all()
    return max(versions, default=0)
